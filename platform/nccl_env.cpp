#include "platform/nccl_env.hpp"

#include <set>

namespace nvcre::platform {

namespace {

api::EnvVar env(std::string name, std::string value) {
  api::EnvVar var;
  var.name = std::move(name);
  var.value = std::move(value);
  return var;
}

}  // namespace

std::vector<api::EnvVar> base_nccl_env_vars(bool enable_mnnvl) {
  return {
      env("NCCL_DEBUG", "INFO"),         env("NCCL_NVLS_ENABLE", "1"),
      env("NCCL_CUMEM_ENABLE", "1"),     env("NCCL_NET_GDR_C2C", "1"),
      env("NCCL_NET_GDR_LEVEL", "PHB"),  env("NCCL_P2P_NET_CHUNKSIZE", "2097152"),
      env("NCCL_SHM_DISABLE", "1"),      env("NCCL_MNNVL_ENABLE", enable_mnnvl ? "1" : "0"),
      env("NCCL_SOCKET_IFNAME", "eth0"),
  };
}

std::vector<api::EnvVar> merge_env_vars(const std::vector<api::EnvVar>& base,
                                        const std::vector<api::EnvVar>& user) {
  if (user.empty()) return base;
  std::set<std::string> user_names;
  for (const auto& var : user) user_names.insert(var.name);
  std::vector<api::EnvVar> merged;
  merged.reserve(base.size() + user.size());
  for (const auto& var : base) {
    if (!user_names.contains(var.name)) merged.push_back(var);
  }
  merged.insert(merged.end(), user.begin(), user.end());
  return merged;
}

std::vector<std::string> mpi_env_args(const std::vector<api::EnvVar>& env_vars,
                                      const std::vector<std::string>& mpi_args) {
  std::set<std::string> forwarded;
  for (std::size_t i = 0; i + 1 < mpi_args.size(); ++i) {
    if (mpi_args[i] != "-x") continue;
    const std::string& operand = mpi_args[i + 1];
    forwarded.insert(operand.substr(0, operand.find('=')));
  }
  std::vector<std::string> args;
  for (const auto& var : env_vars) {
    if (forwarded.contains(var.name)) continue;
    args.emplace_back("-x");
    args.push_back(var.valueFrom.empty() ? var.name + "=" + var.value : var.name);
  }
  return args;
}

}  // namespace nvcre::platform
