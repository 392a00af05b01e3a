#pragma once
// Model-independent NCCL environment auto-injected into every WorkloadRun container, and the
// env-merging rules that make the user's own env win. Platform-specific
// NCCL settings (EFA, FastRak, IB) come from overrides, not from here.
#include "api/common_types.hpp"

#include <string>
#include <vector>

namespace nvcre::platform {

// NCCL_DEBUG=INFO, NCCL_NVLS_ENABLE=1, NCCL_CUMEM_ENABLE=1, NCCL_NET_GDR_C2C=1,
// NCCL_NET_GDR_LEVEL=PHB, NCCL_P2P_NET_CHUNKSIZE=2097152, NCCL_SHM_DISABLE=1,
// NCCL_MNNVL_ENABLE=1|0, NCCL_SOCKET_IFNAME=eth0 — in this order.
std::vector<api::EnvVar> base_nccl_env_vars(bool enable_mnnvl);

// The base entries the user does not name (base order), then every user entry (user order,
// duplicates kept). An overridden name therefore moves to the user's position at the end; an empty
// user list returns the base unchanged.
std::vector<api::EnvVar> merge_env_vars(const std::vector<api::EnvVar>& base,
                                        const std::vector<api::EnvVar>& user);

// MPIEnvArgs: `-x` operands that forward `env` to remote ranks, skipping names `mpi_args` already
// forwards (`-x NAME` or `-x NAME=...`). valueFrom entries are forwarded bare (`-x NAME`) so
// mpirun reads the launcher's resolved value.
std::vector<std::string> mpi_env_args(const std::vector<api::EnvVar>& env,
                                      const std::vector<std::string>& mpi_args);

}  // namespace nvcre::platform
