// The lifecycle status series of the three tiers (reconcile/lifecycle_gauges.hpp): one series per
// status, exactly one of them 1; the verdict wins over InProgress on a leftover that carries both
// (a Job that timed out before the exclusive write); nothing while no phase condition is True; the
// parent names come from the labels the controller sets.
#include "job/job_gauges.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/metrics.hpp"
#include "reconcile/lifecycle_gauges.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

using nvcre::jsonkit::parse_yaml;

// status -> value of the family's samples; every sample must carry `labels`.
std::map<std::string, double> by_status(const std::vector<nvcre::k8s::GaugeSample>& samples,
                                        const std::string& family,
                                        const std::map<std::string, std::string>& labels) {
  std::map<std::string, double> out;
  for (const auto& sample : samples) {
    if (sample.name != family) continue;
    auto rest = sample.labels;
    const std::string status = rest.at("status");
    rest.erase("status");
    EXPECT_EQ(rest, labels);
    out[status] = sample.value;
  }
  return out;
}

TEST(LifecycleGauges, ADualTrueJobReportsItsVerdict) {
  const auto job = parse_yaml(R"(
kind: Job
metadata: {name: j, namespace: ns, labels: {nvcre.nvidia.com/workflow: wf}}
status:
  conditions:
  - {type: InProgress, status: "True", reason: WorkloadRunning}
  - {type: Succeeded, status: "False", reason: NotApplicable}
  - {type: Failed, status: "True", reason: JobTimedOut}
)");
  EXPECT_EQ(by_status(nvcre::job::job_gauges(job), "nvcre_job_status",
                      {{"namespace", "ns"}, {"job", "j"}, {"workflow", "wf"}}),
            (std::map<std::string, double>{{"failed", 1}, {"in_progress", 0}, {"succeeded", 0}}));
}

TEST(LifecycleGauges, AWorkflowReportsUnderItsCertification) {
  const auto workflow = parse_yaml(R"(
kind: Workflow
metadata: {name: c-comm-nccl, namespace: ns, labels: {nvcre.nvidia.com/certification: c}}
status:
  conditions:
  - {type: InProgress, status: "True", reason: JobRunning}
  - {type: Succeeded, status: "False", reason: NotApplicable}
  - {type: Failed, status: "False", reason: NotApplicable}
)");
  EXPECT_EQ(by_status(nvcre::reconcile::workflow_status_gauges(workflow), "nvcre_workflow_status",
                      {{"namespace", "ns"}, {"workflow", "c-comm-nccl"}, {"certification", "c"}}),
            (std::map<std::string, double>{{"failed", 0}, {"in_progress", 1}, {"succeeded", 0}}));
}

TEST(LifecycleGauges, ACertificationReportsItsVerdict) {
  const auto certification = parse_yaml(R"(
kind: Certification
metadata: {name: c, namespace: ns}
status:
  conditions:
  - {type: InProgress, status: "False", reason: NotApplicable}
  - {type: Succeeded, status: "True", reason: AllWorkflowsSucceeded}
)");
  EXPECT_EQ(by_status(nvcre::reconcile::certification_status_gauges(certification),
                      "nvcre_certification_status", {{"namespace", "ns"}, {"certification", "c"}}),
            (std::map<std::string, double>{{"failed", 0}, {"in_progress", 0}, {"succeeded", 1}}));
}

TEST(LifecycleGauges, NoPhaseConditionTrueReportsNothing) {
  EXPECT_TRUE(nvcre::reconcile::workflow_status_gauges(parse_yaml(R"(
kind: Workflow
metadata: {name: wf, namespace: ns}
status: {conditions: [{type: InProgress, status: "False", reason: NotApplicable}]}
)"))
                  .empty());
  EXPECT_TRUE(
      nvcre::reconcile::certification_status_gauges(parse_yaml("{kind: Certification}")).empty());
}

TEST(LifecycleGauges, TheFamiliesAreDeclared) {
  const auto& families = nvcre::k8s::object_gauge_families();
  for (const char* family :
       {"nvcre_job_status", "nvcre_workflow_status", "nvcre_certification_status"})
    EXPECT_TRUE(families.contains(family)) << family;
}

}  // namespace
