#include "sim/trainer_scheduler.hpp"

#include "jsonkit/paths.hpp"
#include "sim/trainer_pods.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <optional>

namespace nvcre::sim::trainer {

namespace json = boost::json;
using jsonkit::find_array;
using jsonkit::find_object;
using jsonkit::find_string;

namespace {

const json::object* labels_of(const json::value& object) {
  const auto* root = object.if_object();
  return root ? find_object(*root, {"metadata", "labels"}) : nullptr;
}

// kube-scheduler's NodeSelectorRequirement semantics for labels (matchExpressions).
bool requirement_matches(const json::object& requirement, const json::object* labels) {
  const auto* key = find_string(&requirement, "key");
  const auto* op = find_string(&requirement, "operator");
  if (key == nullptr || op == nullptr) return false;
  const json::value* label = labels ? labels->if_contains(*key) : nullptr;
  const std::string value =
      label && label->is_string() ? std::string(label->as_string()) : std::string();
  std::vector<std::string> values;
  if (const auto* list = find_array(requirement, {"values"}))
    for (const auto& v : *list)
      if (v.is_string()) values.emplace_back(v.as_string());
  const bool listed = std::find(values.begin(), values.end(), value) != values.end();
  if (*op == "In") return label != nullptr && listed;
  if (*op == "NotIn") return label == nullptr || !listed;
  if (*op == "Exists") return label != nullptr;
  if (*op == "DoesNotExist") return label == nullptr;
  if ((*op == "Gt" || *op == "Lt") && label != nullptr && values.size() == 1) {
    const json::value have(value), want(values.front());
    const std::int64_t a = jsonkit::integer_of(&have, 0), b = jsonkit::integer_of(&want, 0);
    return *op == "Gt" ? a > b : a < b;
  }
  return false;
}

bool term_matches(const json::object& term, const json::value& node) {
  const auto* expressions = find_array(term, {"matchExpressions"});
  const auto* fields = find_array(term, {"matchFields"});
  if ((!expressions || expressions->empty()) && (!fields || fields->empty()))
    return false;  // an empty term matches nothing
  const auto* labels = labels_of(node);
  if (expressions)
    for (const auto& e : *expressions)
      if (!e.is_object() || !requirement_matches(e.as_object(), labels)) return false;
  if (fields) {
    const json::object name_only{{"metadata.name", node.at("metadata").at("name")}};
    for (const auto& f : *fields)
      if (!f.is_object() || !requirement_matches(f.as_object(), &name_only)) return false;
  }
  return true;
}

bool selector_and_affinity_match(const json::object& pod_spec, const json::value& node) {
  const auto* labels = labels_of(node);
  if (const auto* selector = find_object(pod_spec, {"nodeSelector"}))
    for (const auto& [key, want] : *selector) {
      const json::value* have = labels ? labels->if_contains(key) : nullptr;
      if (have == nullptr || *have != want) return false;
    }
  const auto* terms =
      find_array(pod_spec, {"affinity", "nodeAffinity",
                            "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  if (terms == nullptr) return true;
  return std::any_of(terms->begin(), terms->end(), [&](const json::value& term) {
    return term.is_object() && term_matches(term.as_object(), node);
  });
}

std::string_view string_or_empty(const json::object* object, std::string_view key) {
  const auto* value = find_string(object, key);
  return value ? std::string_view(*value) : std::string_view();
}

// core/v1 Toleration.ToleratesTaint.
bool tolerates(const json::array* tolerations, const json::object& taint) {
  if (tolerations == nullptr) return false;
  for (const auto& item : *tolerations) {
    const auto* t = item.if_object();
    if (t == nullptr) continue;
    const auto effect = string_or_empty(t, "effect");
    if (!effect.empty() && effect != string_or_empty(&taint, "effect")) continue;
    const auto key = string_or_empty(t, "key");
    const bool exists = string_or_empty(t, "operator") == "Exists";
    if (key.empty()
            ? exists
            : key == string_or_empty(&taint, "key") &&
                  (exists || string_or_empty(t, "value") == string_or_empty(&taint, "value")))
      return true;
  }
  return false;
}

// The first NoSchedule/NoExecute taint the pod does not tolerate, or nullopt.
std::optional<json::object> untolerated_taint(const json::object& pod_spec,
                                              const json::value& node) {
  std::vector<json::object> taints;
  const auto& object = node.as_object();
  if (const auto* list = find_array(object, {"spec", "taints"}))
    for (const auto& t : *list)
      if (t.is_object()) taints.push_back(t.as_object());
  if (const auto* spec = find_object(object, {"spec"});
      spec && spec->if_contains("unschedulable") && spec->at("unschedulable") == json::value(true))
    taints.push_back({{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}});
  if (const auto* conditions = find_array(object, {"status", "conditions"}))
    for (const auto& c : *conditions)
      if (const auto* type = find_string(c.if_object(), "type"); type && *type == "Ready")
        if (const auto* status = find_string(c.if_object(), "status"); status && *status != "True")
          taints.push_back({{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
  const auto* tolerations = find_array(pod_spec, {"tolerations"});
  for (const auto& taint : taints) {
    const auto* effect = find_string(&taint, "effect");
    if (effect && (*effect == "NoSchedule" || *effect == "NoExecute") &&
        !tolerates(tolerations, taint))
      return taint;
  }
  return std::nullopt;
}

}  // namespace

std::int64_t gpu_request(const json::object& pod_spec) {
  std::int64_t total = 0;
  if (const auto* containers = find_array(pod_spec, {"containers"}))
    for (const auto& c : *containers) {
      if (!c.is_object()) continue;
      const auto* limits = find_object(c.as_object(), {"resources", "limits"});
      const auto* requests = find_object(c.as_object(), {"resources", "requests"});
      const json::value* gpus = limits ? limits->if_contains("nvidia.com/gpu") : nullptr;
      if (gpus == nullptr && requests) gpus = requests->if_contains("nvidia.com/gpu");
      total += std::max<std::int64_t>(0, jsonkit::integer_of(gpus, 0));
    }
  return total;
}

std::optional<std::pair<std::string, std::int64_t>> gpus_held(const json::value& pod) {
  const std::string phase = pod_phase(pod), bound = pod_node(pod);
  if (bound.empty() || phase == "Succeeded" || phase == "Failed") return std::nullopt;
  const auto* spec = find_object(pod.as_object(), {"spec"});
  return std::make_pair(bound, spec != nullptr ? gpu_request(*spec) : 0);
}

NodePicker::Nodes sorted_nodes(std::vector<json::value> nodes) {
  std::sort(nodes.begin(), nodes.end(), [](const json::value& a, const json::value& b) {
    return a.at("metadata").at("name").as_string() < b.at("metadata").at("name").as_string();
  });
  auto list = std::make_shared<NodeList>();
  list->nodes = std::move(nodes);
  for (std::size_t i = 0; i < list->nodes.size(); ++i) {
    const auto* labels = labels_of(list->nodes[i]);
    if (const auto* hostname = find_string(labels, "kubernetes.io/hostname"))
      list->by_hostname[std::string(*hostname)].push_back(i);
  }
  return list;
}

NodePicker::NodePicker(Nodes nodes, const std::map<std::string, std::int64_t>& gpus_in_use)
    : nodes_(std::move(nodes)) {
  for (const auto& node : nodes_->nodes) {
    const std::string name(node.at("metadata").at("name").as_string());
    const auto* allocatable = find_object(node.as_object(), {"status", "allocatable"});
    auto used = gpus_in_use.find(name);
    free_gpus_[name] =
        jsonkit::integer_of(allocatable ? allocatable->if_contains("nvidia.com/gpu") : nullptr, 0) -
        (used == gpus_in_use.end() ? 0 : used->second);
  }
}

NodePicker::Placement NodePicker::place(const json::object& pod_spec,
                                        const std::set<std::string>& taken) {
  const std::int64_t gpus = gpu_request(pod_spec);
  std::map<std::string, int> reasons;  // kube-scheduler's per-reason node counts
  const auto& all = nodes_->nodes;
  const auto named = named_nodes(pod_spec);
  if (named && named->size() < all.size())
    reasons["node(s) didn't match Pod's node affinity/selector"] +=
        static_cast<int>(all.size() - named->size());
  const std::size_t count = named ? named->size() : all.size();
  for (std::size_t i = 0; i < count; ++i) {
    const json::value& node = all[named ? (*named)[i] : i];
    const std::string name(node.at("metadata").at("name").as_string());
    if (!selector_and_affinity_match(pod_spec, node)) {
      ++reasons["node(s) didn't match Pod's node affinity/selector"];
    } else if (auto taint = untolerated_taint(pod_spec, node)) {
      ++reasons["node(s) had untolerated taint {" + std::string(string_or_empty(&*taint, "key")) +
                ": " + std::string(string_or_empty(&*taint, "value")) + "}"];
    } else if (taken.contains(name)) {
      ++reasons["node(s) already run a pod of this replicated job"];
    } else if (gpus > 0 && free_gpus_[name] < gpus) {
      ++reasons["Insufficient nvidia.com/gpu"];
    } else {
      free_gpus_[name] -= gpus;
      return {name, {}};
    }
  }
  std::string message = "0/" + std::to_string(all.size()) + " nodes are available";
  std::string separator = ": ";
  for (const auto& [reason, count] : reasons) {
    message += separator + std::to_string(count) + " " + reason;
    separator = ", ";
  }
  return {{}, message + "."};
}

const json::value* NodePicker::node(const std::string& name) const {
  const auto& all = nodes_->nodes;
  auto it =
      std::lower_bound(all.begin(), all.end(), name, [](const json::value& node, const auto& n) {
        return node.at("metadata").at("name").as_string() < n;
      });
  return it != all.end() && it->at("metadata").at("name").as_string() == name ? &*it : nullptr;
}

std::optional<std::vector<std::size_t>> NodePicker::named_nodes(
    const json::object& pod_spec) const {
  const auto* terms =
      find_array(pod_spec, {"affinity", "nodeAffinity",
                            "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  if (terms == nullptr) return std::nullopt;
  std::set<std::size_t> positions;
  // A term's requirements all hold for a node it matches: one that names nodes bounds the term.
  auto term_names_nodes = [&](const json::object& term) {
    for (const char* list : {"matchExpressions", "matchFields"}) {
      const auto* requirements = find_array(term, {list});
      if (requirements == nullptr) continue;
      for (const auto& r : *requirements) {
        const auto* key = find_string(r.if_object(), "key");
        const auto* op = find_string(r.if_object(), "operator");
        const auto* values = r.is_object() ? find_array(r.as_object(), {"values"}) : nullptr;
        const bool by_name = std::string_view(list) == "matchFields";
        if (key == nullptr || op == nullptr || values == nullptr || *op != "In" ||
            *key != (by_name ? "metadata.name" : "kubernetes.io/hostname"))
          continue;
        for (const auto& v : *values) {
          if (!v.is_string()) continue;
          if (by_name) {
            if (const auto* node = this->node(std::string(v.as_string())))
              positions.insert(static_cast<std::size_t>(node - nodes_->nodes.data()));
          } else if (auto it = nodes_->by_hostname.find(std::string(v.as_string()));
                     it != nodes_->by_hostname.end()) {
            positions.insert(it->second.begin(), it->second.end());
          }
        }
        return true;
      }
    }
    return false;
  };
  for (const auto& term : *terms)
    if (!term.is_object() || !term_names_nodes(term.as_object())) return std::nullopt;
  return std::vector<std::size_t>(positions.begin(), positions.end());
}

}  // namespace nvcre::sim::trainer
