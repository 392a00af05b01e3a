// The report room's rules that the golden cases do not pin one by one: when a group is LOW, sizes
// and durations, terminal sanitising, the box width with several reports and wide characters,
// JUnit escaping; and the CLI's verdict and failed-nodes ConfigMap decoding.
#include "cli/report_command.hpp"
#include "report/build.hpp"
#include "report/build_parts.hpp"
#include "report/junit.hpp"
#include "report/text.hpp"
#include "workflow/node_results.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <sstream>

namespace nvcre::report {
namespace {

TEST(ReportLow, OnlyAMissedMinimumIsLow) {
  EXPECT_TRUE(detail::misses_minimum("value >= 300", 150));
  EXPECT_FALSE(detail::misses_minimum("value >= 300", 300));
  EXPECT_FALSE(detail::misses_minimum("value >= 300", 412.5));
  EXPECT_TRUE(detail::misses_minimum("value > 300", 300));    // strict bound, at the bound
  EXPECT_FALSE(detail::misses_minimum("value <= 200", 300));  // an upper bound is no minimum
  EXPECT_FALSE(detail::misses_minimum("300", 100));           // a bare number is no expression
  EXPECT_FALSE(detail::misses_minimum("value >=", 100));      // does not compile
  EXPECT_FALSE(detail::misses_minimum("", 100));              // no threshold
  EXPECT_TRUE(detail::misses_minimum("value >= 300.0 && value < 5000.0", 120));
}

TEST(ReportFormat, SizesAndDurations) {
  EXPECT_EQ(human_size(512), "512 B");
  EXPECT_EQ(human_size(4096), "4 KB");
  EXPECT_EQ(human_size(1048576), "1 MB");
  EXPECT_EQ(human_size(17179869184), "16 GB");
  EXPECT_EQ(format_seconds(0), "");
  EXPECT_EQ(format_seconds(45), "45s");
  EXPECT_EQ(format_seconds(600), "10m 0s");
  EXPECT_EQ(format_seconds(7530), "2h 5m");
  EXPECT_EQ(runtime_seconds("2h 5m"), 7500);
  EXPECT_EQ(runtime_seconds("5m 30s"), 330);
  EXPECT_EQ(runtime_seconds(""), std::nullopt);
  EXPECT_EQ(runtime_seconds("5 minutes"), std::nullopt);
}

TEST(ReportText, SanitisesControlBidiAndBrokenUtf8) {
  EXPECT_EQ(sanitize_terminal_text("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(sanitize_terminal_text("a\tb"), "a    b");
  EXPECT_EQ(sanitize_terminal_text("x\u202Ey"), "x\\u202ey");
  EXPECT_EQ(sanitize_terminal_text("\xC2\x85"), "\\x85");  // C1 NEL
  EXPECT_EQ(sanitize_terminal_text("ok\xFF\xC3"), "ok\uFFFD\uFFFD");
  EXPECT_EQ(sanitize_terminal_text("✓ 完了"), "✓ 完了");
  EXPECT_EQ(display_width("✓ 完了"), 6);
  EXPECT_EQ(display_width("e\u0301"), 1);
}

// Every line between the first and last card border is exactly kBoxWidth columns.
void expect_box_width(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  int checked = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("│", 0) == 0 || line.rfind("┌", 0) == 0 || line.rfind("━━", 0) == 0 ||
        line.rfind("╔", 0) == 0 || line.rfind("║", 0) == 0) {
      EXPECT_EQ(display_width(line), kBoxWidth) << line;
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
}

TEST(ReportText, SeveralReportsShareOneBannerAndKeepTheWidth) {
  CertificationReport first;
  first.name = "cert-a";
  first.result = "PASSED";
  CategoryReport category;
  category.domain = "communication";
  category.variant = "nccl-all-reduce";
  category.status = "Failed";
  category.failure_reason = "群组 failed: 完了 " + std::string(80, 'x');
  FailedGroup group{"group-0",
                    1,
                    {"node-1"},
                    "reason",
                    FailureLogReport{"pod-" + std::string(70, 'p'), "node-1", 1, "Error",
                                     "日本語のログ行 " + std::string(120, 'y')}};
  category.failed_groups.push_back(group);
  first.categories.push_back(category);
  CertificationReport second = first;
  second.name = "cert-b";
  const std::string text = render_text({first, second});
  EXPECT_EQ(text.find("Name:"), std::string::npos);
  EXPECT_EQ(text.find("Certification Report"), text.rfind("Certification Report"));
  EXPECT_NE(text.find("━━ cert-a ━━"), std::string::npos);
  EXPECT_NE(text.find("━━ cert-b ━━"), std::string::npos);
  expect_box_width(text);
  // A wrapped pod name is labelled once per report, its continuation indented under it.
  std::size_t labels = 0;
  for (auto at = text.find("Pod: "); at != std::string::npos; at = text.find("Pod: ", at + 1))
    ++labels;
  EXPECT_EQ(labels, 2u) << text;
  EXPECT_NE(text.find("│                " + std::string(26, 'p') + " "), std::string::npos) << text;
}

TEST(ReportJUnit, EscapesMarkupAndDropsWhatXmlCannotCarry) {
  CertificationReport report;
  report.name = "a&b";
  report.result = "FAILED";
  CategoryReport category;
  category.domain = "d";
  category.variant = "v";
  category.status = "Failed";
  category.failure_reason = "<bad> \"quote\"\nline\x01";
  report.categories = {category, category};
  const std::string xml = render_junit({report});
  EXPECT_NE(xml.find("name=\"a&amp;b\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("message=\"&lt;bad&gt; &quot;quote&quot;&#10;line\uFFFD\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"v [2]\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
}

TEST(ReportVerdict, RunningAndFailedJoinedPassedAndIncompleteAreFine) {
  std::vector<CertificationReport> reports(4);
  reports[0].name = "ok";
  reports[0].result = "PASSED";
  reports[1].name = "busy";
  reports[1].result = "RUNNING";
  reports[2].name = "bad";
  reports[2].result = "FAILED";
  reports[3].name = "partial";
  reports[3].result = "INCOMPLETE";
  EXPECT_EQ(cli::report_verdict(reports),
            "certification \"busy\" is still running; certification \"bad\" failed");
  EXPECT_EQ(cli::report_verdict({reports[0], reports[3]}), "");
}

TEST(ReportFailedNodes, DecodesTheConfigMapPayload) {
  const std::string payload =
      R"([{"name":"n1","reason":"WorkloadFailed","message":"exit 1"},{"name":"n2","reason":"ThresholdViolation"}])";
  boost::json::value configmap = {{"binaryData",
                                   {{std::string(workflow::kFailedNodesKey),
                                     workflow::base64_encode(workflow::gzip(payload))}}}};
  const auto nodes = cli::failed_nodes_of_configmap(configmap);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "n1");
  EXPECT_EQ(nodes[0].message, "exit 1");
  EXPECT_EQ(nodes[1].reason, "ThresholdViolation");
  EXPECT_TRUE(cli::failed_nodes_of_configmap(boost::json::value{{"data", {{"x", "y"}}}}).empty());
  configmap.as_object()["binaryData"].as_object()[workflow::kFailedNodesKey] = "%%%";
  EXPECT_THROW(cli::failed_nodes_of_configmap(configmap), std::runtime_error);
}

TEST(ReportSucceededNodes, DecodesTheConfigMapPayload) {
  boost::json::value configmap = {
      {"binaryData",
       {{std::string(workflow::kSucceededNodesKey),
         workflow::base64_encode(workflow::gzip("gpu-node-01,gpu-node-02,gpu-node-10"))}}}};
  EXPECT_EQ(cli::succeeded_nodes_of_configmap(configmap),
            (std::vector<std::string>{"gpu-node-01", "gpu-node-02", "gpu-node-10"}));
  EXPECT_TRUE(
      cli::succeeded_nodes_of_configmap(boost::json::value{{"data", {{"x", "y"}}}}).empty());
  configmap.as_object()["binaryData"].as_object()[workflow::kSucceededNodesKey] = "%%%";
  EXPECT_THROW(cli::succeeded_nodes_of_configmap(configmap), std::runtime_error);
}

}  // namespace
}  // namespace nvcre::report
