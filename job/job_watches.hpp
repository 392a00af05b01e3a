#pragma once
// Which Job keys a Node event enqueues, as a pure function for the actor shell: Watches(Node)
// through the pods bound to the node. (For(Job) and Owns(TrainJob) are the shell's own mapping.)
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <string_view>
#include <vector>

namespace nvcre::job {

// Where a pod names its node (a JSON pointer): the manager's cache indexes it, because a relist
// brings one Node notice per node and each would otherwise read every cached pod.
inline constexpr std::string_view kPodNodeNamePointer = "/spec/nodeName";

// Every Job named by the `nvcre.nvidia.com/job` label of a cached pod bound to `node_name`, sorted.
std::vector<k8s::ObjectRef> jobs_on_node(const k8s::CacheView& cache, std::string_view node_name);

}  // namespace nvcre::job
