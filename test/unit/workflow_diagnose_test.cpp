// workflow/diagnose.hpp: the per-Job MNNVL switch and the group builders' edges that the round
// goldens do not reach.
#include "workflow/diagnose.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <stdexcept>

namespace {

namespace json = boost::json;
namespace diagnose = nvcre::workflow::diagnose;
namespace stage = nvcre::api::diagnose_stage;

json::object train_job(json::array args, json::array env = {}) {
  json::object trainer{{"args", std::move(args)}};
  if (!env.empty()) trainer["env"] = std::move(env);
  return json::object{{"trainer", std::move(trainer)}};
}

TEST(DiagnoseMnnvl, TheFirstInlineArgDecides) {
  EXPECT_TRUE(diagnose::mnnvl_enabled(train_job({"-x", "NCCL_MNNVL_ENABLE=1"})));
  EXPECT_FALSE(diagnose::mnnvl_enabled(train_job({"-x", "NCCL_MNNVL_ENABLE=0"})));
  EXPECT_FALSE(diagnose::mnnvl_enabled(train_job(
      {"NCCL_MNNVL_ENABLE=0"}, {json::object{{"name", "NCCL_MNNVL_ENABLE"}, {"value", "1"}}})));
}

TEST(DiagnoseMnnvl, TheEnvVarDecidesWithoutAnArg) {
  EXPECT_TRUE(diagnose::mnnvl_enabled(
      train_job({"-x"}, {json::object{{"name", "NCCL_MNNVL_ENABLE"}, {"value", "1"}}})));
  EXPECT_FALSE(diagnose::mnnvl_enabled(
      train_job({}, {json::object{{"name", "NCCL_MNNVL_ENABLE"}, {"value", "0"}}})));
  EXPECT_FALSE(diagnose::mnnvl_enabled(train_job({"-x", "NCCL_DEBUG=INFO"})));
  EXPECT_FALSE(diagnose::mnnvl_enabled(json::object{}));
}

TEST(DiagnoseMnnvl, ForcingOffEditsTheArgThenTheEnvThenAppends) {
  json::object inline_arg =
      train_job({"-x", "NCCL_MNNVL_ENABLE=1", "bin"},
                {json::object{{"name", "NCCL_MNNVL_ENABLE"}, {"value", "1"}}});
  diagnose::force_mnnvl_off(inline_arg);
  EXPECT_EQ(inline_arg.at("trainer").at("args"), (json::array{"-x", "NCCL_MNNVL_ENABLE=0", "bin"}));
  EXPECT_EQ(inline_arg.at("trainer").at("env").at(0).at("value"), "1");  // the arg wins alone

  json::object env =
      train_job({"bin"}, {json::object{{"name", "NCCL_MNNVL_ENABLE"}, {"value", "1"}}});
  diagnose::force_mnnvl_off(env);
  EXPECT_EQ(env.at("trainer").at("env"),
            (json::array{json::object{{"name", "NCCL_MNNVL_ENABLE"}, {"value", "0"}}}));

  json::object none = train_job({"bin"});
  diagnose::force_mnnvl_off(none);
  EXPECT_EQ(none.at("trainer").at("env"),
            (json::array{json::object{{"name", "NCCL_MNNVL_ENABLE"}, {"value", "0"}}}));
  EXPECT_FALSE(diagnose::mnnvl_enabled(none));
}

TEST(DiagnoseMnnvl, WhichStagesRunWithoutNvl) {
  nvcre::api::DiagnoseStatus status;
  status.stage = std::string(stage::kIntraScreening);
  EXPECT_FALSE(diagnose::forces_mnnvl_off(status, {"n0"}));
  status.stage = std::string(stage::kIntraScreeningNoNVL);
  EXPECT_TRUE(diagnose::forces_mnnvl_off(status, {"n0"}));
  status.stage = std::string(stage::kBisection);
  status.noNVLSuspectNodes = {"n1"};
  EXPECT_FALSE(diagnose::forces_mnnvl_off(status, {"n0", "n2"}));
  EXPECT_TRUE(diagnose::forces_mnnvl_off(status, {"n0", "n1"}));
  status.stage = std::string(stage::kCrossBoundary);
  status.crossBoundaryState =
      nvcre::api::CrossBoundaryState{{}, std::string(stage::kIntraScreening)};
  EXPECT_FALSE(diagnose::forces_mnnvl_off(status, {"n0"}));
  status.crossBoundaryState->originStage = std::string(stage::kBisection);
  EXPECT_TRUE(diagnose::forces_mnnvl_off(status, {"n0"}));
}

TEST(DiagnoseGroups, ScreeningChunksAreAtLeastTwoAndNodesWithoutTheLabelAreUnknown) {
  const auto chunks = diagnose::screening_groups({{"c", {}}, {"a", {}}, {"b", {}}}, "");
  ASSERT_EQ(chunks.size(), 2u);  // ceil(sqrt 3) = 2
  EXPECT_EQ(chunks[0].nodes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(chunks[1].nodes, (std::vector<std::string>{"c"}));
  const auto domains = diagnose::screening_groups(
      {{"a", {{"rack", "r1"}}}, {"b", {}}, {"c", {{"rack", ""}}}}, "rack");
  ASSERT_EQ(domains.size(), 2u);
  EXPECT_EQ(domains[0].domains, (std::vector<std::string>{"r1"}));
  EXPECT_EQ(domains[1].name, "screen-1");
  EXPECT_EQ(domains[1].domains, (std::vector<std::string>{"unknown"}));
  EXPECT_EQ(domains[1].nodes, (std::vector<std::string>{"b", "c"}));
  EXPECT_THROW(diagnose::screening_groups({}, ""), std::invalid_argument);
}

TEST(DiagnoseGroups, CrossProbesOfSingleNodeHalvesAreOneGroup) {
  const auto probes = diagnose::cross_boundary_groups({"a"}, {"b"}, 3);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_EQ(probes[0].name, "cross-3-mix0");
  EXPECT_EQ(probes[0].nodes, (std::vector<std::string>{"a", "b"}));
}

TEST(DiagnoseGroups, ConfirmationReferencesRotate) {
  const auto pairs = diagnose::confirmation_groups({"s0", "s1", "s2"}, {"h0", "h1"});
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[2].nodes, (std::vector<std::string>{"s2", "h0"}));
  EXPECT_TRUE(diagnose::confirmation_groups({"s0"}, {}).empty());
}

TEST(DiagnoseRounds, AnUnknownStageIsRefused) {
  diagnose::RoundInput input;
  input.status.stage = "guessing";
  EXPECT_THROW(diagnose::complete_round(input), std::invalid_argument);
}

}  // namespace
