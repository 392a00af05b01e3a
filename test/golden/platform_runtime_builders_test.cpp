// Golden suite `runtime-builders` for platform/runtime_builders.hpp. input.yaml:
//   framework: torch | mpi | exec
//   config: RuntimeConfig (YAML, field names as in the struct)
//   enableMNNVL / userEnv (optional): config.env = merge_env_vars(base_nccl_env_vars(enableMNNVL),
//   userEnv)
// expected.json is the dependency the builder returns. Every case also checks that the
// post-resolve gang rewrite, applied with the same intent, finds nothing left to change: the
// builders and the rewrite must write the same fields.
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "platform/gang_scheduling.hpp"
#include "platform/nccl_env.hpp"
#include "platform/runtime_builders.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

namespace json = boost::json;
namespace api = nvcre::api;
using nvcre::testing::GoldenCase;
namespace platform = nvcre::platform;

class RuntimeBuilders : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(RuntimeBuilders, Builds) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::object input =
        nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
    auto config = api::decode<platform::RuntimeConfig>(input.at("config"), "config");
    if (const json::value* mnnvl = input.if_contains("enableMNNVL")) {
      std::vector<api::EnvVar> user;
      if (const json::value* user_env = input.if_contains("userEnv")) {
        user = api::decode<std::vector<api::EnvVar>>(*user_env, "userEnv");
      }
      config.env = platform::merge_env_vars(platform::base_nccl_env_vars(mnnvl->as_bool()), user);
    }
    const std::string framework(input.at("framework").as_string());
    api::DependencySpec built;
    if (framework == "torch") {
      built = platform::build_torch_runtime(config);
    } else if (framework == "mpi") {
      built = platform::build_mpi_runtime(config);
    } else if (framework == "exec") {
      built = platform::build_exec_runtime(config);
    } else {
      throw std::invalid_argument("unknown framework " + framework);
    }

    const auto intent = platform::resolve_gang_scheduler(api::GangSchedulerSpec{
        config.gangSchedulerName, config.gangSchedulerQueue, config.gangSchedulerQueueLabelKey});
    if (intent) {
      json::object rewritten = built.resource;
      EXPECT_FALSE(platform::apply_gang_scheduler_to_runtime(rewritten, *intent))
          << "the gang rewrite changed a runtime the builder already configured:\n"
          << nvcre::jsonkit::to_pretty_json(rewritten);
    }
    return nvcre::jsonkit::to_pretty_json(api::encode(built));
  });
}

NVCRE_GOLDEN_SUITE(RuntimeBuilders, "runtime-builders");

}  // namespace
