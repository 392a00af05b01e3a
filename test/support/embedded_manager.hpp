#pragma once
// A test fixture for the manager-driven tests: an in-process kube-sim (EmbeddedCluster) in the
// namespace "it" with the real Manager on it, and waiting for a Certification's verdict.
#include "actors/manager.hpp"
#include "manager/embedded/embedded_cluster.hpp"
#include "test/support/resources.hpp"
#include "test/support/verdict.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <functional>
#include <vector>

namespace nvcre::testing {

class EmbeddedManagerTest : public ::testing::Test {
 protected:
  // Starts the cluster (CRDs from deploy/crds, namespace "it") and the manager on it, recording
  // its metrics in `metrics` when given. `prepare` runs between the two: what it writes is in the
  // manager's first list, as the state a manager finds when it starts on a running cluster (a
  // change made after the start reaches its cache only when the watch delivers it).
  void start(manager::EmbeddedClusterOptions options,
             std::shared_ptr<k8s::Metrics> metrics = nullptr,
             const std::function<void()>& prepare = {}) {
    options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
    options.namespaces = {"it"};
    cluster_ = std::make_unique<manager::EmbeddedCluster>(options);
    cluster_->start();
    client_ = &cluster_->client();
    if (prepare) prepare();
    auto manager_options = cluster_->manager_options("it");
    manager_options.metrics = std::move(metrics);
    manager_ = std::make_unique<actors::Manager>(manager_options);
    manager_->start();
  }
  void TearDown() override {
    manager_.reset();
    cluster_.reset();
  }

  // The Certification's verdict once it has one (empty after `limit`).
  Verdict wait_for_verdict(const std::string& name,
                           std::chrono::seconds limit = std::chrono::seconds(90)) {
    return verdict_of(wait_for_verdict_object(kCertifications, name, limit));
  }

  // The object (a Certification, WorkloadRun, ...) once it has a verdict; null at the limit.
  boost::json::value wait_for_verdict_object(
      const k8s::ResourceRef& resource, const std::string& name,
      std::chrono::seconds limit = std::chrono::seconds(90)) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      boost::json::value object = client_->get(resource, "it", name);
      if (!verdict_of(object).type.empty()) return object;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return nullptr;
  }

  std::vector<boost::json::value> items(const k8s::ResourceRef& resource) {
    const boost::json::value list = client_->list(resource, "it");
    const auto& array = list.at("items").as_array();
    return {array.begin(), array.end()};
  }

  std::unique_ptr<manager::EmbeddedCluster> cluster_;
  k8s::RestClient* client_ = nullptr;
  std::unique_ptr<actors::Manager> manager_;
};

}  // namespace nvcre::testing
