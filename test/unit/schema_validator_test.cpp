// The validation engine against a small synthetic CRD that exercises every keyword we model, with
// the exact StatusCause formats kube-apiserver produces.
#include "api/validation.hpp"
#include "jsonkit/yaml.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace json = boost::json;
using namespace nvcre::api;
using namespace nvcre::jsonkit;

namespace {

constexpr const char* kWidgetCrd = R"yaml(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.example.com
spec:
  group: test.example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            required: [size, image]
            x-kubernetes-validations:
            - rule: has(self.optional) == has(oldSelf.optional)
              message: optional cannot be added or removed after creation
            properties:
              size: {type: integer, format: int32, minimum: 1, maximum: 10}
              ratio: {type: number, maximum: 0.5}
              image:
                type: string
                minLength: 1
                maxLength: 8
                x-kubernetes-validations:
                - {rule: self == oldSelf, message: image is immutable}
              mode: {type: string, enum: [fast, slow], default: fast}
              maxBytes: {type: string, pattern: '^[0-9]+(K|M|G|T)?$'}
              tags:
                type: array
                items: {type: string}
                minItems: 1
                maxItems: 3
                x-kubernetes-list-type: set
              labels:
                type: object
                maxProperties: 2
                additionalProperties: {type: string, maxLength: 5, pattern: '^[a-z]*$'}
                x-kubernetes-validations:
                - rule: self.all(k, k != 'app.kubernetes.io/managed-by' && !k.startsWith('nvcre.nvidia.com/'))
                  message: reserved label key
              choice:
                type: object
                minProperties: 1
                maxProperties: 1
                properties:
                  a: {type: string}
                  b: {type: string}
              cpu:
                anyOf: [{type: integer}, {type: string}]
                x-kubernetes-int-or-string: true
                x-kubernetes-validations:
                - {rule: "!quantity(string(self)).isLessThan(quantity('0'))", message: cpu must be non-negative}
              optional: {type: string, nullable: true}
              deps:
                type: array
                items: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
                    protocol:
                      type: string
                      x-kubernetes-validations:
                      - {rule: self == oldSelf, message: protocol is immutable}
              nested:
                type: object
                default: {}
                properties:
                  inner: {type: integer, default: 7}
          status:
            type: object
            properties:
              phase: {type: string}
              updatedAt: {type: string, format: date-time}
)yaml";

const SchemaRegistry& widgets() {
  static const SchemaRegistry registry = [] {
    SchemaRegistry loaded;
    loaded.add_crd(parse_yaml(kWidgetCrd));
    return loaded;
  }();
  return registry;
}

json::value widget(const std::string& spec_yaml, const std::string& extra = "") {
  return parse_yaml(
      "apiVersion: test.example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: ns}\n" +
      extra + "spec:\n" + spec_yaml);
}

std::vector<Cause> create_causes(const json::value& object) {
  return validate_create(object, widgets()).causes;
}

Cause cause(std::string field, std::string_view type, std::string message) {
  return {std::move(field), std::string(type), std::move(message)};
}

const Cause kRulesSkipped = rules_not_checked_cause();

constexpr const char* kValidSpec = "  size: 3\n  image: app\n";

}  // namespace

TEST(SchemaValidator, AcceptsAValidObject) {
  auto result = validate_create(widget(kValidSpec), widgets());
  EXPECT_TRUE(result.accepted);
  EXPECT_TRUE(result.causes.empty());
}

TEST(SchemaValidator, AppliesDefaultsIncludingInsideDefaultedObjects) {
  auto object = widget(kValidSpec);
  ASSERT_TRUE(apply_defaults(object, widgets()));
  const auto& spec = object.at("spec").as_object();
  EXPECT_EQ(spec.at("mode"), json::value("fast"));
  EXPECT_EQ(spec.at("nested"), json::parse(R"({"inner":7})"));
}

TEST(SchemaValidator, NonNullableNullIsDroppedBeforeValidation) {
  // image: null is pruned on decode, so it is reported as missing.
  EXPECT_EQ(create_causes(widget("  size: 3\n  image: null\n")),
            (std::vector<Cause>{kRulesSkipped,
                                cause("spec.image", cause_type::kRequired, "Required value")}));
  EXPECT_TRUE(
      validate_create(widget("  size: 3\n  image: app\n  optional: null\n"), widgets()).accepted);
}

TEST(SchemaValidator, WrongTypeIsBlockingForRules) {
  EXPECT_EQ(
      create_causes(widget("  size: big\n  image: app\n  cpu: '-1'\n")),
      (std::vector<Cause>{
          kRulesSkipped,
          cause("spec.size", cause_type::kTypeInvalid,
                "Invalid value: \"string\": spec.size in body must be of type integer: \"string\""),
      }));
}

TEST(SchemaValidator, IntegralFloatCountsAsInteger) {
  EXPECT_TRUE(validate_create(widget("  size: 3.0\n  image: app\n"), widgets()).accepted);
}

TEST(SchemaValidator, BoundsAreNotBlocking) {
  EXPECT_EQ(
      create_causes(widget("  size: 0\n  image: app\n  ratio: 0.75\n  cpu: '-1'\n")),
      (std::vector<Cause>{
          cause("spec.cpu", cause_type::kInvalid,
                "Invalid value: \"-1\": cpu must be non-negative"),
          cause("spec.ratio", cause_type::kInvalid,
                "Invalid value: 0.75: spec.ratio in body should be less than or equal to 0.5"),
          cause("spec.size", cause_type::kInvalid,
                "Invalid value: 0: spec.size in body should be greater than or equal to 1"),
      }));
  EXPECT_EQ(create_causes(widget("  size: 11\n  image: app\n")),
            (std::vector<Cause>{
                cause("spec.size", cause_type::kInvalid,
                      "Invalid value: 11: spec.size in body should be less than or equal to 10")}));
}

TEST(SchemaValidator, StringChecksStopAtTheFirstFailure) {
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: ''\n")),
            (std::vector<Cause>{
                cause("spec.image", cause_type::kInvalid,
                      "Invalid value: \"\": spec.image in body should be at least 1 chars long")}));
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: much-too-long\n")),
            (std::vector<Cause>{kRulesSkipped, cause("spec.image", cause_type::kTooLong,
                                                     "Too long: may not be more than 8 bytes")}));
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  maxBytes: 16X\n")),
            (std::vector<Cause>{cause("spec.maxBytes", cause_type::kInvalid,
                                      "Invalid value: \"16X\": spec.maxBytes in body should match "
                                      "'^[0-9]+(K|M|G|T)?$'")}));
}

TEST(SchemaValidator, EnumReportsSupportedValues) {
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  mode: medium\n")),
            (std::vector<Cause>{
                kRulesSkipped,
                cause("spec.mode", cause_type::kNotSupported,
                      "Unsupported value: \"medium\": supported values: \"fast\", \"slow\"")}));
}

TEST(SchemaValidator, ItemCountsAndSetDuplicates) {
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  tags: []\n")),
            (std::vector<Cause>{
                cause("spec.tags", cause_type::kInvalid,
                      "Invalid value: 0: spec.tags in body should have at least 1 items")}));
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  tags: [a, b, c, d]\n")),
            (std::vector<Cause>{kRulesSkipped, cause("spec.tags", cause_type::kTooMany,
                                                     "Too many: 4: must have at most 3 items")}));
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  tags: [a, a]\n")),
            (std::vector<Cause>{
                cause("spec.tags[1]", cause_type::kDuplicate, "Duplicate value: \"a\"")}));
}

TEST(SchemaValidator, MapEntriesAreNamedWithDotsLikeKubeOpenapi) {
  EXPECT_EQ(
      create_causes(widget("  size: 1\n  image: app\n  labels: {team: Infra}\n")),
      (std::vector<Cause>{cause("spec.labels.team", cause_type::kInvalid,
                                "Invalid value: \"Infra\": spec.labels.team in body should match "
                                "'^[a-z]*$'")}));
}

TEST(SchemaValidator, PropertyCountFailureSkipsTheObjectsContents) {
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  labels: {a: X, b: X, c: X}\n")),
            (std::vector<Cause>{kRulesSkipped, cause("spec.labels", cause_type::kTooMany,
                                                     "Too many: 3: must have at most 2 items")}));
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  choice: {}\n")),
            (std::vector<Cause>{
                cause("spec.choice", cause_type::kInvalid,
                      "Invalid value: 0: spec.choice in body should have at least 1 properties")}));
}

TEST(SchemaValidator, RequiredFields) {
  EXPECT_EQ(create_causes(widget("  image: app\n")),
            (std::vector<Cause>{kRulesSkipped,
                                cause("spec.size", cause_type::kRequired, "Required value")}));
}

TEST(SchemaValidator, UnknownFieldsFailAlone) {
  EXPECT_EQ(
      create_causes(widget("  size: 0\n  image: app\n  foo: 1\n  ports: [{name: a, extra: 1}]\n"
                           "  free: {anything: [1]}\n")),
      (std::vector<Cause>{
          cause("spec.foo", cause_type::kUnknownField, "unknown field \"spec.foo\""),
          cause("spec.ports[0].extra", cause_type::kUnknownField,
                "unknown field \"spec.ports[0].extra\""),
      }));
  EXPECT_EQ(
      create_causes(widget(kValidSpec, "extra: true\n")),
      (std::vector<Cause>{cause("extra", cause_type::kUnknownField, "unknown field \"extra\"")}));
}

// fieldValidation Ignore/Warn: the API server prunes what strict decoding would refuse, then the
// pruned object is validated like any other (here: size 0 is still below the minimum).
TEST(SchemaValidator, PruningDropsExactlyTheUnknownFields) {
  auto object = widget(
      "  size: 0\n  image: app\n  foo: 1\n  ports: [{name: a, extra: 1}]\n"
      "  free: {anything: [1]}\n",
      "extra: true\n");
  EXPECT_EQ(prune_unknown_fields(object, widgets()),
            (std::vector<std::string>{"extra", "spec.foo", "spec.ports[0].extra"}));
  EXPECT_EQ(object, widget("  size: 0\n  image: app\n  ports: [{name: a}]\n"
                           "  free: {anything: [1]}\n"));
  EXPECT_EQ(create_causes(object),
            (std::vector<Cause>{cause("spec.size", cause_type::kInvalid,
                                      "Invalid value: 0: spec.size in body should be greater "
                                      "than or equal to 1")}));
  auto unserved = json::parse(R"({"apiVersion":"x/v1","kind":"Other","spec":{"foo":1}})");
  EXPECT_TRUE(prune_unknown_fields(unserved, widgets()).empty());
  EXPECT_EQ(unserved.at("spec").at("foo"), 1);
}

TEST(SchemaValidator, MetadataNameIsRequiredAndADnsSubdomain) {
  auto object = widget(kValidSpec);
  object.at("metadata").as_object().erase("name");
  EXPECT_EQ(create_causes(object),
            (std::vector<Cause>{kRulesSkipped,
                                cause("metadata.name", cause_type::kRequired,
                                      "Required value: name or generateName is required")}));
  object.at("metadata").as_object()["name"] = "Bad_Name";
  auto causes = create_causes(object);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "metadata.name");
  EXPECT_EQ(causes[0].type, "FieldValueInvalid");
  EXPECT_EQ(
      causes[0].message.rfind("Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain", 0), 0u)
      << causes[0].message;
}

TEST(SchemaValidator, MetadataLabelsFollowTheLabelGrammar) {
  auto causes =
      create_causes(parse_yaml("apiVersion: test.example.com/v1\nkind: Widget\n"
                               "metadata: {name: w1, labels: {'bad key': ok}}\nspec:\n" +
                               std::string(kValidSpec)));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "metadata.labels");
  EXPECT_EQ(causes[0].message.rfind("Invalid value: \"bad key\": name part must consist of", 0), 0u)
      << causes[0].message;
}

TEST(SchemaValidator, EmbeddedResourcesNeedApiVersionAndKind) {
  EXPECT_EQ(
      create_causes(widget(
          "  size: 1\n  image: app\n  deps: [{apiVersion: v1, metadata: {name: x}, data: {}}]\n")),
      (std::vector<Cause>{kRulesSkipped, cause("spec.deps[0].kind", cause_type::kRequired,
                                               "Required value: must not be empty")}));
}

TEST(SchemaValidator, MapListKeysMustBeUnique) {
  EXPECT_EQ(create_causes(widget(
                "  size: 1\n  image: app\n  ports: [{name: a, port: 1}, {name: a, port: 2}]\n")),
            (std::vector<Cause>{cause("spec.ports[1]", cause_type::kDuplicate,
                                      "Duplicate value: {\"name\":\"a\"}")}));
}

TEST(SchemaValidator, IntOrStringRules) {
  EXPECT_TRUE(validate_create(widget("  size: 1\n  image: app\n  cpu: 2\n"), widgets()).accepted);
  EXPECT_TRUE(
      validate_create(widget("  size: 1\n  image: app\n  cpu: 500m\n"), widgets()).accepted);
  EXPECT_EQ(
      create_causes(widget("  size: 1\n  image: app\n  cpu: true\n")),
      (std::vector<Cause>{
          kRulesSkipped,
          cause("spec.cpu", cause_type::kTypeInvalid,
                "Invalid value: \"boolean\": spec.cpu in body must be of type integer,string: "
                "\"boolean\"")}));
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  cpu: lots\n")),
            (std::vector<Cause>{
                cause("spec.cpu", cause_type::kInvalid,
                      "Invalid value: \"lots\": quantities must match the regular expression "
                      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: cpu must be "
                      "non-negative")}));
}

TEST(SchemaValidator, MapRulesReportAtTheMap) {
  EXPECT_EQ(create_causes(widget("  size: 1\n  image: app\n  labels: {nvcre.nvidia.com/x: a}\n")),
            (std::vector<Cause>{
                cause("spec.labels", cause_type::kInvalid, "Invalid value: reserved label key")}));
}

TEST(SchemaValidator, TransitionRulesRunOnUpdateOnly) {
  const auto old_object = widget(kValidSpec);
  // On create, `self == oldSelf` and the presence rule do not run.
  EXPECT_TRUE(
      validate_create(widget("  size: 3\n  image: other\n  optional: x\n"), widgets()).accepted);
  EXPECT_EQ(
      validate_update(old_object, widget("  size: 3\n  image: other\n  optional: x\n"), widgets())
          .causes,
      (std::vector<Cause>{
          cause("spec", cause_type::kInvalid,
                "Invalid value: optional cannot be added or removed after creation"),
          cause("spec.image", cause_type::kInvalid, "Invalid value: \"other\": image is immutable"),
      }));
  EXPECT_TRUE(validate_update(old_object, widget("  size: 4\n  image: app\n"), widgets()).accepted);
}

TEST(SchemaValidator, MapListItemsCorrelateByKey) {
  const auto old_object = widget(
      "  size: 1\n  image: app\n  ports: [{name: a, protocol: TCP}, {name: b, protocol: UDP}]\n");
  // Reordering keeps each item's old counterpart; changing one item's protocol is caught.
  EXPECT_TRUE(validate_update(old_object,
                              widget("  size: 1\n  image: app\n  ports: [{name: b, protocol: UDP}, "
                                     "{name: a, protocol: TCP}]\n"),
                              widgets())
                  .accepted);
  EXPECT_EQ(validate_update(old_object,
                            widget("  size: 1\n  image: app\n  ports: [{name: b, protocol: TCP}, "
                                   "{name: c, protocol: X}]\n"),
                            widgets())
                .causes,
            (std::vector<Cause>{cause("spec.ports[0].protocol", cause_type::kInvalid,
                                      "Invalid value: \"TCP\": protocol is immutable")}));
}

TEST(SchemaValidator, StatusIsIgnoredByTheMainResource) {
  EXPECT_TRUE(validate_create(widget(kValidSpec, "status: {phase: 5}\n"), widgets()).accepted);
  const auto old_object = widget(kValidSpec);
  EXPECT_TRUE(
      validate_update(old_object, widget(kValidSpec, "status: {phase: 5}\n"), widgets()).accepted);
  EXPECT_EQ(
      validate_status_update(old_object, widget(kValidSpec, "status: {phase: 5}\n"), widgets())
          .causes,
      (std::vector<Cause>{
          kRulesSkipped,
          cause("status.phase", cause_type::kTypeInvalid,
                "Invalid value: \"integer\": status.phase in body must be of type string: "
                "\"integer\"")}));
}

TEST(SchemaValidator, UnknownKindsAndVersions) {
  EXPECT_EQ(
      validate_create(
          parse_yaml("apiVersion: test.example.com/v1\nkind: Gadget\nmetadata: {name: g}\n"),
          widgets())
          .causes,
      (std::vector<Cause>{cause("kind", cause_type::kNotSupported,
                                "Unsupported value: \"Gadget\": supported values: \"Widget\"")}));
  EXPECT_EQ(
      validate_create(
          parse_yaml("apiVersion: test.example.com/v2\nkind: Widget\nmetadata: {name: g}\n"),
          widgets())
          .causes,
      (std::vector<Cause>{cause("apiVersion", cause_type::kNotSupported,
                                "Unsupported value: \"test.example.com/v2\": supported values: "
                                "\"test.example.com/v1\"")}));
}

TEST(SchemaValidator, CausesJson) {
  auto result = validate_create(widget("  size: 0\n  image: app\n"), widgets());
  EXPECT_EQ(
      json::serialize(causes_to_json(result)),
      R"({"accepted":false,"causes":[{"type":"FieldValueInvalid","field":"spec.size",)"
      R"("message":"Invalid value: 0: spec.size in body should be greater than or equal to 1"}]})");
}

TEST(SchemaValidator, GoRenderings) {
  EXPECT_EQ(go_float(1), "1");
  EXPECT_EQ(go_float(-1), "-1");
  EXPECT_EQ(go_float(0.5), "0.5");
  EXPECT_EQ(go_float(253), "253");
  EXPECT_EQ(go_float(1e6), "1e+06");
  EXPECT_EQ(go_float(123456), "123456");
  EXPECT_EQ(go_float(0.0001), "0.0001");
  EXPECT_EQ(go_float(0.00001), "1e-05");
  EXPECT_EQ(go_quote("a\"b\\c\n"), R"("a\"b\\c\n")");
}

TEST(SchemaLoader, RejectsWhatWeDoNotModel) {
  auto load = [](const std::string& property) {
    SchemaRegistry registry;
    registry.add_crd(parse_yaml(std::string(R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.test.example.com}
spec:
  group: test.example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              field: )") + property +
                                "\n"));
  };
  auto message_of = [&](const std::string& property) {
    try {
      load(property);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("(loaded)");
  };
  EXPECT_EQ(
      message_of("{type: string, oneOf: [{type: string}]}"),
      "CRD things.test.example.com (v1): schema at spec.field: unsupported schema keyword 'oneOf'");
  EXPECT_EQ(
      message_of("{type: string, pattern: '('}")
          .rfind("CRD things.test.example.com (v1): schema at spec.field: invalid pattern '('", 0),
      0u);
  EXPECT_EQ(message_of("{type: integer, minimum: 1, default: 0}"),
            "CRD things.test.example.com (v1): schema at spec.field: invalid default: Invalid "
            "value: 0: spec.field in "
            "body should be greater than or equal to 1");
  EXPECT_EQ(
      message_of(
          "{type: string, x-kubernetes-validations: [{rule: 'self.size() > 1', messageExpression: "
          "'\"x\"'}]}"),
      "CRD things.test.example.com (v1): schema at spec.field: messageExpression is not supported "
      "(rule: "
      "self.size() > 1)");
  EXPECT_EQ(message_of("{type: string}"), "(loaded)");
}

TEST(SchemaValidator, AbsentMetadataStillNeedsAName) {
  for (const char* meta : {"", "metadata: null\n"}) {
    auto object = parse_yaml(std::string("apiVersion: test.example.com/v1\nkind: Widget\n") + meta +
                             "spec:\n" + kValidSpec);
    EXPECT_EQ(validate_create(object, widgets()).causes,
              (std::vector<Cause>{kRulesSkipped,
                                  cause("metadata.name", cause_type::kRequired,
                                        "Required value: name or generateName is required")}))
        << meta;
  }
}

TEST(SchemaValidator, DateTimeFormat) {
  const auto old_object = widget(kValidSpec);
  EXPECT_TRUE(validate_status_update(
                  old_object, widget(kValidSpec, "status: {updatedAt: '2025-01-02T03:04:05Z'}\n"),
                  widgets())
                  .accepted);
  EXPECT_EQ(validate_status_update(
                old_object, widget(kValidSpec, "status: {updatedAt: yesterday}\n"), widgets())
                .causes,
            (std::vector<Cause>{
                kRulesSkipped,
                cause("status.updatedAt", cause_type::kTypeInvalid,
                      "Invalid value: \"yesterday\": status.updatedAt in body must be of type "
                      "date-time: \"yesterday\"")}));
}

// kube only builds a CEL validator for a schema that has rules; without one, a blocking error is
// reported alone, with no word about rules left unchecked.
TEST(SchemaValidator, ASchemaWithoutRulesReportsNoSkippedRules) {
  SchemaRegistry registry;
  registry.add_crd(parse_yaml(R"yaml(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.test.example.com}
spec:
  group: test.example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [mode]
              properties:
                mode: {type: string, enum: [fast, slow]}
)yaml"));
  const auto gadget = [](const std::string& spec) {
    return parse_yaml("apiVersion: test.example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: " +
                      spec);
  };
  EXPECT_TRUE(validate_create(gadget("{mode: fast}"), registry).accepted);
  EXPECT_EQ(validate_create(gadget("{}"), registry).causes,
            (std::vector<Cause>{cause("spec.mode", cause_type::kRequired, "Required value")}));
  EXPECT_EQ(
      validate_create(gadget("{mode: dim}"), registry).causes,
      (std::vector<Cause>{cause("spec.mode", cause_type::kNotSupported,
                                R"(Unsupported value: "dim": supported values: "fast", "slow")")}));
}
