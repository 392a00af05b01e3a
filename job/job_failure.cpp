#include "job/job_failure.hpp"

#include "api/conditions.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>
#include <tuple>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

// A terminated state with a non-zero exit code, as (exit code, reason).
std::optional<std::pair<std::int32_t, std::string>> failed_termination(const json::value* state) {
  const json::value* terminated = state == nullptr ? nullptr : value_at(*state, {"terminated"});
  const json::value* code = terminated == nullptr ? nullptr : value_at(*terminated, {"exitCode"});
  if (code == nullptr || !code->is_number()) return std::nullopt;
  const auto exit_code = code->to_number<std::int32_t>();
  if (exit_code == 0) return std::nullopt;
  return std::make_pair(exit_code, string_at(*terminated, {"reason"}));
}

std::vector<FailedContainer> failed_containers(const json::value& pod) {
  std::vector<FailedContainer> out;
  const std::string pod_name = string_at(pod, {"metadata", "name"});
  const std::string node = string_at(pod, {"spec", "nodeName"});
  for (std::string_view list : {"containerStatuses", "initContainerStatuses"}) {
    const json::value* statuses = value_at(pod, {"status", list});
    if (statuses == nullptr || !statuses->is_array()) continue;
    for (const auto& status : statuses->get_array()) {
      const std::string container = string_at(status, {"name"});
      if (auto now = failed_termination(value_at(status, {"state"}))) {
        out.push_back({pod_name, node, container, now->first, now->second, false});
      } else if (auto before = failed_termination(value_at(status, {"lastState"}))) {
        out.push_back({pod_name, node, container, before->first, before->second, true});
      }
    }
  }
  return out;
}

// The log of the failing container, or an explanation when there is none to read.
// nullopt with a request added to the pass when the log is needed and not supplied.
std::optional<api::FailureLog> failure_log(JobPass& pass) {
  if (pass.pods.empty()) {
    return api::FailureLog{
        .reason = "PodNotFound",
        .tail = "No pods labelled nvcre.nvidia.com/job=" + pass.job.metadata.name +
                " were found, so no log could be captured"};
  }
  auto failed = find_failed_container(pass.pods);
  if (!failed) {
    const json::value& first = *pass.pods.front();
    return api::FailureLog{
        .podName = string_at(first, {"metadata", "name"}),
        .nodeName = string_at(first, {"spec", "nodeName"}),
        .reason = "NoTerminatedContainer",
        .tail = "No container of the Job's pods terminated with a non-zero exit code"};
  }
  const reconcile::PodLogWant want{.ns = pass.job.metadata.namespace_,
                                   .pod = failed->pod,
                                   .container = failed->container,
                                   .previous = failed->previous,
                                   .tail_lines = kFailureLogTailLines,
                                   .limit_bytes = kFailureLogMaxBytes};
  auto tail = pass.in.pod_logs.find(reconcile::pod_log_key(want));
  if (tail == pass.in.pod_logs.end()) {
    pass.result.wanted_pod_logs.push_back(want);
    return std::nullopt;
  }
  return api::FailureLog{
      .podName = failed->pod,
      .nodeName = failed->node,
      .exitCode = failed->exit_code,
      .reason = failed->reason,
      .tail = tail_bytes(tail->second.ok() ? tail->second.text : tail->second.error,
                         kFailureLogMaxBytes)};
}

}  // namespace

void fail_job(JobPass& pass, JobStatusDraft& draft, std::string_view reason,
              std::string_view message, FailureAttribution attribution) {
  if (draft.terminal()) return;  // a Workflow timeout (or an earlier verdict) won
  api::JobStatus& status = draft.status();
  if (attribution.capture_log && !status.failureLog) {
    auto log = failure_log(pass);
    if (!log) return;  // the pass stops; the write happens once the log is in the input
    status.failureLog = std::move(*log);
  }
  if (attribution.attribute_nodes && status.failedNodes.empty()) {
    std::vector<api::FailedNode> blamed;
    for (auto& node : group_nodes(pass.job, pass.pods)) {
      blamed.push_back({std::move(node), std::string(api::node_failure_reason::kWorkloadFailed),
                        std::string(message)});
    }
    merge_failed_nodes(status.failedNodes, blamed);
  }
  draft.set_phase(api::kConditionFailed, reason, message);
}

std::vector<std::string> group_nodes(const api::Job& job,
                                     const std::vector<const json::value*>& pods) {
  std::set<std::string> nodes;
  if (auto it = job.metadata.annotations.find(std::string(kGroupNodesAnnotation));
      it != job.metadata.annotations.end()) {
    std::string_view rest = it->second;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      std::string node = trim(rest.substr(0, comma));
      if (!node.empty()) nodes.insert(std::move(node));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  } else {
    for (const json::value* pod : pods) {
      std::string node = string_at(*pod, {"spec", "nodeName"});
      if (!node.empty()) nodes.insert(std::move(node));
    }
  }
  return {nodes.begin(), nodes.end()};
}

bool merge_failed_nodes(std::vector<api::FailedNode>& into,
                        const std::vector<api::FailedNode>& more) {
  bool added = false;
  for (const auto& node : more) {
    const bool known = std::any_of(into.begin(), into.end(), [&](const api::FailedNode& n) {
      return n.name == node.name && n.reason == node.reason;
    });
    if (!known) {
      into.push_back(node);
      added = true;
    }
  }
  if (added) {
    std::stable_sort(into.begin(), into.end(),
                     [](const api::FailedNode& a, const api::FailedNode& b) {
                       return std::tie(a.name, a.reason) < std::tie(b.name, b.reason);
                     });
  }
  return added;
}

std::optional<FailedContainer> find_failed_container(const std::vector<const json::value*>& pods) {
  std::optional<FailedContainer> first;
  for (const json::value* pod : pods) {
    for (auto& candidate : failed_containers(*pod)) {
      if (candidate.reason == "OOMKilled") return candidate;  // memory exhaustion explains the rest
      if (!first) first = std::move(candidate);
    }
  }
  return first;
}

std::string tail_bytes(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t start = text.size() - max_bytes;
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  return std::string(text.substr(start));
}

}  // namespace nvcre::job::detail
