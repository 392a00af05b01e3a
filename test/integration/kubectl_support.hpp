#pragma once
// Drives the real kubectl (/usr/bin/kubectl) against an in-process kube-sim on an ephemeral
// loopback port, with a private kubeconfig and discovery cache per fixture.
#include "sim/kube_sim.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

namespace nvcre::sim::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout + stderr
};

// Runs `sh -c command` and collects its output (2>&1).
CommandResult run_shell(const std::string& command);

class KubectlTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Options applied to the sim before it starts.
  virtual void configure(KubeSimOptions&) {}
  // Extra lines for the kubeconfig's cluster entry (4-space indented, newline-terminated), e.g.
  // certificate-authority-data for a TLS sim.
  virtual std::string kubeconfig_cluster_fields() const { return {}; }
  // Extra lines for the kubeconfig's user entry (4-space indented, newline-terminated), e.g. a
  // client certificate for a sim that asks for one.
  virtual std::string kubeconfig_user_fields() const { return {}; }

  // `timeout 30 kubectl --kubeconfig=... --cache-dir=... --request-timeout=10s <args>`
  std::string kubectl_prefix() const;
  CommandResult kubectl(const std::string& args) const;
  // Feeds `stdin_text` to kubectl (e.g. `create -f -`).
  CommandResult kubectl_stdin(const std::string& args, const std::string& stdin_text) const;
  void create_crds() const;
  void create_namespace(const std::string& name) const;
  std::string source(const std::string& relative) const;  // absolute path in the source tree

  std::unique_ptr<KubeSim> sim_;
  std::filesystem::path dir_;
  std::string token_;
};

inline bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// kubectl's -o json output, parsed; a parse failure fails the test.
inline boost::json::value parse_json(const CommandResult& result) {
  boost::system::error_code ec;
  auto value = boost::json::parse(result.output, ec);
  EXPECT_FALSE(ec) << result.output;
  return value;
}

}  // namespace nvcre::sim::testing
