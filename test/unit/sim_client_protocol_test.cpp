// kube-sim's pure pieces of talking to every client: boolean query parameters as the API server
// decodes them, protobuf request bodies, the two forms of an Event, and server-side Tables.
#include "sim/event_versions.hpp"
#include "sim/protobuf_body.hpp"
#include "sim/query_params.hpp"
#include "sim/table.hpp"
#include "test/support/protobuf_wire.hpp"

#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::sim {
namespace {

namespace json = boost::json;
using std::chrono::seconds;

TEST(SimQueryFlag, FalseOnlyWhenAbsentZeroOrFalse) {
  for (const char* yes : {"true", "True", "TRUE", "1", "t", "yes", ""})
    EXPECT_TRUE(query_flag({{"watch", yes}}, "watch")) << '"' << yes << '"';
  for (const char* no : {"false", "False", "FALSE", "fAlSe", "0"})
    EXPECT_FALSE(query_flag({{"watch", no}}, "watch")) << no;
  EXPECT_FALSE(query_flag({}, "watch"));
  EXPECT_FALSE(query_flag({{"other", "true"}}, "watch"));
}

using nvcre::testing::protobuf::field;

std::string envelope(const std::string& kind, const std::string& object) {
  return nvcre::testing::protobuf::envelope("v1", kind, object,
                                            "application/vnd.kubernetes.protobuf");
}

TEST(SimProtobufBody, DecodesAConfigMapAsKubectlSendsIt) {
  const std::string meta = field(1, "settings") + field(2, "") + field(3, "team-a") +
                           field(11, field(1, "app") + field(2, "demo")) +
                           field(14, "example.com/keep");
  const std::string config_map = field(1, meta) + field(2, field(1, "mode") + field(2, "fast")) +
                                 field(3, field(1, "blob") + field(2, std::string("\x00\xff", 2)));
  const json::value decoded = decode_protobuf_object(envelope("ConfigMap", config_map));
  EXPECT_EQ(decoded, json::parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"settings","namespace":"team-a","labels":{"app":"demo"},
                  "finalizers":["example.com/keep"]},
      "data":{"mode":"fast"},"binaryData":{"blob":"AP8="}})"));
}

TEST(SimProtobufBody, SecretDataIsBase64AndNamespaceGetsItsSpec) {
  const std::string secret = field(1, field(1, "db")) +
                             field(2, field(1, "password") + field(2, "hunter2")) +
                             field(3, "Opaque");
  EXPECT_EQ(decode_protobuf_object(envelope("Secret", secret)),
            json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},
                "data":{"password":"aHVudGVyMg=="},"type":"Opaque"})"));
  const std::string ns = field(1, field(1, "team-a")) + field(2, "");
  EXPECT_EQ(decode_protobuf_object(envelope("Namespace", ns)),
            json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"},
                "spec":{}})"));
}

TEST(SimProtobufBody, OtherKindsAnd415MalformedBodies400) {
  auto code_of = [](const std::string& body) {
    try {
      decode_protobuf_object(body);
    } catch (const ApiError& error) {
      return error.code;
    }
    return 0;
  };
  EXPECT_EQ(code_of(envelope("Pod", field(1, field(1, "p")))), 415);
  EXPECT_EQ(code_of("{\"kind\":\"ConfigMap\"}"), 400);
  EXPECT_EQ(code_of(std::string("k8s\0", 4) + "\x0a\x7f"), 400) << "length past the end";
  EXPECT_TRUE(is_protobuf_media_type("application/vnd.kubernetes.protobuf"));
  EXPECT_FALSE(is_protobuf_media_type("application/json"));
}

// Found by fuzzing: boost::json reads "1e400" as infinity and "0e717" as NaN, which kube-sim then
// wrote back as text no JSON reader accepts. The API server refuses the first and reads 0.
TEST(SimJsonBody, NumbersBeyondADoubleAreRefusedAndAZeroStaysZero) {
  const auto decoded =
      decode_request_body("application/json", R"({"data":{"n":0e717,"m":-0e717}})");
  EXPECT_EQ(json::serialize(decoded), R"({"data":{"n":0E0,"m":0E0}})");
  try {
    decode_request_body("application/json", R"({"data":{"n":[1e400]}})");
    ADD_FAILURE() << "1e400 accepted";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 400);
    EXPECT_NE(std::string(error.what()).find("could not be decoded"), std::string::npos)
        << error.what();
  }
}

TEST(SimEventVersions, RenamesTopLevelFieldsBothWays) {
  const json::value modern = json::parse(R"({"apiVersion":"events.k8s.io/v1","kind":"Event",
      "metadata":{"name":"e"},"note":"n","regarding":{"kind":"Pod","name":"p"},
      "reportingController":"c","reportingInstance":"i","deprecatedSource":{"component":"s"},
      "deprecatedCount":3,"deprecatedFirstTimestamp":"f","deprecatedLastTimestamp":"l",
      "reason":"r","eventTime":"t"})");
  const json::value core = convert_event(modern, EventForm::Core);
  EXPECT_EQ(core, json::parse(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},
      "message":"n","involvedObject":{"kind":"Pod","name":"p"},"reportingComponent":"c",
      "reportingInstance":"i","source":{"component":"s"},"count":3,"firstTimestamp":"f",
      "lastTimestamp":"l","reason":"r","eventTime":"t"})"));
  EXPECT_EQ(convert_event(core, EventForm::EventsV1), modern);
  const json::value other = json::parse(R"({"kind":"Status","message":"m"})");
  EXPECT_EQ(convert_event(other, EventForm::Core), other);
}

TEST(SimEventVersions, PatchesAndFieldSelectors) {
  EXPECT_EQ(convert_event(json::parse(R"({"note":"x"})"), EventForm::Core),
            json::parse(R"({"message":"x"})"));
  EXPECT_EQ(convert_event_json_patch(json::parse(R"([{"op":"replace","path":"/note","value":"x"},
                                {"op":"copy","from":"/regarding/name","path":"/reason"}])"),
                                     EventForm::EventsV1),
            json::parse(R"([{"op":"replace","path":"/message","value":"x"},
                            {"op":"copy","from":"/involvedObject/name","path":"/reason"}])"));
  EXPECT_EQ(events_v1_field_selector_to_core("regarding.name=x,note!=y,type==Normal"),
            "involvedObject.name=x,message!=y,type==Normal");
  EXPECT_EQ(events_v1_field_selector_to_core(""), "");
}

TEST(SimTable, HumanDurationsAsKubectlShowsThem) {
  EXPECT_EQ(human_duration(seconds(-5)), "<invalid>");
  EXPECT_EQ(human_duration(seconds(-1)), "0s");
  EXPECT_EQ(human_duration(seconds(45)), "45s");
  EXPECT_EQ(human_duration(seconds(119)), "119s");
  EXPECT_EQ(human_duration(seconds(200)), "3m20s");
  EXPECT_EQ(human_duration(seconds(300)), "5m");
  EXPECT_EQ(human_duration(seconds(3600)), "60m");
  EXPECT_EQ(human_duration(seconds(5 * 3600 + 600)), "5h10m");
  EXPECT_EQ(human_duration(seconds(20 * 3600)), "20h");
  EXPECT_EQ(human_duration(seconds(3 * 86400 + 7200)), "3d2h");
  EXPECT_EQ(human_duration(seconds(30 * 86400)), "30d");
  EXPECT_EQ(human_duration(seconds(3 * 365 * 86400 + 10 * 86400)), "3y10d");
}

TEST(SimTable, SimpleJsonPaths) {
  const json::value object = json::parse(R"({"status":{"conditions":[
      {"type":"Running","status":"False"},{"type":"Ready","status":"True"},
      {"type":"Done","status":"True"}],"n":[1,2,3]},"metadata":{"labels":{"a.b/c":"x"}}})");
  auto first = [&](std::string_view path) {
    auto values = json_path_values(object, path);
    return values.empty() ? std::string("<none>") : json::serialize(*values.front());
  };
  EXPECT_EQ(first(R"(.status.conditions[?(@.status=="True")].type)"), R"("Ready")");
  EXPECT_EQ(json_path_values(object, R"(.status.conditions[?(@.status=="True")].type)").size(), 2u);
  EXPECT_EQ(first(R"(.status.conditions[?(@.status!="True")].type)"), R"("Running")");
  EXPECT_EQ(first(".status.n[1]"), "2");
  EXPECT_EQ(first(".status.n[-1]"), "3");
  EXPECT_EQ(json_path_values(object, ".status.n[*]").size(), 3u);
  EXPECT_EQ(first(".metadata.labels['a.b/c']"), R"("x")");
  EXPECT_EQ(first("{.status.n[0]}"), "1");
  EXPECT_EQ(first(".status.missing"), "<none>");
}

TEST(SimTable, CrdPrinterColumnsTypedAsTheApiServerTypesThem) {
  ResourceInfo info;
  info.type = {"example.com", "v1", "widgets", "Widget", true, true, false};
  info.crd_name = "widgets.example.com";
  info.printer_columns = json::parse(R"([
      {"name":"Phase","type":"string","jsonPath":".status.phase"},
      {"name":"Count","type":"integer","jsonPath":".status.count"},
      {"name":"Nodes","type":"string","jsonPath":".spec.nodes"},
      {"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"},
      {"name":"Wide","type":"boolean","jsonPath":".spec.wide","priority":1}])")
                             .as_array();
  const auto now = *k8s::parse_rfc3339("2026-12-03T12:05:00Z");
  const json::value widget = json::parse(R"({"metadata":{"name":"w","creationTimestamp":
      "2026-12-03T12:00:00Z","resourceVersion":"7"},"spec":{"nodes":["a","b"],"wide":true},
      "status":{"count":4.0}})");
  const json::value table = make_table(info, {widget}, json::object{{"resourceVersion", "9"}},
                                       TableRowObject::Metadata, now);
  EXPECT_EQ(table.at("kind"), "Table");
  EXPECT_EQ(table.at("apiVersion"), "meta.k8s.io/v1");
  EXPECT_EQ(table.at("metadata").at("resourceVersion"), "9");
  const auto& columns = table.at("columnDefinitions").as_array();
  ASSERT_EQ(columns.size(), 6u);
  EXPECT_EQ(columns[0].at("format"), "name");
  EXPECT_EQ(columns[5].at("priority"), 1);
  EXPECT_EQ(table.at("rows").at(0).at("cells"),
            json::parse(R"(["w",null,4,"[\"a\",\"b\"]","5m",true])"));
  EXPECT_EQ(table.at("rows").at(0).at("object").at("kind"), "PartialObjectMetadata");
  EXPECT_EQ(table.at("rows").at(0).at("object").at("metadata").at("resourceVersion"), "7");

  info.printer_columns.clear();  // the API server's default: Name and Age
  const json::value plain = make_table(info, {widget}, {}, TableRowObject::None, now);
  EXPECT_EQ(plain.at("columnDefinitions").as_array().size(), 2u);
  EXPECT_EQ(plain.at("rows").at(0), json::parse(R"({"cells":["w","5m"]})"));
}

TEST(SimTable, AcceptAndIncludeObject) {
  EXPECT_TRUE(accepts_table(
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
      "g=meta.k8s.io,application/json"));
  EXPECT_FALSE(accepts_table("application/json"));
  EXPECT_FALSE(accepts_table("application/vnd.kubernetes.protobuf,application/json"));
  EXPECT_EQ(parse_include_object(""), TableRowObject::Metadata);
  EXPECT_EQ(parse_include_object("Object"), TableRowObject::Object);
  EXPECT_THROW(parse_include_object("All"), ApiError);
}

}  // namespace
}  // namespace nvcre::sim
