#pragma once
// Node health monitoring of a running Job, default rule only: a node the
// Job's Running or Pending pods are on whose `spec.unschedulable` is true (cordoned) is reported
// as HardwareFailed / HardwareFailureDetected and added to failedNodes. Any other CEL expression
// is refused up front (see unsupported_health_rule), never silently skipped.
#include "api/job.hpp"
#include "job/job_pass.hpp"
#include "job/job_status.hpp"

#include <optional>
#include <string>

namespace nvcre::job::detail {

// The message for a configured expression that is not exactly the default rule, else nullopt.
std::optional<std::string> unsupported_health_rule(const api::Job& job);

// Evaluates the default rule over the nodes of the Job's Running/Pending pods (cached Nodes only;
// a node missing from the cache is skipped, as an evaluation error is). New (node, reason) pairs
// are merged into failedNodes and set HardwareFailed=True, with a Warning event when it flips.
void check_node_health(const JobPass& pass, JobStatusDraft& draft);

}  // namespace nvcre::job::detail
