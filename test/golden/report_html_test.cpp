// Golden suite `report-html` for nvcre::report::render_html: recorded objects (the inputs of
// test/support/report_objects.hpp) -> the self-contained HTML page (expected.txt). Besides the
// comparison, every case checks what must hold whatever the layout: no script, nothing fetched,
// and no markup from the cluster's strings survives unescaped.
#include "report/build.hpp"
#include "report/html.hpp"
#include "test/support/golden.hpp"
#include "test/support/report_objects.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::testing::GoldenCase;

class ReportHtml : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ReportHtml, RendersTheSelfContainedPage) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const std::vector<nvcre::report::CertificationReport> reports{
        nvcre::report::build_certification_report(nvcre::testing::objects_of(golden_case),
                                                  nvcre::testing::now_of(golden_case))};
    const std::string page = nvcre::report::render_html(reports);
    EXPECT_EQ(page.find("<script"), std::string::npos);
    EXPECT_EQ(page.find("<i>"), std::string::npos);
    EXPECT_EQ(page.find("<b>"), std::string::npos);
    EXPECT_EQ(page.find("src="), std::string::npos);
    EXPECT_EQ(page.find("href="), std::string::npos);
    EXPECT_EQ(page.find("\u202e"), std::string::npos) << "a bidi override reached the page";
    return page;
  });
}

NVCRE_GOLDEN_SUITE(ReportHtml, "report-html");

}  // namespace
