#pragma once
// Which Job keys a watch event enqueues, as pure functions for the actor
// shell: For(Job); Owns(TrainJob) through the controller owner reference; Watches(Node) through
// the pods bound to the node, passing creates and the updates the health rule can see.
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace nvcre::job {

// The Job controlling `child` (a TrainJob), if any.
std::optional<k8s::ObjectRef> controlling_job(const boost::json::value& child);

// Node create (old == nullptr) or an update that changes condition statuses, taints (key, value,
// effect), labels or spec.unschedulable. Deletes are not passed.
bool node_event_passes(const boost::json::value* old_node, const boost::json::value& new_node);

// Every Job named by the `nvcre.nvidia.com/job` label of a cached pod bound to `node_name`, sorted.
std::vector<k8s::ObjectRef> jobs_on_node(const k8s::CacheView& cache, std::string_view node_name);

}  // namespace nvcre::job
