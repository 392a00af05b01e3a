#pragma once
// Node-result ConfigMaps: `succeeded-nodes-<uid8>` holds the
// gzip of the sorted, de-duplicated, comma-joined passing nodes; `failed-nodes-<uid8>` the gzip of
// a JSON array of {name, reason, message}, de-duplicated by (name, reason) and sorted. Both are
// owned (controller reference) by the Workflow and merged into rather than overwritten. External
// consumers (NVSentinel) read these keys, so the contract is kept exactly.
#include "api/common_types.hpp"
#include "api/workflow.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow {

inline constexpr std::string_view kSucceededNodesKey = "succeeded-nodes.csv.gz";
inline constexpr std::string_view kFailedNodesKey = "failed-nodes.json.gz";

// RFC 1952 gzip (mtime 0) and its inverse; gunzip throws std::runtime_error on corrupt input.
std::string gzip(std::string_view data);
std::string gunzip(std::string_view data);
std::string base64_encode(std::string_view data);

std::string succeeded_nodes_configmap_name(
    std::string_view workflow_uid);                                      // succeeded-nodes-<uid8>
std::string failed_nodes_configmap_name(std::string_view workflow_uid);  // failed-nodes-<uid8>

// Union by (name, reason), sorted by name then reason; nameless entries dropped.
std::vector<api::FailedNode> merge_failed_nodes(const std::vector<api::FailedNode>& existing,
                                                const std::vector<api::FailedNode>& incoming);

enum class NodeResultKind { Succeeded, Failed };

struct NodeResultWrite {
  k8s::Action action;  // Create, or Update carrying the holder's resourceVersion
  std::string name;    // ConfigMap name, for the status ref
};

// The write merging `succeeded` (kind Succeeded) or `failed` (kind Failed) into the ConfigMap
// `existing` (the cached or live holder; nullptr: create it). nullopt when the entries are empty or
// already all recorded. Throws std::runtime_error when the stored payload cannot be decoded.
std::optional<NodeResultWrite> node_results_write(NodeResultKind kind,
                                                  const api::Workflow& workflow,
                                                  const boost::json::value* existing,
                                                  const std::vector<std::string>& succeeded,
                                                  const std::vector<api::FailedNode>& failed);

}  // namespace nvcre::workflow
