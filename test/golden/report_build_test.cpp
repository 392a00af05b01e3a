// Golden suite `report-build` for nvcre::report: recorded objects -> the report model, rendered
// as text, JSON (--results-file) and JUnit (--junit-file).
//   objects.yaml       the Certification and what it left in its namespace (Workflows, Jobs,
//                      BandwidthMeasurements, GoodputMeasurements), several YAML documents
//   failed-nodes.yaml  (optional) failed-nodes ConfigMap name -> its decoded entries
//   now.txt            (optional) the RFC 3339 time of the report (default 2026-10-01T12:00:00Z)
// Output (expected.txt): the text report, then "--- results.json ---" and the JSON, then
// "--- junit.xml ---" and the JUnit XML.
#include "report/build.hpp"
#include "report/junit.hpp"
#include "report/text.hpp"
#include "test/support/golden.hpp"
#include "test/support/report_objects.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace {

using nvcre::testing::GoldenCase;
using nvcre::testing::now_of;
using nvcre::testing::objects_of;

class ReportBuild : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ReportBuild, RendersTextJsonAndJUnit) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const std::vector<nvcre::report::CertificationReport> reports{
        nvcre::report::build_certification_report(objects_of(golden_case), now_of(golden_case))};
    return nvcre::report::render_text(reports) + "--- results.json ---\n" +
           nvcre::report::results_json(reports) + "--- junit.xml ---\n" +
           nvcre::report::render_junit(reports);
  });
}

NVCRE_GOLDEN_SUITE(ReportBuild, "report-build");

}  // namespace
