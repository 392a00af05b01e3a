"""ReportExportPolicy (namespaced, no status): an administrator's subscription that sends the final
report of every matching Certification to one webhook. Schema, defaults and rule messages follow
NVCRE's API facts, so an API server with this CRD admits and refuses what NVCRE's does."""
from types_lib import *


def duration_between(d, low, high, message, default):
    return with_rules(duration(d, default=default),
                      rule(f"duration(self) >= duration('{low}') && duration(self) <= duration('{high}')",
                           message))


def label_selector(d):
    requirement = obj({
        "key": string("Label key the selector applies to."),
        "operator": string("In, NotIn, Exists or DoesNotExist."),
        "values": strings("Values for In and NotIn (non-empty); empty for Exists and DoesNotExist.",
                          x_kubernetes_list_type="atomic"),
    }, "A label selector requirement.", required=["key", "operator"])
    return obj({
        "matchExpressions": array(requirement, "Requirements, all of which must match.",
                                  x_kubernetes_list_type="atomic"),
        "matchLabels": string_map("Labels that must all be present with these values."),
    }, d, x_kubernetes_map_type="atomic")


def secret_key_selector(d):
    return obj({
        "key": string("Key of the Secret's data holding the value."),
        "name": string("Name of the Secret in the policy's namespace.", default=""),
        "optional": boolean("Whether the Secret or its key may be missing."),
    }, d, required=["key"], x_kubernetes_map_type="atomic")


def report_webhook():
    return obj({
        "url": string("HTTP POST destination; HTTPS unless the exporter's administrator allows plain HTTP "
                      "for development.", minLength=1, maxLength=2048, pattern=r"^https?://[^\s]+$"),
        "bearerTokenSecretRef": secret_key_selector("Secret key holding the bearer token sent to the receiver."),
        "timeout": duration_between("Timeout of one request.", "1s", "5m", "timeout must be between 1s and 5m",
                                    "10s"),
    }, "The HTTP receiver; credentials stay in a Secret.", required=["url"])


def report_export_retry():
    return with_rules(obj({
        "initialBackoff": duration_between("Wait before the first retry.", "1s", "1h",
                                           "initialBackoff must be between 1s and 1h", "10s"),
        "maxBackoff": duration_between("Longest wait between two attempts.", "1s", "24h",
                                       "maxBackoff must be between 1s and 24h", "15m"),
        "maxAttempts": int32("Attempts of one retry cycle, the first included.", default=100, minimum=1,
                             maximum=10000),
        "maxElapsedTime": duration_between("Time a cycle may take, from the first attempt on a stored report.",
                                           "1s", "720h", "maxElapsedTime must be between 1s and 30 days", "24h"),
    }, "A bounded retry cycle.", default={}),
        rule("!has(self.maxBackoff) || !has(self.initialBackoff) || "
             "duration(self.maxBackoff) >= duration(self.initialBackoff)",
             "maxBackoff must not be less than initialBackoff"))


def report_export_retention():
    return obj({
        "succeeded": duration_between("How long a delivered report is kept.", "1h", "8760h",
                                      "succeeded retention must be between 1h and 365 days", "168h"),
        "failed": duration_between("How long a report whose delivery failed is kept.", "1h", "8760h",
                                   "failed retention must be between 1h and 365 days", "720h"),
    }, "How long report payloads are kept once a delivery cycle ends.", default={})


def report_export_policy_schema():
    return obj({
        "source": obj({
            "kind": string("Kind whose reports are sent; only Certification.", default="Certification",
                           enum=["Certification"]),
            "namespaces": strings("Namespaces whose Certifications may supply reports.", minItems=1,
                                  maxItems=64, x_kubernetes_list_type="set"),
            "selector": label_selector("Labels a Certification must carry; empty matches every one in the "
                                       "namespaces."),
        }, "Which finished Certifications are exported.", required=["namespaces"]),
        "webhook": report_webhook(),
        "retry": report_export_retry(),
        "retention": report_export_retention(),
        "suspend": boolean("Stop registering new exports; exports already registered go on."),
    }, "A standing subscription to final reports. Changes apply to exports registered afterwards.",
        required=["source", "webhook"])
