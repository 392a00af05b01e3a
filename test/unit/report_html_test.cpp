// The HTML page's pieces the golden case does not pin one by one: where a threshold is drawn, the
// escaping of cluster text, and the verdict colours.
#include "report/build_parts.hpp"
#include "report/html.hpp"
#include "report/html_parts.hpp"

#include <gtest/gtest.h>

namespace nvcre::report {
namespace {

TEST(ReportHtmlThreshold, DrawsWhereTheJudgeFlips) {
  auto minimum = detail::threshold_of("value >= 850");
  ASSERT_TRUE(minimum.boundary_gbps);
  EXPECT_DOUBLE_EQ(*minimum.boundary_gbps, 850);
  EXPECT_TRUE(minimum.minimum);
  auto maximum = detail::threshold_of("value <= 200");
  ASSERT_TRUE(maximum.boundary_gbps);
  EXPECT_DOUBLE_EQ(*maximum.boundary_gbps, 200);
  EXPECT_FALSE(maximum.minimum);
  auto range = detail::threshold_of("value >= 300.0 && value < 5000.0");
  ASSERT_TRUE(range.boundary_gbps);
  EXPECT_DOUBLE_EQ(*range.boundary_gbps, 300);
  EXPECT_TRUE(range.minimum);
  EXPECT_FALSE(detail::threshold_of("").boundary_gbps);
  EXPECT_FALSE(detail::threshold_of("value >=").boundary_gbps);  // does not compile
  EXPECT_FALSE(detail::threshold_of("300").boundary_gbps);       // not an expression
  EXPECT_EQ(detail::threshold_of("value >= 850").expression, "value >= 850");
}

TEST(ReportHtmlEscape, ClusterTextCannotBecomeMarkup) {
  EXPECT_EQ(html::text("<script>a & b</script>"), "&lt;script&gt;a &amp; b&lt;/script&gt;");
  EXPECT_EQ(html::text("line 1\nline \"2\""), "line 1\nline \"2\"");
  EXPECT_EQ(html::attribute("a\"b\nc<d>"), "a&quot;b&#10;c&lt;d&gt;");
  EXPECT_EQ(html::text("x\u202ey"), "x\\u202ey");        // bidi override shown, not obeyed
  EXPECT_EQ(html::text("\x1b[31mred"), "\\x1b[31mred");  // terminal escapes shown as text
}

TEST(ReportHtmlVerdict, ColoursEveryVerdict) {
  EXPECT_EQ(html::verdict_class("Passed"), "passed");
  EXPECT_EQ(html::verdict_class("Failed"), "failed");
  EXPECT_EQ(html::verdict_class("ValidationFailed"), "failed");
  EXPECT_EQ(html::verdict_class("Excluded"), "excluded");
  EXPECT_EQ(html::verdict_class("Running"), "running");
  EXPECT_EQ(html::verdict_class("Untested"), "untested");
}

TEST(ReportHtmlPage, EmptyReportStillAPage) {
  CertificationReport report;
  report.name = "a<b";
  report.result = std::string(kResultRunning);
  const std::string page = render_html({report});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<title>Certification Report: a&lt;b</title>"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.find("<svg"), std::string::npos);  // no data, no chart
  EXPECT_NE(page.find("</html>"), std::string::npos);
}

}  // namespace
}  // namespace nvcre::report
