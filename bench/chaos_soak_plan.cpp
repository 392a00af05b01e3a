// The soak's Certifications, its fault plan, and the driver's patient API calls.
#include "bench/chaos_soak.hpp"

#include "k8s/api_error.hpp"
#include "sim/cluster_profile.hpp"
#include "test/support/verdict.hpp"

#include <thread>

namespace nvcre::soak {

using namespace std::chrono_literals;

const char* to_string(Mix mix) {
  switch (mix) {
    case Mix::Nccl:
      return "nccl";
    case Mix::Training:
      return "training";
    case Mix::Diagnose:
      return "diagnose";
    case Mix::Dcgm:
      return "dcgm";
  }
  return "?";
}

namespace {

// The diagnose Certifications sharing one faulty node (one GPU per pod: eight fit on it).
constexpr int kDiagnosePerFaultyNode = 8;

int own_nodes(Mix mix) {
  switch (mix) {
    case Mix::Nccl:
      return 2;
    case Mix::Training:
      return 1;
    case Mix::Diagnose:
      return 3;  // plus its faulty node
    case Mix::Dcgm:
      return 1;
  }
  return 1;
}

json::object category(Mix mix) {
  switch (mix) {
    case Mix::Nccl:
      return {{"domain", "communication"},
              {"variant", "nccl-all-reduce"},
              {"options", {{"nodesPerJob", 2}, {"gpusPerNode", 1}}}};
    case Mix::Training:
      return {{"domain", "training"},
              {"variant", "nemotron5-8b"},
              {"options",
               {{"nodesPerJob", 1},
                {"maxSteps", 50},
                {"enableCheckpoint", true},
                {"saveInterval", 20}}}};
    case Mix::Diagnose:
      return {{"domain", "communication"},
              {"variant", "nccl-all-reduce"},
              {"options", {{"nodesPerJob", 2}, {"gpusPerNode", 1}, {"testScale", "diagnose"}}}};
    case Mix::Dcgm:
      return {
          {"domain", "diagnostics"}, {"variant", "dcgm-level1"}, {"options", {{"nodesPerJob", 1}}}};
  }
  return {};
}

json::value certification(const std::string& name, Mix mix, const std::vector<std::string>& nodes) {
  return bench::certification_on_nodes(name, kNamespace, nodes, category(mix));
}

}  // namespace

Layout plan_layout(int certifications, const std::vector<Mix>& mixes) {
  Layout layout;
  int own = 0, diagnose = 0;
  std::vector<Mix> chosen;
  for (int i = 0; i < certifications; ++i) {
    chosen.push_back(mixes[static_cast<std::size_t>(i) % mixes.size()]);
    own += own_nodes(chosen.back());
    if (chosen.back() == Mix::Diagnose) ++diagnose;
  }
  const int faulty = (diagnose + kDiagnosePerFaultyNode - 1) / kDiagnosePerFaultyNode;
  layout.node_count = own + faulty;
  for (int f = 0; f < faulty; ++f)
    layout.faulty_nodes.push_back(sim::profile_node_name(own + f, layout.node_count));
  int next = 0, diagnose_index = 0;
  for (int i = 0; i < certifications; ++i) {
    Planned p;
    p.mix = chosen[static_cast<std::size_t>(i)];
    p.name = "soak-" + std::string(to_string(p.mix)) + "-" + std::to_string(i);
    for (int k = 0; k < own_nodes(p.mix); ++k)
      p.nodes.push_back(sim::profile_node_name(next++, layout.node_count));
    if (p.mix == Mix::Diagnose) {
      p.faulty_node =
          layout.faulty_nodes[static_cast<std::size_t>(diagnose_index++ / kDiagnosePerFaultyNode)];
      p.nodes.push_back(p.faulty_node);
    }
    p.object = certification(p.name, p.mix, p.nodes);
    layout.certifications.push_back(std::move(p));
  }
  return layout;
}

std::string fault_plan_yaml(std::uint64_t seed) {
  std::string plan = "seed: " + std::to_string(seed) + "\nverbs:\n";
  for (const char* verb : {"get", "list", "create", "update", "patch", "delete", "watch"}) {
    const std::string v = verb;
    const bool write = v == "create" || v == "update" || v == "patch" || v == "delete";
    plan += "  " + v + ":\n    errors:\n";
    plan += "    - {code: 500, rate: 0.025}\n    - {code: 503, rate: 0.025}\n";
    if (write) plan += "    - {code: 409, rate: 0.02}\n";
    plan += "    - {code: 429, rate: 0.01, retryAfterSeconds: 1}\n";
    plan += "    latency: {fixedMs: 1, jitterMs: 19}\n";
    if (v == "watch") plan += "    forceGoneRate: 0.1\n    dropEverySeconds: 2\n";
  }
  return plan;
}

void create_until_done(k8s::RestClient& client, const k8s::ResourceRef& ref, const json::value& o) {
  const std::string ns(o.at("metadata").at("namespace").as_string());
  for (;;) {
    try {
      client.create(ref, ns, o);
      return;
    } catch (const k8s::ApiError& e) {
      if (k8s::is_already_exists(e)) return;  // an earlier try went through, its answer lost
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(20ms);
  }
}

void delete_until_gone(k8s::RestClient& client, const k8s::ResourceRef& ref,
                       const std::string& name) {
  for (;;) {
    try {
      client.remove(ref, kNamespace, name);
      return;
    } catch (const k8s::ApiError& e) {
      if (k8s::is_not_found(e)) return;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(20ms);
  }
}

json::value list_until_answered(k8s::RestClient& client, const k8s::ResourceRef& ref,
                                const std::string& ns) {
  for (;;) {
    try {
      return client.list(ref, ns);
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(20ms);
  }
}

json::value get_until_answered(k8s::RestClient& client, const k8s::ResourceRef& ref,
                               const std::string& ns, const std::string& name) {
  for (;;) {
    try {
      return client.get(ref, ns, name);
    } catch (const k8s::ApiError& e) {
      if (k8s::is_not_found(e)) throw;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(20ms);
  }
}

std::size_t count_verdicts(const json::value& list) {
  std::size_t n = 0;
  for (const auto& item : list.at("items").as_array())
    if (!nvcre::testing::verdict_of(item).type.empty()) ++n;
  return n;
}

// What is left of the run's children in the namespace (objects with an owner).
std::size_t owned_left(k8s::RestClient& client) {
  static const std::vector<k8s::ResourceRef> kinds{bench::kWorkflows,
                                                   bench::kJobs,
                                                   bench::kTrainJobs,
                                                   {"", "v1", "configmaps", true},
                                                   {"", "v1", "pods", true}};
  std::size_t n = 0;
  for (const auto& kind : kinds) {
    const json::value list = list_until_answered(client, kind, kNamespace);
    for (const auto& item : list.at("items").as_array())
      if (item.at("metadata").as_object().contains("ownerReferences")) ++n;
  }
  return n;
}

}  // namespace nvcre::soak
