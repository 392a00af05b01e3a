#include "test/support/child_process.hpp"

#include "k8s/kubeconfig.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace nvcre::testing {

void write_sim_kubeconfig(const std::string& path, const std::string& server_url,
                          const std::string& token, const std::string& ca_file) {
  std::ofstream(path) << k8s::single_context_kubeconfig(server_url, token, ca_file);
}

pid_t spawn_with_log(const std::vector<std::string>& args, const std::string& log_path,
                     const std::string& stdout_path) {
  if (args.empty()) throw std::runtime_error("spawn_with_log: no program given");
  std::vector<std::string> copies = args;
  std::vector<char*> argv;
  for (auto& arg : copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (stdout_path.empty())
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  else
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw std::runtime_error("cannot start " + args.front() + ": " + std::strerror(rc) +
                             " (build it first, or pass the path of an nvcre-manager binary)");
  }
  return pid;
}

ManagerChild::ManagerChild(const std::string& binary, const std::string& server_url,
                           const std::vector<std::string>& extra_args, const std::string& tag,
                           const std::string& token, const std::string& ca_file) {
  std::random_device random;
  dir_ = std::filesystem::temp_directory_path() / ("nvcre-" + tag + "-" + std::to_string(random()));
  std::filesystem::create_directories(dir_);
  const auto kubeconfig = (dir_ / "kubeconfig").string();
  log_ = (dir_ / "manager.log").string();
  write_sim_kubeconfig(kubeconfig, server_url, token, ca_file);
  std::vector<std::string> args{
      binary,        "--kubeconfig",           kubeconfig, "--health-probe-bind-address",
      "127.0.0.1:0", "--metrics-bind-address", "0"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_ = spawn_with_log(args, log_);
}

ManagerChild::~ManagerChild() {
  if (!status_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::optional<int> ManagerChild::exited() {
  if (!status_) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
  }
  return status_;
}

void ManagerChild::signal(int number) const { ::kill(pid_, number); }

std::string ManagerChild::log() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace nvcre::testing
