#pragma once
// Node health monitoring of a running Job: the Job's health rule (spec.nodeHealthMonitor.cel,
// any boolean CEL expression over `node`, see node_health_rule.hpp) is evaluated on every node
// the Job's Running or Pending pods are on; a node it holds for is reported as HardwareFailed /
// HardwareFailureDetected and added to failedNodes. A rule the engine cannot run is refused before
// the workload is created (see health_rule_problem), never silently skipped.
#include "api/job.hpp"
#include "job/job_pass.hpp"
#include "job/job_status.hpp"

#include <optional>
#include <string>

namespace nvcre::job::detail {

// The failure message for a configured rule that does not compile or is not boolean, else
// nullopt: "spec.nodeHealthMonitor.cel.expression: CEL compilation error: ...".
std::optional<std::string> health_rule_problem(const api::Job& job);

// Evaluates the rule over the nodes of the Job's Running/Pending pods (cached Nodes only; a node
// missing from the cache is skipped, as a node the rule fails to evaluate on is). New (node,
// reason) pairs are merged into failedNodes (never removed) and set HardwareFailed=True with the
// names of every failed node, with a Warning event when the condition flips.
void check_node_health(const JobPass& pass, JobStatusDraft& draft);

}  // namespace nvcre::job::detail
