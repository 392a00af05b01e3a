#pragma once
// Failing a Job and attributing the failure: the Failed verdict, the failure
// log of the failing container and, when no node was blamed yet, the group's nodes.
#include "api/common_types.hpp"
#include "api/job.hpp"
#include "job/job_pass.hpp"
#include "job/job_status.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::job::detail {

struct FailureAttribution {
  bool capture_log = true;      // record status.failureLog when empty
  bool attribute_nodes = true;  // blame the group's nodes when status.failedNodes is empty
};

// setJobFailed: exclusive Failed (skipped when already terminal) with, in the same write, the
// failure log and the node attribution. When the failing container's log is needed and not in
// the input, only the log request is added to the pass (which then stops). Failures before any
// workload ran (spec problems, name collisions) pass {false, false}: no node is to blame.
void fail_job(JobPass& pass, JobStatusDraft& draft, std::string_view reason,
              std::string_view message, FailureAttribution attribution = {});

// Group nodes: the group-nodes annotation (split, trimmed, de-duplicated, sorted); without it
// (Unpinned) the nodes the Job's pods are bound to.
std::vector<std::string> group_nodes(const api::Job& job,
                                     const std::vector<const boost::json::value*>& pods);

// Adds the (name, reason) pairs not yet present; the list stays sorted by name, then reason.
// Returns whether anything was added.
bool merge_failed_nodes(std::vector<api::FailedNode>& into,
                        const std::vector<api::FailedNode>& more);

// The container whose failure is reported: the first terminated with a non-zero exit code,
// preferring OOMKilled (containers, then init containers; the current state before the last one).
struct FailedContainer {
  std::string pod;
  std::string node;
  std::string container;
  std::int32_t exit_code = 0;
  std::string reason;
  bool previous = false;
};
std::optional<FailedContainer> find_failed_container(
    const std::vector<const boost::json::value*>& pods);

// The last `max_bytes` of `text`, not starting inside a UTF-8 sequence.
std::string tail_bytes(std::string_view text, std::size_t max_bytes);

}  // namespace nvcre::job::detail
