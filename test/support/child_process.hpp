#pragma once
// The nvcre-manager binary as a child process against an embedded kube-sim: what the chaos tests
// and the manager bench need to run the product as users do (its own process, signals, exit code).
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::testing {

// A kubeconfig at `path` for `server_url`, without credentials (kube-sim asks for none unless its
// access control is on) or with a bearer `token` (which clients send over https only: then
// `ca_file` names the PEM file that signs the server's certificate).
void write_sim_kubeconfig(const std::string& path, const std::string& server_url,
                          const std::string& token = "", const std::string& ca_file = "");

// Starts args[0] with `args`, its stderr appended to nothing but `log_path` (truncated) and its
// stdout written to `stdout_path` (truncated; discarded when empty); throws std::runtime_error
// when it cannot be started.
pid_t spawn_with_log(const std::vector<std::string>& args, const std::string& log_path,
                     const std::string& stdout_path = {});

// The nvcre-manager `binary` as its own process against kube-sim at `server_url` (probes on an
// ephemeral port, metrics off, then `extra_args`), its stderr in a log file of a fresh temporary
// directory named after `tag`, authenticating with `token` (and trusting `ca_file`) when given.
// Killed and reaped, and its directory removed, when destroyed.
class ManagerChild {
 public:
  ManagerChild(const std::string& binary, const std::string& server_url,
               const std::vector<std::string>& extra_args, const std::string& tag,
               const std::string& token = "", const std::string& ca_file = "");
  ~ManagerChild();
  ManagerChild(const ManagerChild&) = delete;
  ManagerChild& operator=(const ManagerChild&) = delete;

  // The wait status once the process has ended (reaped here), nullopt while it runs.
  std::optional<int> exited();
  bool running() { return !exited(); }
  void signal(int number) const;
  std::string log() const;  // everything it has written to stderr so far

 private:
  std::filesystem::path dir_;
  std::string log_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

}  // namespace nvcre::testing
