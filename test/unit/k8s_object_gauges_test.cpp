// Object gauges are exposed from the manager's own compact store: an object's series are replaced
// as a whole, counters only grow while their object lives, a series two objects project alike is
// exposed once, a family stays exposed after its last series goes, and an unknown family changes
// nothing.
#include "k8s/metrics.hpp"
#include "k8s/object_gauges.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using nvcre::k8s::GaugeSample;
using nvcre::k8s::Metrics;
using nvcre::k8s::ObjectGauges;

GaugeSample status(const std::string& job, const std::string& value_of_status, double value) {
  return {
      "nvcre_job_status", {{"namespace", "ns"}, {"job", job}, {"status", value_of_status}}, value};
}

TEST(ObjectGauges, AnObjectsSeriesAreReplacedAsAWhole) {
  Metrics metrics;
  metrics.replace_object_gauges("Job/ns/a", {status("a", "Running", 1), status("a", "Failed", 0)});
  std::string text = metrics.render();
  EXPECT_NE(text.find("nvcre_job_status{job=\"a\",namespace=\"ns\",status=\"Running\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("nvcre_job_status{job=\"a\",namespace=\"ns\",status=\"Failed\"} 0"),
            std::string::npos);
  metrics.replace_object_gauges("Job/ns/a", {status("a", "Succeeded", 1)});
  text = metrics.render();
  EXPECT_EQ(text.find("status=\"Running\""), std::string::npos) << text;
  EXPECT_EQ(text.find("status=\"Failed\""), std::string::npos);
  EXPECT_NE(text.find("nvcre_job_status{job=\"a\",namespace=\"ns\",status=\"Succeeded\"} 1"),
            std::string::npos);
  metrics.replace_object_gauges("Job/ns/a", {});
  text = metrics.render();
  EXPECT_EQ(text.find("job=\"a\""), std::string::npos);
  EXPECT_NE(text.find("# TYPE nvcre_job_status gauge"), std::string::npos)
      << "a family projected once stays exposed, as a registered family does";
}

TEST(ObjectGauges, ACounterOnlyGrowsWhileItsObjectLives) {
  ObjectGauges gauges;
  const std::map<std::string, std::string> labels{{"namespace", "ns"}, {"job", "j"}};
  gauges.replace("Job/ns/j", {{"nvcre_hardware_failed_jobs_total", labels, 2}});
  gauges.replace("Job/ns/j", {{"nvcre_hardware_failed_jobs_total", labels, 1}});
  auto families = gauges.collect();
  ASSERT_EQ(families.size(), 1u);
  ASSERT_EQ(families[0].metric.size(), 1u);
  EXPECT_EQ(families[0].type, prometheus::MetricType::Counter);
  EXPECT_EQ(families[0].metric[0].counter.value, 2);
  gauges.replace("Job/ns/j", {});
  gauges.replace("Job/ns/j", {{"nvcre_hardware_failed_jobs_total", labels, 1}});
  families = gauges.collect();
  ASSERT_EQ(families[0].metric.size(), 1u);
  EXPECT_EQ(families[0].metric[0].counter.value, 1) << "a new life of the object counts afresh";
}

TEST(ObjectGauges, ASeriesTwoObjectsProjectAlikeIsExposedOnce) {
  ObjectGauges gauges;
  gauges.replace("Job/ns/a", {status("shared", "Running", 1)});
  gauges.replace("Job/ns/b", {status("shared", "Running", 1), status("b", "Running", 1)});
  const auto families = gauges.collect();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].metric.size(), 2u);
  EXPECT_EQ(gauges.series(), 3u);
}

TEST(ObjectGauges, AnUnknownFamilyThrowsAndChangesNothing) {
  ObjectGauges gauges;
  gauges.replace("Job/ns/a", {status("a", "Running", 1)});
  EXPECT_THROW(gauges.replace("Job/ns/a", {status("a", "Failed", 1), {"nvcre_nope", {}, 1}}),
               std::invalid_argument);
  const auto families = gauges.collect();
  ASSERT_EQ(families.size(), 1u);
  ASSERT_EQ(families[0].metric.size(), 1u);
  EXPECT_EQ(families[0].metric[0].label.back().value, "Running");
}

}  // namespace
