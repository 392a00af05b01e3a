// Golden suite `gang-validate` for platform/gang_validation.hpp. input.yaml:
//   gangScheduler?  the persisted (resolved) intent
//   jobTemplate     the resolved Workflow job template
//   dependencies    the resolved Workflow dependencies
// expected.json: {conflict: null | {reason, message}, queueLabelRestored, workloadLabels} where
// workloadLabels are the job template's workload labels after the check (null when absent).
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "platform/gang_validation.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
namespace api = nvcre::api;
using nvcre::testing::GoldenCase;
namespace platform = nvcre::platform;

class GangValidate : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GangValidate, Checks) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::object input =
        nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
    std::optional<api::GangSchedulerSpec> intent;
    if (const json::value* spec = input.if_contains("gangScheduler")) {
      intent = api::decode<api::GangSchedulerSpec>(*spec, "gangScheduler");
    }
    auto job_template = api::decode<api::JobTemplateSpec>(input.at("jobTemplate"), "jobTemplate");
    std::vector<api::DependencySpec> dependencies;
    if (const json::value* list = input.if_contains("dependencies")) {
      dependencies = api::decode<std::vector<api::DependencySpec>>(*list, "dependencies");
    }
    const auto check = platform::validate_resolved_job_template(job_template, dependencies, intent);

    // Never repairs the runtime side: the dependencies are taken by const reference, and the job
    // template may only have gained the workload queue label.
    auto without_restore = check.jobTemplate;
    if (check.queueLabelRestored) {
      without_restore.spec.workloadMetadata->labels.erase(
          intent->queueLabelKey.empty() ? std::string(api::kDefaultGangQueueLabelKey)
                                        : intent->queueLabelKey);
      if (without_restore.spec.workloadMetadata->labels.empty() &&
          !job_template.spec.workloadMetadata) {
        without_restore.spec.workloadMetadata.reset();
      }
    }
    EXPECT_TRUE(without_restore == job_template)
        << "the check changed more than the workload queue label";

    const auto& metadata = check.jobTemplate.spec.workloadMetadata;
    json::object out{
        {"conflict", check.conflict
                         ? json::value(json::object{{"reason", check.conflict->reason},
                                                    {"message", check.conflict->message}})
                         : json::value(nullptr)},
        {"queueLabelRestored", check.queueLabelRestored},
        {"workloadLabels", metadata ? api::encode(metadata->labels) : json::value(nullptr)},
    };
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(GangValidate, "gang-validate");

}  // namespace
