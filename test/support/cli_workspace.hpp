#pragma once
// Running the real nvcrectl from a test as a user would: a scratch directory holding a kubeconfig
// for a kube-sim, the command's exit status with its stdout and stderr, files the command reads,
// and python3's XML parser over a JUnit file it wrote. Header-only: NVCRECTL_BINARY is defined
// for the test binaries that run nvcrectl.
#include "test/support/child_process.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace nvcre::testing {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class CliWorkspace {
 public:
  CliWorkspace() = default;
  CliWorkspace(const CliWorkspace&) = delete;
  CliWorkspace& operator=(const CliWorkspace&) = delete;
  ~CliWorkspace() { close(); }

  // A fresh directory "<tmp>/<prefix>-<random>" with a kubeconfig for the kube-sim at `server`.
  void open(const std::string& prefix, const std::string& server) {
    std::random_device random;
    dir_ = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(random()));
    std::filesystem::create_directories(dir_);
    write_sim_kubeconfig(kubeconfig(), server);
  }
  void close() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    dir_.clear();
  }

  const std::filesystem::path& dir() const { return dir_; }
  std::string kubeconfig() const { return (dir_ / "kubeconfig").string(); }

  // nvcrectl <args> --kubeconfig <the sim's>, stdout and stderr captured.
  CliRun nvcrectl(const std::string& args) const {
    return nvcrectl_alone(args + " --kubeconfig " + kubeconfig());
  }

  // nvcrectl <args> as given (commands without connection flags), stdout and stderr captured.
  CliRun nvcrectl_alone(const std::string& args) const {
    const auto out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string command =
        std::string(NVCRECTL_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
  }

  std::string write_file(const std::string& name, const std::string& content) const {
    const auto path = dir_ / name;
    std::ofstream(path) << content;
    return path.string();
  }

  // python3's XML parser over a JUnit file: "<suites> <cases> <failures> <errors>" and each
  // testcase name, or the parser's complaint (also when the root is not <testsuites>).
  std::string parse_junit(const std::filesystem::path& file) const {
    const std::string script = write_file(
        "junit.py",
        "import sys, xml.etree.ElementTree as ET\n"
        "root = ET.parse(sys.argv[1]).getroot()\n"
        "assert root.tag == 'testsuites', root.tag\n"
        "suites = root.findall('testsuite')\n"
        "cases = root.findall('testsuite/testcase')\n"
        "print(len(suites), len(cases), len(root.findall('testsuite/testcase/failure')),\n"
        "      len(root.findall('testsuite/testcase/error')), end='')\n"
        "for case in cases: print(' ' + case.get('name'), end='')\n");
    const auto out = dir_ / "junit.out";
    const std::string command =
        "python3 " + script + " " + file.string() + " >" + out.string() + " 2>&1";
    const int status = std::system(command.c_str());
    const std::string text = read_text(out);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? text : "python3 failed: " + text;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace nvcre::testing
