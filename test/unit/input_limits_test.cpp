// The input limits of every decoder that reads from the network or from users (the same decoders
// the fuzz/ targets exercise): deep nesting, huge numbers, invalid UTF-8, multi-MiB lines and
// truncated streams each give a clear error or a bounded result, never a crash or unbounded memory.
#include "cel/program.hpp"
#include "jsonkit/json_patch.hpp"
#include "jsonkit/utf8.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/api_error.hpp"
#include "k8s/kubeconfig.hpp"
#include "k8s/label_selector.hpp"
#include "k8s/quantity.hpp"
#include "k8s/rfc3339.hpp"
#include "k8s/watch_stream.hpp"
#include "measure/log_lines.hpp"
#include "sim/api_server.hpp"
#include "sim/http_request.hpp"
#include "test/support/thrown.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using nvcre::jsonkit::ParseError;
namespace jsonkit = nvcre::jsonkit;
namespace k8s = nvcre::k8s;
using nvcre::test::message_thrown;

std::string repeat(std::string_view part, std::size_t times) {
  std::string out;
  out.reserve(part.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += part;
  return out;
}

// ---- YAML / JSON documents (nvcrectl validate / apply, kubeconfig, kube-sim apply patches) ----

TEST(InputLimitsYaml, DeepNestingIsAnErrorNamingTheDepth) {
  const std::string deep = repeat("[", 100000) + repeat("]", 100000);
  const auto message = message_thrown<ParseError>([&] { jsonkit::parse_yaml_documents(deep); });
  EXPECT_NE(message.find("line 1"), std::string::npos) << message;
  const std::string nested = repeat("[", 300) + repeat("]", 300);
  EXPECT_NE(
      message_thrown<ParseError>([&] { jsonkit::parse_yaml(nested); }).find("deeper than 200"),
      std::string::npos);
}

TEST(InputLimitsYaml, HugeNumbersBecomeDoublesOrStayText) {
  const auto value =
      jsonkit::parse_yaml("big: 99999999999999999999999\nhuge: 1e400\nneg: -1e400\n");
  EXPECT_DOUBLE_EQ(value.at("big").as_double(), 1e23);
  EXPECT_EQ(value.at("huge").as_string(), "1e400");  // not a representable number: text
  EXPECT_EQ(value.at("neg").as_string(), "-1e400");
  EXPECT_EQ(jsonkit::parse_yaml("n: 18446744073709551615").at("n").as_uint64(),
            18446744073709551615ull);
}

TEST(InputLimitsYaml, InvalidUtf8IsAnErrorNamingLineAndColumn) {
  const auto message = message_thrown<ParseError>(
      [] { jsonkit::parse_yaml_documents("kind: Job\nmetadata:\n  name: a\xC3\x28\n"); });
  EXPECT_NE(message.find("invalid UTF-8 at line 3, column 10 (byte 0xC3)"), std::string::npos)
      << message;
  EXPECT_THROW(jsonkit::parse_yaml("a: \"\xED\xA0\x80\""), ParseError);  // a UTF-16 surrogate
  EXPECT_THROW(jsonkit::parse_yaml("a: \xC0\xAF"), ParseError);          // overlong
  EXPECT_EQ(jsonkit::parse_yaml("a: \"h\xC3\xA9 \xF0\x9F\x9A\x80\"").at("a").as_string(),
            "h\xC3\xA9 \xF0\x9F\x9A\x80");
}

TEST(InputLimitsYaml, MultiMebibyteLinesAreReadWhole) {
  const std::string long_value(4u << 20, 'x');
  EXPECT_EQ(jsonkit::parse_yaml("a: " + long_value).at("a").as_string().size(), long_value.size());
}

TEST(InputLimitsYaml, TruncatedDocumentsAreErrors) {
  EXPECT_THROW(jsonkit::parse_yaml("a: [1, 2"), ParseError);
  EXPECT_THROW(jsonkit::parse_yaml("a: \"abc"), ParseError);
  EXPECT_THROW(jsonkit::parse_yaml("{\"a\": {\"b\": 1"), ParseError);
}

TEST(InputLimitsYaml, AliasExpansionIsBounded) {
  // Nine levels of ten aliases each: 10^9 values from a few hundred bytes.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) bomb += ", " + prev;
    bomb += "]\n";
  }
  const auto message = message_thrown<ParseError>([&] { jsonkit::parse_yaml_documents(bomb); });
  EXPECT_NE(message.find("aliases"), std::string::npos) << message;
  // One big string aliased many times costs its size each time.
  std::string copies =
      "s: &s " + std::string(1u << 16, 'y') + "\nl: [" + repeat("*s, ", 1000) + "*s]\n";
  EXPECT_THROW(jsonkit::parse_yaml(copies), ParseError);
  // Ordinary aliasing stays well inside the budget.
  const auto value = jsonkit::parse_yaml("base: &b {cpu: 1}\nx: *b\ny: *b\n");
  EXPECT_EQ(value.at("y").at("cpu").as_int64(), 1);
}

TEST(InputLimitsYaml, AStrayIndicatorWhereAValueStartsIsAnErrorNotAnEndlessLoop) {
  // yaml-cpp's LoadAll alone never returns on these (a fuzzer found them).
  auto message = message_thrown<ParseError>(
      [] { jsonkit::parse_yaml_documents(",egpsyuArg:wNV}DIA GB300\n"); });
  EXPECT_NE(message.find("line 1, column 1: unexpected ','"), std::string::npos) << message;
  EXPECT_THROW(jsonkit::parse_yaml_documents(",\n"), ParseError);
  EXPECT_THROW(jsonkit::parse_yaml_documents("a: 1\n---\n}\n"), ParseError);
  message = message_thrown<k8s::ConfigError>([] {
    k8s::parse_kubeconfig("!foon: 0vr tma,a:rs~\nk\n? ", "fuzz-kubeconfig", {}, "/nonexistent");
  });
  EXPECT_NE(message.find("fuzz-kubeconfig"), std::string::npos) << message;
  // Empty documents that do consume their markers are still skipped, not mistaken for a loop.
  EXPECT_EQ(jsonkit::parse_yaml_documents("---\n---\n...\n---\na: 1\n---\n").size(), 1u);
}

TEST(InputLimitsYaml, MultiLineStringsReadBackAsWritten) {
  // A script without a final line break (a fuzzer found it in a catalog entry's args) and the
  // other texts a clipped literal block would change.
  const boost::json::value original{
      {"script", "nv-hostengine\ndcgmi diag -r 4\nexit \"$rc\""},
      {"lines", boost::json::array{"a\n", "a\n\n", "  indented\nb\n", "\n\nlate\n", "\t\ttab\n",
                                   "cr\r\nlf\n", "\n", "x\n \n  y\n", "\x7f\n"}},
      {"key\nwith a break\n", "v"}};
  const std::string yaml = jsonkit::to_yaml(original);
  EXPECT_EQ(jsonkit::parse_yaml(yaml), original) << yaml;
  // A string a literal block does keep is still written as one, readable.
  EXPECT_NE(jsonkit::to_yaml(boost::json::value{{"s", "a\nb\n"}}).find("s: |"), std::string::npos);
}

// ---- JSON patch (kube-sim's PATCH, a Certification's jobTemplatePatch) ----

TEST(InputLimitsJsonPatch, CopiesThatDoubleTheDocumentAreBounded) {
  // Each copy appends the array to itself, doubling its size: 40 operations would ask for 2^40
  // times the first array's bytes.
  boost::json::array ops;
  for (int i = 0; i < 40; ++i) {
    ops.push_back(boost::json::object{{"op", "copy"}, {"from", "/a"}, {"path", "/a/-"}});
  }
  const boost::json::value document{{"a", boost::json::array{std::string(100, 'x')}}};
  const auto message = message_thrown<jsonkit::JsonPatchTooLarge>(
      [&] { jsonkit::apply_json_patch(document, boost::json::value(ops)); });
  EXPECT_NE(message.find("(copy \"/a/-\"): the copies of this patch add more than 3145728 bytes"),
            std::string::npos)
      << message;
  // A few copies are fine: three more elements, the last one holding the three before it.
  ops.resize(3);
  EXPECT_EQ(jsonkit::apply_json_patch(document, boost::json::value(ops)).at("a").as_array().size(),
            4u);
  // So is a patch of 10000 operations, not one more.
  boost::json::array tests(
      10000,
      boost::json::object{{"op", "test"}, {"path", "/a/0"}, {"value", std::string(100, 'x')}});
  EXPECT_NO_THROW(jsonkit::apply_json_patch(document, boost::json::value(tests)));
  tests.push_back(tests.front());
  EXPECT_NE(message_thrown<jsonkit::JsonPatchTooLarge>([&] {
              jsonkit::apply_json_patch(document, boost::json::value(tests));
            }).find("at most 10000 operations, this one has 10001"),
            std::string::npos);
}

TEST(InputLimitsJsonPatch, KubeSimRefusesAnOversizedPatchWith413) {
  nvcre::sim::ApiServer server;
  server.create("v1", "configmaps", "default", boost::json::parse(R"({"apiVersion": "v1",
      "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
      "data": {"a": "1"}})"));
  // Copies of a growing array: bounded long before the server's memory is.
  std::string growing =
      R"([{"op":"add","path":"/spec","value":{"a":[")" + std::string(1000, 'x') + R"("]}})";
  for (int i = 0; i < 40; ++i) growing += R"(,{"op":"copy","from":"/spec/a","path":"/spec/a/-"})";
  growing += "]";
  nvcre::sim::HttpRequest request{"PATCH",
                                  "/api/v1/namespaces/default/configmaps/c",
                                  {},
                                  "application/json-patch+json",
                                  "application/json",
                                  growing};
  const auto response = std::get<nvcre::sim::HttpResponse>(server.handle(request));
  EXPECT_EQ(response.status, 413) << response.body;
  EXPECT_NE(response.body.find("RequestEntityTooLarge"), std::string::npos) << response.body;
  request.body = R"([{"op":"copy","from":"/data/a","path":"/data/b"}])";
  const auto applied = std::get<nvcre::sim::HttpResponse>(server.handle(request));
  EXPECT_EQ(applied.status, 200) << applied.body;
}

TEST(InputLimitsUtf8, SequencesAreCheckedAsRfc3629Says) {
  EXPECT_EQ(jsonkit::first_invalid_utf8("plain \xE2\x82\xAC"), std::nullopt);
  EXPECT_EQ(jsonkit::first_invalid_utf8("ab\xF4\x90\x80\x80"), 2u);  // past U+10FFFF
  EXPECT_EQ(jsonkit::first_invalid_utf8("abc\xE2\x82"), 3u);         // cut short
  EXPECT_EQ(jsonkit::first_invalid_utf8("\x80"), 0u);                // a lone continuation byte
}

TEST(InputLimitsKubeconfig, BadTextIsAConfigErrorWithoutTheContent) {
  const auto message = message_thrown<k8s::ConfigError>(
      [] { k8s::parse_kubeconfig("users:\n- name: u\n  user: {token: s3cr\xFF}\n", "kc"); });
  EXPECT_NE(message.find("invalid UTF-8"), std::string::npos) << message;
  EXPECT_EQ(message.find("s3cr"), std::string::npos) << message;
  EXPECT_THROW(k8s::parse_kubeconfig("clusters: [{name: c, cluster: {server: ", "kc"),
               k8s::ConfigError);
  EXPECT_THROW(k8s::parse_kubeconfig(repeat("[", 5000), "kc"), k8s::ConfigError);
}

// ---- watch streams and API error bodies (from the API server) ----

TEST(InputLimitsWatch, OverlongLinesAreRejectedBeforeTheyAreBuffered) {
  k8s::WatchDecoder decoder(1u << 20);
  const std::string chunk(256u << 10, 'x');
  const auto message = message_thrown<k8s::WatchDecodeError>([&] {
    for (int i = 0; i < 8; ++i) decoder.feed(chunk);
  });
  EXPECT_NE(message.find("1048576 bytes"), std::string::npos) << message;
  EXPECT_LE(decoder.buffered(), 1u << 20);
}

TEST(InputLimitsWatch, DeepNestingHugeNumbersAndInvalidUtf8AreDecodeErrors) {
  const std::string deep =
      R"({"type":"ADDED","object":{"a":)" + repeat("[", 5000) + repeat("]", 5000) + "}}";
  EXPECT_THROW(k8s::decode_watch_event(deep), k8s::WatchDecodeError);
  // Boost.JSON reads an out-of-range exponent as a double (infinity), not as an error.
  EXPECT_TRUE(k8s::decode_watch_event(R"({"type":"ADDED","object":{"n":1e999}})")
                  .object.at("n")
                  .is_double());
  EXPECT_THROW(k8s::decode_watch_event("{\"type\":\"ADDED\",\"object\":{\"n\":\"\xFF\"}}"),
               k8s::WatchDecodeError);
  const auto big =
      k8s::decode_watch_event(R"({"type":"ADDED","object":{"n":123456789012345678901234567890}})");
  EXPECT_TRUE(big.object.at("n").is_double());
}

TEST(InputLimitsWatch, ATruncatedStreamEndsWithADecodeError) {
  k8s::WatchDecoder decoder;
  const auto events = decoder.feed(
      "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\"}}}\n{\"type\":"
      "\"MOD");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_THROW(decoder.finish(), k8s::WatchDecodeError);
}

TEST(InputLimitsApiStatus, AnyBodyGivesAnErrorWithAShortMessage) {
  const std::string deep = repeat("[", 100000);
  const auto nested = k8s::decode_api_error(500, deep);
  EXPECT_EQ(nested.reason, "InternalError");
  EXPECT_LE(nested.message.size(), 1024u);
  const auto huge = k8s::decode_api_error(502, std::string(8u << 20, '<'));
  EXPECT_LE(huge.message.size(), 1024u);
  const auto cut = k8s::decode_api_error(409, R"({"kind":"Status","reason":"Conflict","mess)");
  EXPECT_EQ(cut.code, 409);
  EXPECT_EQ(cut.reason, "Conflict");
  const auto odd = k8s::decode_api_error(
      422,
      R"({"kind":"Status","code":1e300,"reason":"Invalid","details":{"retryAfterSeconds":-99999999999}})");
  EXPECT_EQ(odd.code, 422);
  EXPECT_EQ(odd.retry_after_seconds, 0);  // negative: no hint (a plain cast made it negative)
}

// ---- selectors, quantities and CEL (users' text) ----

TEST(InputLimitsSelectors, HugeNumbersInvalidUtf8AndLongTextAreInvalidArguments) {
  EXPECT_THROW(k8s::LabelSelector::parse("gpus>99999999999999999999"), std::invalid_argument);
  EXPECT_THROW(k8s::LabelSelector::parse("app=\xC3\x28"), std::invalid_argument);
  EXPECT_THROW(k8s::LabelSelector::parse("app in (" + repeat("a,", 100) + "b"),
               std::invalid_argument);  // truncated
  EXPECT_THROW(k8s::LabelSelector::parse("app=" + std::string(4u << 20, 'v')),
               std::invalid_argument);  // a label value is at most 63 characters
}

TEST(InputLimitsQuantity, HugeExponentsAndDigitsSaturateOrFail) {
  const auto big = k8s::Quantity::parse("9e9999999999");
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->value(), std::numeric_limits<std::int64_t>::max());
  const auto digits = k8s::Quantity::parse(std::string(100000, '9'));
  ASSERT_TRUE(digits.has_value());
  EXPECT_EQ(digits->milli_value(), std::numeric_limits<std::int64_t>::max());
  EXPECT_FALSE(k8s::Quantity::parse("1\xC3\xA9"));
  EXPECT_FALSE(k8s::Quantity::parse("1.5Gi extra"));
}

TEST(InputLimitsCel, DeepNestingHugeLiteralsAndTruncationAreErrors) {
  const nvcre::cel::Environment environment{{{"value", nvcre::cel::Type::floating()}}, {}, "x"};
  const auto compile = [&](const std::string& text) {
    return nvcre::cel::Program::compile(text, environment);
  };
  EXPECT_NE(message_thrown<nvcre::cel::Error>([&] {
              compile(repeat("(", 100000) + "1");
            }).find("nested too deeply"),
            std::string::npos);
  EXPECT_NE(message_thrown<nvcre::cel::Error>([&] {
              compile(repeat("-", 100000) + "1");
            }).find("nested too deeply"),
            std::string::npos);
  EXPECT_THROW(compile("value > 99999999999999999999"), nvcre::cel::Error);
  EXPECT_THROW(compile("value > (1 + "), nvcre::cel::Error);
}

// ---- pod logs (measurements) ----

// Found by fuzz_measure_logs: a kubelet timestamp in year 4052 overflowed the nanosecond clock
// (undefined behaviour); a year the clock cannot hold is no timestamp.
TEST(InputLimitsLogs, TimestampsPastTheClockRangeAreNotTimestamps) {
  EXPECT_FALSE(k8s::parse_rfc3339("4052-03-07T09:15:00.251Z").has_value());
  EXPECT_FALSE(k8s::parse_rfc3339("1000-01-01T00:00:00Z").has_value());
  EXPECT_TRUE(k8s::parse_rfc3339("2261-12-31T23:59:59Z").has_value());
  const auto line = nvcre::measure::parse_log_line("4052-03-07T09:15:00.25Z step 1 loss=9.8");
  EXPECT_FALSE(line.timestamp.has_value());
}

TEST(InputLimitsLogs, MultiMebibyteLinesAreDroppedAndTruncatedLogsKeepTheirLastLine) {
  const std::string log = "2024-05-01T10:00:00Z a\n2024-05-01T10:00:01Z " +
                          std::string(3u << 20, 'x') + "\n2024-05-01T10:00:02Z \xFF\xFE cut";
  const auto split = nvcre::measure::split_log_lines(log);
  ASSERT_EQ(split.lines.size(), 2u);
  EXPECT_TRUE(split.lines[1].overlong);
  EXPECT_TRUE(split.lines[1].text.empty());
  EXPECT_EQ(split.overlong_lines, 1u);
  ASSERT_TRUE(split.final_line.has_value());
  EXPECT_EQ(split.final_line->text, "\xFF\xFE cut");
}

// ---- kube-sim's HTTP requests ----

TEST(InputLimitsHttp, OversizedRequestsAre413Or431AndTruncatedOrMalformedOnes400) {
  auto status_of = [](std::string_view bytes) {
    auto parsed = nvcre::sim::parse_http_request(bytes);
    auto* refusal = std::get_if<nvcre::sim::HttpResponse>(&parsed);
    return refusal ? refusal->status : 0;
  };
  EXPECT_EQ(status_of("POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 300000000"
                      "\r\n\r\n{}"),
            413);  // over the body limit: refused before it is read
  EXPECT_EQ(status_of("GET /api HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64u << 10, 'h') +
                      "\r\n\r\n"),
            431);  // headers past 8 KiB
  EXPECT_EQ(
      status_of("POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}"),
      400);                                                       // body cut short
  EXPECT_EQ(status_of("GET /api HTTP/1.1\r\nHost: x\r\n"), 400);  // header cut short
  EXPECT_EQ(status_of("GET \xFF\xFE HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /api/v1/pods?labelSelector=a%3Db HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
  const auto parsed = nvcre::sim::parse_http_request(
      "PATCH /api/v1/namespaces/default/configmaps/a?dryRun=All HTTP/1.1\r\nHost: x\r\n"
      "Content-Type: application/merge-patch+json\r\nTransfer-Encoding: chunked\r\n"
      "Impersonate-Group: a\r\nImpersonate-Group: b\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  const auto& request = std::get<nvcre::sim::HttpRequest>(parsed);
  EXPECT_EQ(request.method, "PATCH");
  EXPECT_EQ(request.path, "/api/v1/namespaces/default/configmaps/a");
  EXPECT_EQ(request.query.at("dryRun"), "All");
  EXPECT_EQ(request.body, "{}");
  EXPECT_EQ(request.impersonate_groups, (std::vector<std::string>{"a", "b"}));
}

}  // namespace
