#include "job/job_watches.hpp"

#include "api/meta.hpp"
#include "job/job_pass.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>

#include <set>
#include <tuple>

namespace nvcre::job {
namespace json = boost::json;
using detail::string_at;
using detail::value_at;

namespace {

using Triples = std::set<std::tuple<std::string, std::string, std::string>>;

// (a, b, c) of every entry of the array at `path`; order-insensitive, as a set.
Triples entries(const json::value& node, std::initializer_list<std::string_view> path,
                std::string_view a, std::string_view b, std::string_view c) {
  Triples out;
  const json::value* list = value_at(node, path);
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& item : list->get_array()) {
    out.emplace(string_at(item, {a}), string_at(item, {b}),
                c.empty() ? std::string() : string_at(item, {c}));
  }
  return out;
}

bool unschedulable(const json::value& node) {
  const json::value* value = value_at(node, {"spec", "unschedulable"});
  return value != nullptr && value->is_bool() && value->get_bool();
}

}  // namespace

std::optional<k8s::ObjectRef> controlling_job(const json::value& child) {
  const json::value* refs = value_at(child, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) return std::nullopt;
  for (const auto& ref : refs->get_array()) {
    const json::value* controller = value_at(ref, {"controller"});
    if (string_at(ref, {"kind"}) == api::Job::kKind &&
        string_at(ref, {"apiVersion"}) == api::kApiVersion && controller != nullptr &&
        controller->is_bool() && controller->get_bool()) {
      return k8s::ObjectRef{std::string(api::kApiVersion), std::string(api::Job::kKind),
                            string_at(child, {"metadata", "namespace"}), string_at(ref, {"name"})};
    }
  }
  return std::nullopt;
}

bool node_event_passes(const json::value* old_node, const json::value& new_node) {
  if (old_node == nullptr) return true;
  return entries(*old_node, {"status", "conditions"}, "type", "status", "") !=
             entries(new_node, {"status", "conditions"}, "type", "status", "") ||
         entries(*old_node, {"spec", "taints"}, "key", "value", "effect") !=
             entries(new_node, {"spec", "taints"}, "key", "value", "effect") ||
         k8s::labels_of(*old_node) != k8s::labels_of(new_node) ||
         unschedulable(*old_node) != unschedulable(new_node);
}

std::vector<k8s::ObjectRef> jobs_on_node(const k8s::CacheView& cache, std::string_view node_name) {
  std::set<k8s::ObjectRef> jobs;
  for (const json::value* pod : cache.list("v1", "Pod", "")) {
    if (string_at(*pod, {"spec", "nodeName"}) != node_name) continue;
    const std::string job = string_at(*pod, {"metadata", "labels", trainjob::kJobLabel});
    if (job.empty()) continue;
    jobs.insert(k8s::ObjectRef{std::string(api::kApiVersion), std::string(api::Job::kKind),
                               string_at(*pod, {"metadata", "namespace"}), job});
  }
  return {jobs.begin(), jobs.end()};
}

}  // namespace nvcre::job
