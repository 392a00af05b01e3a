"""Schema building blocks for the nvcre CRDs: the field shapes every kind's schema is built from."""

ORDER = ["description", "type", "format", "enum", "default", "nullable",
         "minimum", "maximum", "minLength", "maxLength", "pattern",
         "minItems", "maxItems", "minProperties", "maxProperties",
         "anyOf", "items", "additionalProperties", "properties", "required",
         "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
         "x-kubernetes-preserve-unknown-fields", "x-kubernetes-list-type",
         "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-validations"]


class SQ(str):
    """Emitted single-quoted (regexes, JSONPaths)."""


class DQ(str):
    """Emitted double-quoted (CEL rules)."""


def node(**kw):
    kw = {k.replace("_", "-") if k.startswith("x_") else k: v for k, v in kw.items()}
    if "pattern" in kw:
        kw["pattern"] = SQ(kw["pattern"])
    for k in kw:
        assert k in ORDER, k
    return {k: kw[k] for k in ORDER if k in kw and kw[k] is not None}


def rule(r, m):
    return {"rule": DQ(r), "message": m}


def with_rules(schema, *rules):
    s = dict(schema)
    s["x-kubernetes-validations"] = list(s.get("x-kubernetes-validations", [])) + list(rules)
    return node(**{k.replace("-", "_") if k.startswith("x-") else k: v for k, v in s.items()})


def desc(schema, d):
    s = dict(schema)
    s["description"] = d
    return node(**{k.replace("-", "_") if k.startswith("x-") else k: v for k, v in s.items()})


def string(d=None, **kw):
    return node(description=d, type="string", **kw)


def boolean(d=None, **kw):
    return node(description=d, type="boolean", **kw)


def int32(d=None, **kw):
    return node(description=d, type="integer", format="int32", **kw)


def int64(d=None, **kw):
    return node(description=d, type="integer", format="int64", **kw)


def integer(d=None, **kw):  # Go int: plain integer
    return node(description=d, type="integer", **kw)


def datetime(d=None):
    return node(description=d, type="string", format="date-time")


def duration(d=None, **kw):  # metav1.Duration
    return node(description=d, type="string", **kw)


def array(items, d=None, **kw):
    return node(description=d, type="array", items=items, **kw)


def strings(d=None, **kw):
    return array(node(type="string"), d, **kw)


def string_map(d=None, **kw):
    return node(description=d, type="object", additionalProperties=node(type="string"), **kw)


def obj(props, d=None, required=None, **kw):
    return node(description=d, type="object", properties=dict(sorted(props.items())),
                required=sorted(required) if required else None, **kw)


def schemaless(d=None):
    """Arbitrary JSON (apiextensionsv1.JSON): no type, unknown fields kept."""
    return node(description=d, x_kubernetes_preserve_unknown_fields=True)


def free_object(d=None, **kw):
    return node(description=d, type="object", x_kubernetes_preserve_unknown_fields=True, **kw)


QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


def quantity(d=None, **kw):
    return node(description=d, anyOf=[{"type": "integer"}, {"type": "string"}],
                pattern=QUANTITY_PATTERN, x_kubernetes_int_or_string=True, **kw)


def int_or_string(d=None):
    return node(description=d, anyOf=[{"type": "integer"}, {"type": "string"}],
                x_kubernetes_int_or_string=True)
