#include "platform/nccl_env.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using nvcre::api::EnvVar;
using namespace nvcre::platform;

namespace {

EnvVar var(std::string name, std::string value) {
  EnvVar env;
  env.name = std::move(name);
  env.value = std::move(value);
  return env;
}

std::vector<std::pair<std::string, std::string>> pairs(const std::vector<EnvVar>& env) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& item : env) out.emplace_back(item.name, item.value);
  return out;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

}  // namespace

TEST(PlatformNcclEnv, BaseVarsHaveTheReferenceNamesValuesAndOrder) {
  EXPECT_EQ(pairs(base_nccl_env_vars(false)), (Pairs{{"NCCL_DEBUG", "INFO"},
                                                     {"NCCL_NVLS_ENABLE", "1"},
                                                     {"NCCL_CUMEM_ENABLE", "1"},
                                                     {"NCCL_NET_GDR_C2C", "1"},
                                                     {"NCCL_NET_GDR_LEVEL", "PHB"},
                                                     {"NCCL_P2P_NET_CHUNKSIZE", "2097152"},
                                                     {"NCCL_SHM_DISABLE", "1"},
                                                     {"NCCL_MNNVL_ENABLE", "0"},
                                                     {"NCCL_SOCKET_IFNAME", "eth0"}}));
}

TEST(PlatformNcclEnv, OnlyMnnvlDependsOnTheFlag) {
  auto off = base_nccl_env_vars(false);
  auto on = base_nccl_env_vars(true);
  ASSERT_EQ(off.size(), on.size());
  for (std::size_t i = 0; i < off.size(); ++i) {
    EXPECT_EQ(off[i].name, on[i].name);
    if (off[i].name == "NCCL_MNNVL_ENABLE") {
      EXPECT_EQ(off[i].value, "0");
      EXPECT_EQ(on[i].value, "1");
    } else {
      EXPECT_EQ(off[i].value, on[i].value) << off[i].name;
    }
  }
  for (const auto& env : on) EXPECT_TRUE(env.valueFrom.empty()) << env.name;
}

TEST(PlatformMergeEnvVars, EmptyUserListReturnsBaseUnchanged) {
  const auto base = base_nccl_env_vars(true);
  EXPECT_EQ(merge_env_vars(base, {}), base);
}

TEST(PlatformMergeEnvVars, EmptyBaseGivesUserList) {
  const std::vector<EnvVar> user{var("B", "2"), var("A", "1")};
  EXPECT_EQ(merge_env_vars({}, user), user);
}

TEST(PlatformMergeEnvVars, UserWinsByNameAndOverriddenNamesMoveToTheEnd) {
  const std::vector<EnvVar> base{var("A", "a"), var("B", "b"), var("C", "c"), var("D", "d")};
  const std::vector<EnvVar> user{var("X", "x"), var("C", "user-c"), var("A", "user-a")};
  EXPECT_EQ(pairs(merge_env_vars(base, user)),
            (Pairs{{"B", "b"}, {"D", "d"}, {"X", "x"}, {"C", "user-c"}, {"A", "user-a"}}));
}

TEST(PlatformMergeEnvVars, UserDuplicatesAreKeptInUserOrder) {
  const std::vector<EnvVar> base{var("A", "a"), var("B", "b")};
  const std::vector<EnvVar> user{var("A", "1"), var("A", "2")};
  EXPECT_EQ(pairs(merge_env_vars(base, user)), (Pairs{{"B", "b"}, {"A", "1"}, {"A", "2"}}));
}

TEST(PlatformMergeEnvVars, ValueFromEntryReplacesALiteralBaseValue) {
  EnvVar from_secret;
  from_secret.name = "NCCL_DEBUG";
  from_secret.valueFrom = {{"secretKeyRef", boost::json::object{{"name", "s"}, {"key", "k"}}}};
  const auto merged = merge_env_vars(base_nccl_env_vars(false), {from_secret});
  ASSERT_EQ(merged.size(), 9u);
  EXPECT_EQ(merged.front().name, "NCCL_NVLS_ENABLE");
  EXPECT_EQ(merged.back(), from_secret);
}

TEST(PlatformMergeEnvVars, NamesAreCaseSensitive) {
  const auto merged = merge_env_vars({var("nccl_debug", "x")}, {var("NCCL_DEBUG", "y")});
  EXPECT_EQ(pairs(merged), (Pairs{{"nccl_debug", "x"}, {"NCCL_DEBUG", "y"}}));
}

TEST(PlatformMpiEnvArgs, ForwardsEveryVarNotAlreadyForwarded) {
  EnvVar pod_ip;
  pod_ip.name = "POD_IP";
  pod_ip.valueFrom = {{"fieldRef", boost::json::object{{"fieldPath", "status.podIP"}}}};
  const std::vector<EnvVar> env{var("NCCL_DEBUG", "INFO"), var("NCCL_NET_PLUGIN", "ofi"), pod_ip,
                                var("QUOTED", "a b")};
  const std::vector<std::string> mpi_args{"-x", "NCCL_NET_PLUGIN=none", "--mca", "pml", "ob1",
                                          "-x"};
  EXPECT_EQ(mpi_env_args(env, mpi_args), (std::vector<std::string>{"-x", "NCCL_DEBUG=INFO", "-x",
                                                                   "POD_IP", "-x", "QUOTED=a b"}));
}

TEST(PlatformMpiEnvArgs, BareForwardedNameCountsAsForwarded) {
  const std::vector<EnvVar> env{var("LD_LIBRARY_PATH", "/x")};
  EXPECT_TRUE(mpi_env_args(env, {"-x", "LD_LIBRARY_PATH"}).empty());
}
