// Golden suites for platform/gang_scheduling.hpp:
//   apply-gang-scheduler-deps        input.yaml {gangScheduler?, dependencies: [...]} -> per
//       dependency {index, kind, rawUnchanged, replicatedJobs[{name, schedulerName,
//       templateLabels, podTemplateLabels}], resource}; a non-object job projects as
//       "(not an object)". Also records the resolved intent that would be persisted.
//   gang-preserve-scheduling-fields  input.yaml {gangScheduler?, original, renamed} ->
//       {changed, result}.
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "platform/gang_scheduling.hpp"
#include "jsonkit/paths.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
namespace api = nvcre::api;
using nvcre::testing::GoldenCase;
namespace platform = nvcre::platform;
using namespace nvcre::jsonkit;

std::optional<api::GangSchedulerSpec> gang_of(const json::object& input) {
  const json::value* spec = input.if_contains("gangScheduler");
  if (spec == nullptr || spec->is_null()) return std::nullopt;
  return api::decode<api::GangSchedulerSpec>(*spec, "gangScheduler");
}

json::value value_at(const json::object* object, std::string_view key) {
  const json::value* value = object != nullptr ? object->if_contains(key) : nullptr;
  return value != nullptr ? *value : json::value(nullptr);
}

json::array project_jobs(const json::object& resource) {
  json::array jobs;
  const json::array* list = find_array(resource, {"spec", "template", "spec", "replicatedJobs"});
  if (list == nullptr) return jobs;
  for (const auto& job : *list) {
    const json::object* object = job.if_object();
    if (object == nullptr) {
      jobs.push_back(json::object{{"name", "(not an object)"}});
      continue;
    }
    jobs.push_back(json::object{
        {"name", value_at(object, "name")},
        {"schedulerName",
         value_at(find_object(*object, {"template", "spec", "template", "spec"}), "schedulerName")},
        {"templateLabels", value_at(find_object(*object, {"template", "metadata"}), "labels")},
        {"podTemplateLabels",
         value_at(find_object(*object, {"template", "spec", "template", "metadata"}), "labels")},
    });
  }
  return jobs;
}

class ApplyGangSchedulerDeps : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ApplyGangSchedulerDeps, Rewrites) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::object input =
        nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
    const auto gang = gang_of(input);
    const auto original =
        api::decode<std::vector<api::DependencySpec>>(input.at("dependencies"), "dependencies");
    auto rewritten = original;
    platform::apply_gang_scheduler_to_dependencies(rewritten, gang);

    // Applying twice must change nothing more: controller and render may both run it.
    auto again = rewritten;
    platform::apply_gang_scheduler_to_dependencies(again, gang);
    EXPECT_TRUE(again == rewritten) << "the rewrite is not idempotent";

    json::array out;
    for (std::size_t i = 0; i < rewritten.size(); ++i) {
      const json::object& resource = rewritten[i].resource;
      out.push_back(json::object{{"index", i},
                                 {"kind", value_at(&resource, "kind")},
                                 {"rawUnchanged", resource == original[i].resource},
                                 {"replicatedJobs", project_jobs(resource)},
                                 {"resource", api::encode(rewritten[i])}});
    }
    const auto resolved = platform::resolve_gang_scheduler(gang);
    json::object result{
        {"resolvedGangScheduler", resolved ? api::encode(*resolved) : json::value(nullptr)},
        {"dependencies", out}};
    return nvcre::jsonkit::to_pretty_json(result);
  });
}

NVCRE_GOLDEN_SUITE(ApplyGangSchedulerDeps, "apply-gang-scheduler-deps");

class GangPreserveSchedulingFields : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GangPreserveSchedulingFields, Restores) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::object input =
        nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
    const json::object& original = input.at("original").as_object();
    const json::object& renamed = input.at("renamed").as_object();
    json::object result = platform::preserve_scheduling_fields(original, renamed, gang_of(input));
    const bool changed = result != renamed;
    return nvcre::jsonkit::to_pretty_json(
        json::object{{"changed", changed}, {"result", std::move(result)}});
  });
}

NVCRE_GOLDEN_SUITE(GangPreserveSchedulingFields, "gang-preserve-scheduling-fields");

}  // namespace
