// The reconcile golden suite against the real
// manager: every case folder of test/testdata/manager-reconcile/ starts kube-sim with a simulated
// GPU cluster and Trainer (actors/embedded), starts every nvcre controller on it, creates the
// case's objects through the API, drives it, and compares a sanitised snapshot with expected.json
// (UPDATE_GOLDEN=1 rewrites it; review every diff against the reference before accepting it).
//
// A case folder holds:
//   input.yaml   objects to create, in order (multi-document; namespace defaults to the case's). A
//                document's `status` is written through the status subresource after the create;
//                rarely needed, since the simulated Trainer really runs TrainJobs.
//   config.yaml  every key optional:
//     cluster: aws:h100:4             kube-sim profile PLATFORM:GPU:NODES (nodes gpu-node-00 ..)
//     faultyNodes: [NAME=REASON]      pods on these nodes fail with REASON
//     faultPlan: |                    kube-sim's fault plan (sim/fault_plan.hpp), set before the
//       seed: 1 ...                   manager starts
//     trainerStepMs: 30               the simulated Trainer's minimum time between stages
//     namespace: it                   where inputs go and what is listed
//     nodePatches: [{name, patch}]    merge patches on Nodes before the manager starts (taints,
//                                     topology labels, spec.unschedulable)
//     createBeforeManager: true       inputs are created (status too) before the manager starts,
//                                     so a seeded status does not race its first reconcile
//     steps: [{waitFor, patch: {kind, name, patch, status?}, delete: {kind, name}}]
//                                     run in order; a step's waitFor is awaited before its action
//     waitFor: {kind, name, condition, reason?}
//                                     polled until the condition is True with that reason; a wait
//                                     that cannot end (another verdict is True) or times out fails
//                                     the case naming what was awaited and the last status seen
//     deleteAfterWait: {kind, name}   then deleted (background), and
//     waitForDeletion: [{kind, name?}] polled until gone (no name: no object of the kind left)
//     events: [{kind, name, reason}]  these events must appear; then, once two reads 200 ms apart
//                                     agree, all the namespace's are recorded, sorted
//     collect: [{kind, name, fields?}] objects to record (fields: dotted paths to keep, e.g. pods),
//                                     read after waitFor and before deleteAfterWait
//     collectAll: [{kind, fields?}]   likewise every object of the kind in the namespace, by name
//     remaining: [kind]               names of the objects of these kinds still present at the end
//     timeline: [{kind, name?}]       every object of these kinds (or the named one) as the API
//                                     server saw it change, in resourceVersion order (its total
//                                     order): "Kind/name created | <True execution condition> |
//                                     deleting | deleted": causal order (one Workflow at a time,
//                                     dependencies before their Job) without timing; list only
//                                     objects whose changes are causally ordered
//     timeoutSeconds: 60              bound of every wait
//   expected.json  {"<Kind>/<name>": object, "events", "remaining", "timeline"}, keys sorted,
//                  objects through nvcre::testing::sanitize_object.
// Beyond sanitize_object, two run-dependent names are normalised everywhere in the output: the
// suffix of Trainer pod names (kube-sim derives it from the TrainJob's random UID) becomes
// "<suffix>", and node-result ConfigMaps (named after the first 8 characters of the Workflow UID)
// become "succeeded-nodes-<uid8>" / "failed-nodes-<uid8>", as the reference's sanitiser does. A
// Job's status.workloadStartTime is dropped (see collect_objects).
#include "manager/embedded/embedded_cluster.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/api_error.hpp"
#include "k8s/resource_mapper.hpp"
#include "sim/fault_plan.hpp"
#include "test/support/golden.hpp"
#include "test/support/sanitize.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace nvcre::testing {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(50);
constexpr auto kDefaultWaitTimeout = std::chrono::seconds(60);

// The apiVersion of every kind a case names; an entry may also give its own `apiVersion`.
std::string default_api_version(const std::string& kind) {
  static const std::map<std::string, std::string> versions{
      {"Certification", "nvcre.nvidia.com/v1alpha1"},
      {"Workflow", "nvcre.nvidia.com/v1alpha1"},
      {"Job", "nvcre.nvidia.com/v1alpha1"},
      {"WorkloadRun", "nvcre.nvidia.com/v1alpha1"},
      {"TrainJob", "trainer.kubeflow.org/v1alpha1"},
      {"TrainingRuntime", "trainer.kubeflow.org/v1alpha1"},
      {"ComputeDomain", "resource.nvidia.com/v1beta1"},
      {"ResourceClaimTemplate", "resource.k8s.io/v1"},
      {"Pod", "v1"},
      {"ConfigMap", "v1"},
      {"PersistentVolumeClaim", "v1"},
      {"Node", "v1"},
      {"Event", "events.k8s.io/v1"}};
  auto it = versions.find(kind);
  if (it == versions.end())
    throw std::runtime_error("the suite does not know kind " + kind + "; give apiVersion");
  return it->second;
}

std::string string_at(const json::value& object, const char* key,
                      const std::string& fallback = {}) {
  const auto* map = object.if_object();
  const auto* value = map ? map->if_contains(key) : nullptr;
  if (value == nullptr || value->is_null()) return fallback;
  if (!value->is_string())
    throw std::runtime_error(std::string("config key ") + key + " must be a string");
  return std::string(value->as_string());
}

const json::array& array_at(const json::value& object, const char* key) {
  static const json::array empty;
  const auto* map = object.if_object();
  const auto* value = map ? map->if_contains(key) : nullptr;
  if (value == nullptr || value->is_null()) return empty;
  if (!value->is_array())
    throw std::runtime_error(std::string("config key ") + key + " must be a list");
  return value->as_array();
}

const json::value* member(const json::value& object, const char* key) {
  const auto* map = object.if_object();
  return map ? map->if_contains(key) : nullptr;
}

// A config list entry that is either "Kind" or {kind: Kind, ...}.
std::string kind_of(const json::value& entry) {
  return entry.is_string() ? std::string(entry.as_string()) : string_at(entry, "kind");
}

// The True one of InProgress / Succeeded / Failed ("" when none is).
std::string execution_state(const json::value& object) {
  const auto* status = member(object, "status");
  const auto* conditions = status ? member(*status, "conditions") : nullptr;
  if (conditions == nullptr || !conditions->is_array()) return {};
  for (const auto& condition : conditions->as_array()) {
    const std::string type = string_at(condition, "type");
    if (string_at(condition, "status") == "True" &&
        (type == "InProgress" || type == "Succeeded" || type == "Failed")) {
      return type;
    }
  }
  return {};
}

const json::value* condition_of(const json::value& object, const std::string& type) {
  const auto* status = member(object, "status");
  const auto* conditions = status ? member(*status, "conditions") : nullptr;
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const auto& condition : conditions->as_array()) {
    if (string_at(condition, "type") == type) return &condition;
  }
  return nullptr;
}

// Objects with keys in sorted order, recursively: the golden is key-sorted.
json::value sorted(const json::value& value) {
  if (const auto* object = value.if_object()) {
    std::vector<std::string> keys;
    for (const auto& [key, child] : *object) keys.emplace_back(key);
    std::sort(keys.begin(), keys.end());
    json::object out;
    for (const auto& key : keys) out[key] = sorted(object->at(key));
    return out;
  }
  if (const auto* array = value.if_array()) {
    json::array out;
    for (const auto& child : *array) out.push_back(sorted(child));
    return out;
  }
  return value;
}

// Keeps only the dotted paths (e.g. "spec.tolerations") of an object, for bulky kinds such as Pods.
json::value project(const json::value& object, const json::array& fields) {
  if (fields.empty()) return object;
  json::object out;
  for (const auto& field : fields) {
    const std::string path(field.as_string());
    const json::value* from = &object;
    json::object* into = &out;
    std::stringstream parts(path);
    std::vector<std::string> segments;
    for (std::string segment; std::getline(parts, segment, '.');) segments.push_back(segment);
    for (std::size_t i = 0; i < segments.size() && from != nullptr; ++i) {
      from = member(*from, segments[i].c_str());
      if (from == nullptr) break;
      if (i + 1 == segments.size()) {
        (*into)[segments[i]] = *from;
      } else {
        auto& next = (*into)[segments[i]];
        if (!next.is_object()) next = json::object{};
        into = &next.as_object();
      }
    }
  }
  return out;
}

// Run-dependent names (see the header comment), replaced in every string of the output.
std::string normalise_text(const std::string& text) {
  static const std::regex pod_suffix("(-0-[0-9]+)-[bcdfghjklmnpqrstvwxz2456789]{5}(?![a-z0-9])");
  static const std::regex node_results("((?:succeeded|failed)-nodes)-[0-9a-f]{8}(?![a-z0-9])");
  return std::regex_replace(std::regex_replace(text, pod_suffix, "$1-<suffix>"), node_results,
                            "$1-<uid8>");
}

json::value normalise(const json::value& value) {
  if (const auto* text = value.if_string()) return json::value(normalise_text(std::string(*text)));
  if (const auto* object = value.if_object()) {
    json::object out;
    for (const auto& [key, child] : *object)
      out[normalise_text(std::string(key))] = normalise(child);
    return out;
  }
  if (const auto* array = value.if_array()) {
    json::array out;
    for (const auto& child : *array) out.push_back(normalise(child));
    return out;
  }
  return value;
}

class CaseRun {
 public:
  CaseRun(const GoldenCase& golden_case)
      : config_(golden_case.has_input("config.yaml")
                    ? jsonkit::parse_yaml(golden_case.input("config.yaml"))
                    : json::value(json::object{})),
        namespace_(string_at(config_, "namespace", "it")) {
    nvcre::manager::EmbeddedClusterOptions options;
    options.profile = string_at(config_, "cluster", "aws:h100:4");
    for (const auto& faulty : array_at(config_, "faultyNodes"))
      options.faulty_nodes.emplace_back(faulty.as_string());
    const auto* step = member(config_, "trainerStepMs");
    options.trainer_step = std::chrono::milliseconds(step ? step->to_number<std::int64_t>() : 30);
    options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
    options.namespaces = {namespace_};
    cluster_ = std::make_unique<nvcre::manager::EmbeddedCluster>(options);
    cluster_->start();
    if (const auto* plan = member(config_, "faultPlan"))
      cluster_->sim().api().faults().set_plan(sim::parse_fault_plan(plan->as_string()));
    client_ = &cluster_->client();
    mapper_ = std::make_unique<k8s::ResourceMapper>(*client_);
    if (golden_case.has_input("input.yaml"))
      inputs_ = jsonkit::parse_yaml_documents(golden_case.input("input.yaml"));
  }

  ~CaseRun() {
    manager_.reset();  // before the API server it talks to
    cluster_.reset();
  }

  std::string run() {
    for (const auto& patch : array_at(config_, "nodePatches")) {
      client_->merge_patch(resource("Node"), "", string_at(patch, "name"), patch.at("patch"));
    }
    const bool inputs_first = member(config_, "createBeforeManager") != nullptr;
    if (inputs_first) create_inputs();
    manager_ = std::make_unique<actors::Manager>(cluster_->manager_options("it"));
    manager_->start();
    wait_until(
        "the manager's caches to sync", [&] { return manager_->synced(); },
        [] { return std::string(); });
    if (!inputs_first) create_inputs();
    for (const auto& step : array_at(config_, "steps")) run_step(step);
    if (const auto* wait = member(config_, "waitFor")) wait_for(*wait);
    json::object out = collect_objects();  // before deleteAfterWait: the verdicts, not the remains
    if (const auto* target = member(config_, "deleteAfterWait")) {
      k8s::DeleteOptions background;
      background.propagation = k8s::PropagationPolicy::Background;
      client_->remove(resource(kind_of(*target), *target), namespace_, string_at(*target, "name"),
                      background);
    }
    for (const auto& gone : array_at(config_, "waitForDeletion")) wait_for_deletion(gone);
    collect_outcome(out);
    return jsonkit::to_pretty_json(sorted(normalise(out)));
  }

 private:
  k8s::ResourceRef resource(const std::string& kind, const json::value& entry = json::object{}) {
    std::string api_version = string_at(entry, "apiVersion");
    if (api_version.empty()) api_version = default_api_version(kind);
    return mapper_->resource_for(api_version, kind);
  }

  std::optional<json::value> find(const std::string& kind, const std::string& name,
                                  const json::value& entry = json::object{}) {
    try {
      return client_->get(resource(kind, entry), namespace_, name);
    } catch (const k8s::ApiError& error) {
      if (k8s::is_not_found(error)) return std::nullopt;
      throw;
    }
  }

  std::vector<json::value> list(const std::string& kind,
                                const json::value& entry = json::object{}) {
    const json::value answer = client_->list(resource(kind, entry), namespace_);
    std::vector<json::value> items(answer.at("items").as_array().begin(),
                                   answer.at("items").as_array().end());
    std::sort(items.begin(), items.end(), [](const json::value& a, const json::value& b) {
      return a.at("metadata").at("name").as_string() < b.at("metadata").at("name").as_string();
    });
    return items;
  }

  std::uint64_t current_resource_version() {
    const json::value answer = client_->list(resource("Node"), "");
    return std::stoull(std::string(answer.at("metadata").at("resourceVersion").as_string()));
  }

  void create_inputs() {
    start_rv_ = current_resource_version();
    for (const auto& object : inputs_) create_input(object);
  }

  void create_input(json::value object) {
    const std::string kind = string_at(object, "kind");
    const auto ref = mapper_->resource_for(string_at(object, "apiVersion"), kind);
    auto& metadata = object.as_object()["metadata"].as_object();
    if (ref.namespace_scoped && !metadata.contains("namespace")) metadata["namespace"] = namespace_;
    const std::string ns =
        ref.namespace_scoped ? std::string(metadata.at("namespace").as_string()) : std::string();
    std::optional<json::value> status;
    if (auto* given = object.as_object().if_contains("status")) status = *given;
    const json::value created = client_->create(ref, ns, object);
    if (status) {
      client_->merge_patch_status(ref, ns,
                                  std::string(created.at("metadata").at("name").as_string()),
                                  json::object{{"status", *status}});
    }
  }

  void run_step(const json::value& step) {
    if (const auto* wait = member(step, "waitFor")) wait_for(*wait);
    if (const auto* patch = member(step, "patch")) {
      const auto ref = resource(kind_of(*patch), *patch);
      const std::string name = string_at(*patch, "name");
      const auto* status = member(*patch, "status");
      if (status != nullptr && status->is_bool() && status->as_bool()) {
        client_->merge_patch_status(ref, namespace_, name, patch->at("patch"));
      } else {
        client_->merge_patch(ref, namespace_, name, patch->at("patch"));
      }
    }
    if (const auto* target = member(step, "delete")) {
      client_->remove(resource(kind_of(*target), *target), namespace_, string_at(*target, "name"));
    }
  }

  // Polls `done` until it holds; a timeout (or `done` throwing) fails the case with `last_seen`.
  template <typename Done, typename LastSeen>
  void wait_until(const std::string& what, Done done, LastSeen last_seen) {
    const auto* seconds = member(config_, "timeoutSeconds");
    const auto until = Clock::now() + (seconds ? std::chrono::seconds(seconds->to_number<int>())
                                               : kDefaultWaitTimeout);
    while (!done()) {
      if (Clock::now() >= until) {
        throw std::runtime_error("timed out waiting for " + what + "; last seen: " + last_seen());
      }
      std::this_thread::sleep_for(kPollInterval);
    }
  }

  void wait_for(const json::value& spec) {
    const std::string kind = kind_of(spec);
    const std::string name = string_at(spec, "name");
    const std::string type = string_at(spec, "condition");
    const std::string reason = string_at(spec, "reason");
    const std::string what =
        kind + "/" + name + " " + type + "=True" + (reason.empty() ? "" : " reason " + reason);
    std::optional<json::value> last;
    wait_until(
        what,
        [&] {
          last = find(kind, name, spec);
          if (!last) return false;
          const auto* condition = condition_of(*last, type);
          if (condition != nullptr && string_at(*condition, "status") == "True" &&
              (reason.empty() || string_at(*condition, "reason") == reason)) {
            return true;
          }
          // A verdict other than the awaited one never changes again: fail now, not at the timeout.
          const std::string state = execution_state(*last);
          if ((state == "Succeeded" || state == "Failed") && state != type) {
            throw std::runtime_error("waiting for " + what + ", but " + kind + "/" + name + " is " +
                                     state + ": " + json::serialize(last->at("status")));
          }
          return false;
        },
        [&] {
          return last ? json::serialize(last->as_object().contains("status") ? last->at("status")
                                                                             : json::value())
                      : std::string("(not found)");
        });
  }

  void wait_for_deletion(const json::value& spec) {
    const std::string kind = kind_of(spec);
    const std::string name = string_at(spec, "name");
    std::vector<std::string> present;
    wait_until(
        name.empty() ? "every " + kind + " to be gone" : kind + "/" + name + " to be gone",
        [&] {
          present.clear();
          if (!name.empty()) {
            if (find(kind, name, spec)) present.push_back(name);
          } else {
            for (const auto& item : list(kind, spec))
              present.emplace_back(item.at("metadata").at("name").as_string());
          }
          return present.empty();
        },
        [&] {
          std::string names;
          for (const auto& n : present) names += (names.empty() ? "" : ", ") + n;
          return kind + " still present: " + names;
        });
  }

  static std::string event_key(const json::value& e) {
    return string_at(e, "regarding") + "|" + string_at(e, "reason") + "|" + string_at(e, "type") +
           "|" + string_at(e, "note");
  }

  json::array events() {
    auto project_event = [](const json::value& event) {
      const auto& regarding = event.at("regarding");
      return json::value(json::object{
          {"type", event.at("type")},
          {"reason", event.at("reason")},
          {"regarding", string_at(regarding, "kind") + "/" + string_at(regarding, "name")},
          {"note", string_at(event, "note")}});
    };
    json::array recorded;
    auto read = [&] {
      recorded.clear();
      for (const auto& event : list("Event")) {
        recorded.push_back(project_event(event));
      }
      std::sort(recorded.begin(), recorded.end(), [](const json::value& a, const json::value& b) {
        return event_key(a) < event_key(b);
      });
    };
    // Events are written fire-and-forget after the status they announce: wait for these.
    std::string missing;
    wait_until(
        "the expected events",
        [&] {
          read();
          missing.clear();
          for (const auto& expected : array_at(config_, "events")) {
            const std::string regarding = kind_of(expected) + "/" + string_at(expected, "name");
            const std::string reason = string_at(expected, "reason");
            const bool seen =
                std::any_of(recorded.begin(), recorded.end(), [&](const json::value& e) {
                  return string_at(e, "regarding") == regarding && string_at(e, "reason") == reason;
                });
            if (!seen) missing += (missing.empty() ? "" : ", ") + regarding + " " + reason;
          }
          return missing.empty();
        },
        [&] { return "missing " + missing + " in " + json::serialize(recorded); });
    // Events of other objects are posted concurrently: settle on two equal reads in a row.
    json::array previous;
    wait_until(
        "the events to settle",
        [&] {
          previous = recorded;
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          read();
          return recorded == previous;
        },
        [&] { return json::serialize(recorded); });
    return recorded;
  }

  // Every change of the timeline kinds since the case began, replayed from the API server's watch
  // history and merged by resourceVersion.
  json::array timeline() {
    const std::uint64_t end_rv = current_resource_version();
    std::map<std::uint64_t, std::vector<std::pair<std::string, json::value>>>
        changes;  // rv -> (type, object)
    for (const auto& entry : array_at(config_, "timeline")) {
      const std::string kind = kind_of(entry);
      bool caught_up = false;
      k8s::WatchOptions options;
      options.resource_version = std::to_string(start_rv_);
      options.timeout_seconds = 5;
      client_->watch(resource(kind, entry), namespace_, options, [&](const k8s::WatchEvent& event) {
        if (event.type == k8s::WatchEventType::Error) {
          throw std::runtime_error("timeline watch of " + kind +
                                   " failed: " + json::serialize(event.object));
        }
        const std::uint64_t rv = std::stoull(event.resource_version());
        const std::string only = string_at(entry, "name");
        if (event.type != k8s::WatchEventType::Bookmark &&
            (only.empty() || string_at(event.object.at("metadata"), "name") == only)) {
          changes[rv].emplace_back(std::string(k8s::to_string(event.type)), event.object);
        }
        if (rv < end_rv) return k8s::WatchControl::Continue;
        caught_up = true;
        return k8s::WatchControl::Stop;
      });
      if (!caught_up)
        throw std::runtime_error("timeline watch of " + kind +
                                 " ended before the case's last change");
    }
    json::array entries;
    std::map<std::string, std::string> last_state;  // Kind/name -> last recorded state
    for (const auto& [rv, at_rv] : changes) {
      for (const auto& [type, object] : at_rv) {
        const std::string id =
            string_at(object, "kind") + "/" + string_at(object.at("metadata"), "name");
        std::string state;
        if (type == "ADDED") {
          state = "created";
        } else if (type == "DELETED") {
          state = "deleted";
        } else if (member(object.at("metadata"), "deletionTimestamp") != nullptr) {
          state = "deleting";
        } else {
          state = execution_state(object);
        }
        if (state.empty() || last_state[id] == state) continue;
        last_state[id] = state;
        entries.push_back(json::value(id + " " + state));
      }
    }
    return entries;
  }

  json::object collect_objects() {
    json::object out;
    auto record = [&](const json::value& object, const json::array& fields) {
      const std::string kind = string_at(object, "kind");
      json::value clean = sanitize_object(object);
      // A Job sets workloadStartTime only if a reconcile saw its TrainJob Running, and kube-sim's
      // Trainer may run and finish a TrainJob between two of them: its presence is timing.
      if (auto* status = kind == "Job" ? clean.as_object().if_contains("status") : nullptr;
          status && status->is_object()) {
        status->as_object().erase("workloadStartTime");
      }
      out[kind + "/" + string_at(object.at("metadata"), "name")] = project(clean, fields);
    };
    for (const auto& entry : array_at(config_, "collect")) {
      const std::string kind = kind_of(entry);
      const std::string name = string_at(entry, "name");
      auto object = find(kind, name, entry);
      if (!object) throw std::runtime_error("collect: " + kind + "/" + name + " not found");
      record(*object, array_at(entry, "fields"));
    }
    for (const auto& entry : array_at(config_, "collectAll")) {
      for (const auto& object : list(kind_of(entry), entry))
        record(object, array_at(entry, "fields"));
    }
    return out;
  }

  // What the whole case left behind: its events, the surviving objects, the order of changes.
  void collect_outcome(json::object& out) {
    if (member(config_, "events") != nullptr) out["events"] = events();
    if (member(config_, "remaining") != nullptr) {
      json::object remaining;
      for (const auto& entry : array_at(config_, "remaining")) {
        json::array names;
        for (const auto& object : list(kind_of(entry), entry))
          names.push_back(object.at("metadata").at("name"));
        remaining[kind_of(entry)] = std::move(names);
      }
      out["remaining"] = std::move(remaining);
    }
    if (member(config_, "timeline") != nullptr) out["timeline"] = timeline();
  }

  json::value config_;
  std::string namespace_;
  std::vector<json::value> inputs_;
  std::unique_ptr<nvcre::manager::EmbeddedCluster> cluster_;
  k8s::RestClient* client_ = nullptr;
  std::unique_ptr<k8s::ResourceMapper> mapper_;
  std::unique_ptr<actors::Manager> manager_;
  std::uint64_t start_rv_ = 0;
};

class ManagerReconcileSuite : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ManagerReconcileSuite, MatchesGolden) {
  check_golden(GetParam(),
               [](const GoldenCase& golden_case) { return CaseRun(golden_case).run(); });
}

NVCRE_GOLDEN_SUITE(ManagerReconcileSuite, "manager-reconcile");

}  // namespace
}  // namespace nvcre::testing
