#pragma once
// What the chaos tests share: an in-process kube-sim with the CRDs (manager::EmbeddedCluster),
// Certifications built and read through the API as a user would, and kube-sim's create counters
// read back as "which child was created how often". The tests drive the real manager
// (actors/manager.hpp).
#include "manager/embedded/embedded_cluster.hpp"
#include "test/support/resources.hpp"
#include "test/support/verdict.hpp"
#include "test/support/eventually.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace nvcre::chaos {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kEvents;
using nvcre::testing::kJobs;
using nvcre::testing::kTrainJobs;
using nvcre::testing::kWorkflows;
using Clock = std::chrono::steady_clock;

inline const std::string kNamespace = "chaos";

inline nvcre::manager::EmbeddedClusterOptions cluster_options(
    const std::string& profile, std::chrono::milliseconds trainer_step,
    std::vector<std::string> faulty_nodes = {}) {
  nvcre::manager::EmbeddedClusterOptions options;
  options.profile = profile;
  options.faulty_nodes = std::move(faulty_nodes);
  options.trainer_step = trainer_step;
  options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
  options.namespaces = {kNamespace};
  return options;
}

// The simulated GPU node `index` (sim/cluster_profile.cpp: two digits for profiles of up to 100
// nodes).
inline std::string node_name(int index) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "gpu-node-%02d", index);
  return buffer;
}

// A Certification of one category on the GPU nodes, restricted to `node_names` when given, one
// node per Job: diagnostics/dcgm-level1 then runs one single-pod Job per node, so no multi-pod
// gang can end up half placed on a busy simulated cluster and contention only ever delays a Job.
inline json::value certification(const std::string& name,
                                 const std::vector<std::string>& node_names = {},
                                 const std::string& domain = "diagnostics",
                                 const std::string& variant = "dcgm-level1") {
  json::object target{{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}}};
  if (!node_names.empty()) {
    json::array names;
    for (const auto& n : node_names) names.emplace_back(n);
    target["nodeNames"] = std::move(names);
  }
  return json::object{
      {"apiVersion", "nvcre.nvidia.com/v1alpha1"},
      {"kind", "Certification"},
      {"metadata", {{"name", name}, {"namespace", kNamespace}}},
      {"spec",
       {{"target", std::move(target)},
        {"categories",
         json::array{json::object{
             {"domain", domain}, {"variant", variant}, {"options", {{"nodesPerJob", 1}}}}}}}}};
}

using nvcre::testing::Verdict;
using nvcre::testing::verdict_of;

// name -> verdict of every Certification in the namespace (one list call).
inline std::map<std::string, Verdict> verdicts(k8s::RestClient& client) {
  const json::value list = client.list(kCertifications, kNamespace);
  std::map<std::string, Verdict> out;
  for (const auto& item : list.at("items").as_array()) {
    out[std::string(item.at("metadata").at("name").as_string())] = verdict_of(item);
  }
  return out;
}

inline std::size_t count_with_verdict(const std::map<std::string, Verdict>& all,
                                      const std::set<std::string>& names) {
  std::size_t n = 0;
  for (const auto& name : names) {
    auto it = all.find(name);
    if (it != all.end() && !it->second.type.empty()) ++n;
  }
  return n;
}

inline std::size_t count_items(k8s::RestClient& client, const k8s::ResourceRef& resource) {
  const json::value list = client.list(resource, kNamespace);
  return list.at("items").as_array().size();
}

using nvcre::test::eventually;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Every mutating request (create, update, patch, delete) kube-sim received from one client,
// told apart by its User-Agent (ManagerOptions::user_agent), whatever the answer.
inline std::uint64_t writes_by(nvcre::manager::EmbeddedCluster& cluster,
                               const std::string& user_agent) {
  const auto& log = cluster.sim().api().request_log();
  std::uint64_t n = 0;
  for (const char* verb : {"create", "update", "patch", "delete"})
    n += log.requests_by(user_agent, verb);
  return n;
}

// A snapshot of how far the run got, printed at each kill so the report shows what was in flight.
struct Progress {
  std::size_t workflows = 0, jobs = 0, train_jobs = 0, verdicts = 0;
};

inline Progress progress(k8s::RestClient& client, const std::set<std::string>& names) {
  return Progress{count_items(client, kWorkflows), count_items(client, kJobs),
                  count_items(client, kTrainJobs), count_with_verdict(verdicts(client), names)};
}

inline std::ostream& operator<<(std::ostream& out, const Progress& p) {
  return out << p.workflows << " Workflows, " << p.jobs << " Jobs, " << p.train_jobs
             << " TrainJobs, " << p.verdicts << " verdicts";
}

// One (resource, namespace, name) of kube-sim's create counters: every create request for that
// name (`attempts`) and the ones answered 201 (`created`).
struct CreateCount {
  std::string resource;  // plural.group, e.g. workflows.nvcre.nvidia.com; core: plural
  std::string ns;
  std::string name;
  std::uint64_t attempts = 0;
  std::uint64_t created = 0;
};

// The objects the manager created: everything but the test driver's own namespaces and
// Certifications, events (records, not children: every one has its own name) and the Lease
// (candidates race to create it by design; reported separately).
inline bool is_child_resource(const std::string& resource) {
  static const std::set<std::string> not_children{"namespaces", "certifications.nvcre.nvidia.com",
                                                  "events.events.k8s.io", "events",
                                                  "leases.coordination.k8s.io"};
  return !not_children.contains(resource);
}

inline std::vector<CreateCount> create_counts(nvcre::manager::EmbeddedCluster& cluster) {
  const json::value stats = cluster.sim().api().request_log().stats(0);
  std::vector<CreateCount> out;
  for (const auto& entry : stats.at("creates").as_array()) {
    out.push_back(CreateCount{std::string(entry.at("resource").as_string()),
                              std::string(entry.at("namespace").as_string()),
                              std::string(entry.at("name").as_string()),
                              entry.at("attempts").to_number<std::uint64_t>(),
                              entry.at("created").to_number<std::uint64_t>()});
  }
  return out;
}

// The children summary the tests assert on and print.
struct ChildCreates {
  std::map<std::string, std::size_t> per_resource;  // children created, per resource
  std::vector<CreateCount> not_created_once;  // 201 answered twice (a real duplicate) or never
  std::vector<CreateCount> attempted_twice;   // more than one create request for one name
  std::size_t children = 0;

  // Create requests beyond the one that created each child.
  std::uint64_t extra_attempts() const {
    std::uint64_t n = 0;
    for (const auto& c : attempted_twice) n += c.attempts - std::min<std::uint64_t>(c.created, 1);
    return n;
  }

  std::size_t created(const std::string& resource) const {
    auto it = per_resource.find(resource);
    return it == per_resource.end() ? 0 : it->second;
  }
};

inline ChildCreates child_creates(nvcre::manager::EmbeddedCluster& cluster) {
  ChildCreates out;
  for (const auto& c : create_counts(cluster)) {
    if (!is_child_resource(c.resource)) continue;
    ++out.children;
    out.per_resource[c.resource] += c.created;
    if (c.created != 1) out.not_created_once.push_back(c);
    if (c.attempts > 1) out.attempted_twice.push_back(c);
  }
  return out;
}

inline std::string describe(const std::vector<CreateCount>& counts) {
  std::string out;
  for (const auto& c : counts) {
    out += "  " + c.resource + " " + c.ns + "/" + c.name +
           ": attempts=" + std::to_string(c.attempts) + " created=" + std::to_string(c.created) +
           "\n";
  }
  return out;
}

inline std::string describe(const ChildCreates& creates) {
  std::string out = std::to_string(creates.children) + " children (";
  for (const auto& [resource, n] : creates.per_resource)
    out += resource + "=" + std::to_string(n) + " ";
  out += "); not created exactly once: " + std::to_string(creates.not_created_once.size()) +
         "; create asked for again: " + std::to_string(creates.attempted_twice.size()) +
         " names, " + std::to_string(creates.extra_attempts()) + " extra requests\n";
  return out;
}

// After a run of `certifications` Certifications of one single-node Job per node on `nodes` nodes:
// every child was created exactly once (one Workflow per Certification, one Job and one TrainJob
// per Certification and node), and every extra create request was a handled 409 AlreadyExists or
// the retry of one of the `injected_refusals` creates kube-sim's fault plan refused.
inline void expect_every_child_created_once(nvcre::manager::EmbeddedCluster& cluster,
                                            const std::string& label, std::size_t certifications,
                                            std::size_t nodes,
                                            std::uint64_t injected_refusals = 0) {
  const ChildCreates creates = child_creates(cluster);
  std::cout << "[chaos] " << label << ": " << describe(creates);
  EXPECT_EQ(creates.created("workflows.nvcre.nvidia.com"), certifications);
  EXPECT_EQ(creates.created("jobs.nvcre.nvidia.com"), certifications * nodes);
  EXPECT_EQ(creates.created("trainjobs.trainer.kubeflow.org"), certifications * nodes);
  EXPECT_TRUE(creates.not_created_once.empty()) << describe(creates.not_created_once);
  // A create may be asked for again, and answered 409 AlreadyExists: a pass planned from a cache
  // that had not yet seen the child its previous pass created (or a new manager finding a create
  // whose answer the old one never read); the controller then reads the holder and adopts it
  // only if it is its own. That is a handled retry, not a duplicate: every extra create request
  // must have been exactly such a 409 (no create failed in any other way).
  EXPECT_EQ(cluster.sim().api().request_log().requests("create", 409) + injected_refusals,
            creates.extra_attempts())
      << describe(creates.attempted_twice);
}

}  // namespace nvcre::chaos
