// The soak's checker: reads kube-sim's final state, its create counters and its request log, and
// says which property held and which did not (every figure printed, nothing timed).
#include "bench/chaos_soak.hpp"

#include "k8s/kubeconfig.hpp"
#include "sim/request_log_reader.hpp"
#include "test/support/verdict.hpp"
#include "workflow/node_results.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace nvcre::soak {

namespace {

const k8s::ResourceRef kConfigMaps{"", "v1", "configmaps", true};

std::string string_at(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* at = &v;
  for (auto key : path) {
    const auto* o = at->if_object();
    at = o == nullptr ? nullptr : o->if_contains(key);
    if (at == nullptr) return {};
  }
  return at->is_string() ? std::string(at->as_string()) : std::string();
}

// The nodes a diagnose Certification blamed: its category's failed-nodes ConfigMap.
std::set<std::string> blamed_nodes(k8s::RestClient& client, const json::value& cert) {
  std::set<std::string> out;
  const auto* statuses = cert.at("status").as_object().if_contains("categoryStatuses");
  if (statuses == nullptr || !statuses->is_array() || statuses->as_array().empty()) return out;
  const std::string cm_name = string_at(statuses->as_array()[0], {"failedNodesRef", "name"});
  if (cm_name.empty()) return out;
  const json::value cm = get_until_answered(client, kConfigMaps, kNamespace, cm_name);
  const auto raw = k8s::decode_base64(
      string_at(cm, {"binaryData", std::string_view(workflow::kFailedNodesKey)}));
  if (!raw) return out;
  const json::value entries = json::parse(workflow::gunzip(*raw));
  for (const auto& entry : entries.as_array())
    out.insert(std::string(entry.at("name").as_string()));
  return out;
}

bool is_child(const std::string& resource) {
  static const std::set<std::string> not_children{"namespaces", "certifications.nvcre.nvidia.com",
                                                  "events.events.k8s.io", "events",
                                                  "leases.coordination.k8s.io"};
  return !not_children.contains(resource);
}

// "plural.group" (or a core "plural") as a ResourceRef, at the group's preferred version (asked
// again until answered: the fault plan may still be on).
k8s::ResourceRef resource_ref(k8s::RestClient& client, const std::string& qualified) {
  const auto dot = qualified.find('.');
  if (dot == std::string::npos) return {"", "v1", qualified, true};
  const std::string group = qualified.substr(dot + 1);
  for (;;) {
    try {
      const json::value discovery =
          json::parse(client.request({"GET", "/apis/" + group, {}, "", ""}).body);
      return {group, string_at(discovery, {"preferredVersion", "version"}),
              qualified.substr(0, dot), true};
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

void check_verdicts(k8s::RestClient& client, const Layout& layout, Findings& findings) {
  std::map<std::string, json::value> by_name;
  const json::value list = list_until_answered(client, bench::kCertifications, kNamespace);
  for (const auto& item : list.at("items").as_array())
    by_name[string_at(item, {"metadata", "name"})] = item;
  findings.expected_verdicts = layout.certifications.size();
  for (const auto& planned : layout.certifications) {
    auto it = by_name.find(planned.name);
    if (it == by_name.end()) {
      findings.wrong_verdicts.push_back(planned.name + ": gone before its verdict was read");
      continue;
    }
    const auto verdict = nvcre::testing::verdict_of(it->second);
    const std::string expected = planned.mix == Mix::Diagnose ? "Failed" : "Succeeded";
    std::string wrong;
    if (verdict.type != expected) {
      wrong = (verdict.type.empty() ? "no verdict" : verdict.type) + " (" + verdict.reason + ": " +
              verdict.message + "), expected " + expected;
    } else if (planned.mix == Mix::Diagnose) {
      const auto blamed = blamed_nodes(client, it->second);
      if (blamed != std::set<std::string>{planned.faulty_node}) {
        wrong = "blamed " + std::to_string(blamed.size()) + " nodes, expected only " +
                planned.faulty_node;
      }
    }
    if (wrong.empty()) {
      ++findings.reached_expected;
    } else {
      findings.wrong_verdicts.push_back(planned.name + ": " + wrong);
    }
  }
}

std::vector<Left> left_of_created(k8s::RestClient& client, const json::value& stats) {
  std::map<std::string, std::set<std::string>> created;  // resource -> names (namespace soak)
  for (const auto& entry : stats.at("creates").as_array()) {
    const std::string resource(entry.at("resource").as_string());
    if (!is_child(resource) || entry.at("created").to_number<std::uint64_t>() == 0) continue;
    if (entry.at("namespace").as_string() == kNamespace)
      created[resource].insert(std::string(entry.at("name").as_string()));
  }
  created["certifications.nvcre.nvidia.com"];  // every Certification must be gone too
  std::vector<Left> left;
  for (const auto& [resource, names] : created) {
    const json::value list =
        list_until_answered(client, resource_ref(client, resource), kNamespace);
    for (const auto& item : list.at("items").as_array()) {
      const std::string name = string_at(item, {"metadata", "name"});
      if (resource != "certifications.nvcre.nvidia.com" && !names.contains(name)) continue;
      left.push_back(
          {resource + " " + name, !string_at(item, {"metadata", "deletionTimestamp"}).empty()});
    }
  }
  return left;
}

void check_leftovers(k8s::RestClient& client, const json::value& stats, Findings& findings) {
  for (const auto& entry : stats.at("creates").as_array()) {
    const std::string resource(entry.at("resource").as_string());
    const auto n = entry.at("created").to_number<std::uint64_t>();
    if (!is_child(resource) || n == 0) continue;
    ++findings.children_created;
    if (n > 1) {
      findings.duplicate_creates.push_back(
          resource + " " + std::string(entry.at("namespace").as_string()) + "/" +
          std::string(entry.at("name").as_string()) + " created " + std::to_string(n) + " times");
    }
  }
  for (const auto& left : left_of_created(client, stats)) {
    findings.left_after_deletion.push_back(left.what);
    if (left.being_deleted) findings.stuck_finalizers.push_back(left.what);
  }
}

void check_leadership(const std::string& request_log, Findings& findings) {
  std::ifstream in(request_log);
  if (!in) throw std::runtime_error("cannot read the request log " + request_log);
  const auto requests = sim::read_request_log(in);
  const sim::LeasePath lease{kNamespace, kLeaseName};
  const auto tenures = sim::lease_tenures(requests, lease, kLeaseDuration);
  findings.lease_tenures = tenures.size();
  for (const auto& r : sim::writes_without_lease(requests, tenures, lease, "nvcre/")) {
    findings.writes_while_not_leader.push_back(r.agent + " " + r.method + " " + r.path + " -> " +
                                               std::to_string(r.code) + " at " +
                                               std::to_string(r.t_us) + " us");
  }
}

void print_findings(const Findings& f) {
  auto list = [](const char* what, const std::vector<std::string>& items) {
    std::printf("%s: %zu\n", what, items.size());
    for (std::size_t i = 0; i < items.size() && i < 20; ++i)
      std::printf("    %s\n", items[i].c_str());
  };
  std::printf("expected verdicts reached: %zu/%zu (%.1f %%)\n", f.reached_expected,
              f.expected_verdicts,
              f.expected_verdicts == 0 ? 0.0
                                       : 100.0 * static_cast<double>(f.reached_expected) /
                                             static_cast<double>(f.expected_verdicts));
  list("wrong verdicts", f.wrong_verdicts);
  std::printf("children created: %zu\n", f.children_created);
  list("duplicate creates", f.duplicate_creates);
  list("objects left after deletion", f.left_after_deletion);
  list("finalizers stuck", f.stuck_finalizers);
  std::printf("leader tenures: %zu\n", f.lease_tenures);
  list("writes while not leader", f.writes_while_not_leader);
}

}  // namespace nvcre::soak
