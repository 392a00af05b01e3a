#include "kubectl_support.hpp"

#include <array>
#include <cstdio>
#include <fstream>
#include <random>
#include <sys/wait.h>

namespace nvcre::sim::testing {

CommandResult run_shell(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

namespace {
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

void KubectlTest::SetUp() {
  std::random_device rd;
  dir_ = std::filesystem::temp_directory_path() / ("kube-sim-it-" + std::to_string(rd()));
  std::filesystem::create_directories(dir_);
  KubeSimOptions options;
  options.api.bookmark_interval = std::chrono::milliseconds(1000);
  configure(options);
  // With access control on, kubectl is the admin; otherwise it presents the sim's --token, if any.
  token_ = options.api.access.rbac ? options.api.access.admin_token : options.token;
  sim_ = std::make_unique<KubeSim>(options);
  sim_->start();
  std::ofstream config(dir_ / "kubeconfig");
  config << "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: "
         << sim_->url() << "\n"
         << kubeconfig_cluster_fields()
         << "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: "
            "tester\ncurrent-context: sim\n"
         << "users:\n- name: tester\n  user:";
  const std::string user_fields =
      (token_.empty() ? "" : "    token: " + token_ + "\n") + kubeconfig_user_fields();
  config << (user_fields.empty() ? " {}\n" : "\n" + user_fields);
}

void KubectlTest::TearDown() {
  sim_->stop();
  sim_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string KubectlTest::kubectl_prefix() const {
  return "timeout 30 kubectl --kubeconfig=" + quote((dir_ / "kubeconfig").string()) +
         " --cache-dir=" + quote((dir_ / "cache").string()) + " --request-timeout=10s";
}

CommandResult KubectlTest::kubectl(const std::string& args) const {
  return run_shell(kubectl_prefix() + " " + args);
}

CommandResult KubectlTest::kubectl_stdin(const std::string& args,
                                         const std::string& stdin_text) const {
  return run_shell("printf '%s' " + quote(stdin_text) + " | " + kubectl_prefix() + " " + args);
}

std::string KubectlTest::source(const std::string& relative) const {
  return quote(std::string(NVCRE_SOURCE_DIR) + "/" + relative);
}

void KubectlTest::create_crds() const {
  auto result = kubectl("create -f " + source("deploy/crds/"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
}

void KubectlTest::create_namespace(const std::string& name) const {
  auto result = kubectl_stdin("create -f -",
                              "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n");
  ASSERT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace nvcre::sim::testing
