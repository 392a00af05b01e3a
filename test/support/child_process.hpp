#pragma once
// The nvcre-manager binary as a child process against an embedded kube-sim: what the chaos tests
// and the manager bench need to run the product as users do (its own process, signals, exit code).
#include <sys/types.h>

#include <string>
#include <vector>

namespace nvcre::testing {

// A kubeconfig at `path` for `server_url` without credentials (kube-sim asks for none).
void write_sim_kubeconfig(const std::string& path, const std::string& server_url);

// Starts args[0] with `args`, its stderr appended to nothing but `log_path` (truncated) and its
// stdout discarded; throws std::runtime_error when it cannot be started.
pid_t spawn_with_log(const std::vector<std::string>& args, const std::string& log_path);

}  // namespace nvcre::testing
