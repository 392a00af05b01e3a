// Polling Running groups from their Jobs: cache misses confirmed live, the timeout
// rule, the pod-drain barrier, retries, completion and the failed-nodes ConfigMap.
#include "api/conditions.hpp"
#include "k8s/meta.hpp"
#include "k8s/duration.hpp"
#include "workflow/dependency_plan.hpp"
#include "workflow/node_results.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace nvcre::workflow::detail {
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr auto kPodDrainGrace = std::chrono::minutes(5);

struct JobState {
  bool failed = false, hardware_failed = false, succeeded = false, validation_failed = false;
  bool terminal() const { return failed || hardware_failed || succeeded; }
  bool any_failure() const { return failed || hardware_failed || validation_failed; }
};

JobState state_of(const api::Job& job) {
  const auto& c = job.status ? job.status->conditions : std::vector<api::Condition>{};
  return {api::condition_is_true(c, api::kConditionFailed),
          api::condition_is_true(c, api::condition_type::kHardwareFailed),
          api::condition_is_true(c, api::kConditionSucceeded),
          api::condition_is_true(c, api::kConditionValidationFailed)};
}

std::optional<k8s::Clock::time_point> time_of(const std::string& text) {
  return text.empty() ? std::nullopt : k8s::parse_rfc3339(text);
}

std::string pod_phase(const json::value& pod) {
  const json::value* status = pod.is_object() ? pod.get_object().if_contains("status") : nullptr;
  const json::value* phase = status == nullptr || !status->is_object()
                                 ? nullptr
                                 : status->get_object().if_contains("phase");
  return phase != nullptr && phase->is_string() ? std::string(phase->get_string()) : std::string();
}

std::string pod_node(const json::value& pod) {
  const json::value* spec = pod.is_object() ? pod.get_object().if_contains("spec") : nullptr;
  const json::value* node =
      spec == nullptr || !spec->is_object() ? nullptr : spec->get_object().if_contains("nodeName");
  return node != nullptr && node->is_string() ? std::string(node->get_string()) : std::string();
}

std::vector<const json::value*> job_pods(const Pass& pass, const api::Job& job) {
  return pass.in.cache.list(
      "v1", "Pod", job.metadata.namespace_,
      k8s::LabelSelector::from_match_labels({{std::string(kJobLabel), job.metadata.name}}));
}

// Wait while the workload's pods still run, at most 5 minutes from the teardown start (the
// latest terminal-condition transition or the deletion timestamp).
bool should_wait_for_pod_drain(const Pass& pass, const api::Job& job) {
  const auto pods = job_pods(pass, job);
  const bool active = std::any_of(pods.begin(), pods.end(), [](const json::value* pod) {
    const std::string phase = pod_phase(*pod);
    return phase != "Succeeded" && phase != "Failed";
  });
  if (!active) return false;
  std::optional<k8s::Clock::time_point> start = time_of(job.metadata.deletionTimestamp);
  if (job.status) {
    for (std::string_view type :
         {api::kConditionFailed, api::condition_type::kHardwareFailed, api::kConditionSucceeded}) {
      const api::Condition* c = api::find_condition(job.status->conditions, type);
      auto t = c != nullptr && c->status == "True" ? time_of(c->lastTransitionTime) : std::nullopt;
      if (t && (!start || *start < *t)) start = t;
    }
  }
  return !(start && pass.in.now - *start > kPodDrainGrace);
}

bool timed_out(const Pass& pass, const api::GroupStatus& group, const api::Job& job) {
  auto timeout = k8s::parse_go_duration(pass.spec.orchestration.execution.timeoutPerJob);
  if (pass.spec.orchestration.execution.timeoutPerJob.empty() || !timeout) return false;
  const auto& now = pass.in.now;
  const api::JobStatus status = job.status.value_or(api::JobStatus{});
  auto blocked = time_of(status.schedulingBlockedSince);
  auto start = time_of(status.workloadStartTime);
  if (blocked) return now - *blocked > *timeout || (start && *blocked - *start > *timeout);
  if (start) return now - *start > *timeout;
  if (status.workloadRef) return false;  // created but never seen running (queued): no clock yet
  auto group_start = time_of(group.startTime);
  return group_start && now - *group_start > *timeout;
}

bool timed_out_failure(const api::Job& job) {
  const api::Condition* c =
      job.status ? api::find_condition(job.status->conditions, api::kConditionFailed) : nullptr;
  return c != nullptr && c->status == "True" && c->reason == api::job_reason::kJobTimedOut;
}

class GroupPoll {
 public:
  explicit GroupPoll(Pass& pass) : pass_(pass) {}

  void poll(api::GroupStatus& group);
  void record_failed_nodes();
  bool changed = false;
  bool running = false;
  std::string blocked;

 private:
  void fail_deleted(api::GroupStatus& group);
  api::Job time_out(const api::Job& job, bool blocked_pods);
  bool complete(api::GroupStatus& group, const api::Job& job);

  Pass& pass_;
  std::vector<api::FailedNode> failed_nodes_;
};

void GroupPoll::fail_deleted(api::GroupStatus& group) {
  cleanup_job_dependencies(pass_, group.name, pass_.orch().currentIteration.value_or(1));
  group.phase = std::string(api::group_phase::kFailed);
  group.completionTime = pass_.now_text;
  group.jobRef.reset();
  changed = true;
}

api::Job GroupPoll::time_out(const api::Job& job, bool blocked_pods) {
  api::Job updated = job;
  api::JobStatus& status = updated.status.emplace(job.status.value_or(api::JobStatus{}));
  // The launcher / trainer pod's identity (its log tail needs the pod-log API, which the shell
  // owns).
  const json::value* chosen = nullptr;
  for (const json::value* pod : job_pods(pass_, job)) {
    const std::string phase = pod_phase(*pod);
    if (phase != "Running" && phase != "Succeeded" && phase != "Failed") continue;
    if (k8s::labels_of(*pod)["trainer.kubeflow.org/trainjob-ancestor-step"] == "trainer") {
      chosen = pod;
      break;
    }
    if (chosen == nullptr) chosen = pod;
  }
  if (chosen != nullptr)
    status.failureLog =
        api::FailureLog{k8s::object_ref_of(*chosen).name, pod_node(*chosen), 0, "Timeout", ""};
  const std::string message = blocked_pods
                                  ? "Job exceeded timeoutPerJob while its pods were unschedulable"
                                  : "Job exceeded timeoutPerJob";
  auto change = api::set_exclusive_condition(status.conditions, api::kConditionFailed,
                                             api::job_reason::kJobTimedOut, message,
                                             job.metadata.generation.value_or(0), pass_.now_text);
  k8s::Action write;
  write.verb = k8s::ActionVerb::UpdateStatus;
  write.target = {std::string(api::kApiVersion), "Job", job.metadata.namespace_, job.metadata.name};
  write.body = api::encode(updated);
  if (change.transition_to) {
    pass_.event_on(write.target, job.metadata.uid, "Warning", api::job_reason::kJobTimedOut,
                   message);
  }
  pass_.add(std::move(write));
  return updated;
}

// Returns false while the failed workload's pods drain (the group stays Running).
bool GroupPoll::complete(api::GroupStatus& group, const api::Job& job) {
  const JobState state = state_of(job);
  const bool failed = state.any_failure();
  if (failed) {
    if (job.status &&
        job.status->workloadRef) {  // free the GPUs; the Job object stays for the report
      const auto& ref = *job.status->workloadRef;
      const k8s::ObjectRef workload{
          ref.apiVersion, ref.kind,
          ref.namespace_.empty() ? job.metadata.namespace_ : ref.namespace_, ref.name};
      const json::value* cached = pass_.in.cache.get(workload);
      if (cached == nullptr || !k8s::is_being_deleted(*cached))
        pass_.delete_object(workload, std::nullopt);
    }
    if (should_wait_for_pod_drain(pass_, job)) return false;
  }
  group.completionTime = pass_.now_text;
  // Diagnose blames nodes only in its verdict: a failed round group holds healthy nodes too.
  if (job.status && !pass_.spec.orchestration.diagnose)
    failed_nodes_.insert(failed_nodes_.end(), job.status->failedNodes.begin(),
                         job.status->failedNodes.end());
  const std::int64_t iteration = pass_.orch().currentIteration.value_or(1);
  const std::int64_t retries = group.retries.value_or(0);
  if (failed && pass_.spec.orchestration.execution.retryFailedGroups.value_or(0) > retries &&
      !timed_out_failure(job)) {
    pass_.delete_object(
        {std::string(api::kApiVersion), "Job", job.metadata.namespace_, job.metadata.name},
        job.metadata.uid);
    cleanup_job_dependencies(pass_, group.name, iteration);
    group.retries = retries + 1;
    group.phase = std::string(api::group_phase::kPending);
    pass_.reset_groups.insert(group.name);
    group.jobRef.reset();
    group.startTime.clear();
    group.completionTime.clear();
    return true;
  }
  cleanup_job_dependencies(pass_, group.name, iteration);
  group.phase = std::string(failed ? api::group_phase::kFailed : api::group_phase::kSucceeded);
  return true;
}

void GroupPoll::poll(api::GroupStatus& group) {
  const k8s::ObjectRef ref = job_ref_of(pass_, *group.jobRef);
  const json::value* cached = pass_.in.cache.get(ref);
  if (cached == nullptr) {  // a cache miss is not proof: confirm live
    auto answer = pass_.live(ref);
    if (!answer.known || answer.object != nullptr) {
      running = true;
      return;
    }
    return fail_deleted(group);
  }
  api::Job job;
  try {
    job = api::decode<api::Job>(*cached);
  } catch (const api::DecodeError& error) {
    pass_.set_error("decoding Job " + ref.name + ": " + error.what());
    return;
  }
  if (!job.metadata.deletionTimestamp.empty()) {
    if (should_wait_for_pod_drain(pass_, job)) {
      running = true;
      return;
    }
    return fail_deleted(group);
  }
  if (is_unpinned(pass_.extras.placement) && group.nodes.empty()) {
    std::set<std::string> bound;
    for (const json::value* pod : job_pods(pass_, job)) {
      if (auto node = pod_node(*pod); !node.empty()) bound.insert(node);
    }
    if (static_cast<std::int64_t>(bound.size()) ==
        pass_.orch().nodesPerJob) {  // complete placement only
      group.nodes.assign(bound.begin(), bound.end());
      changed = true;
    }
  }
  const JobState state = state_of(job);
  if (!state.terminal()) {
    const bool blocked_pods = job.status && !job.status->schedulingBlockedSince.empty();
    if (timed_out(pass_, group, job)) {
      // Timed-out Jobs are never retried (the JobTimedOut reason marks them).
      if (complete(group, time_out(job, blocked_pods))) {
        changed = true;
      } else {
        running = true;
      }
      return;
    }
    running = true;
    const api::Condition* progress =
        job.status ? api::find_condition(job.status->conditions, api::kConditionInProgress)
                   : nullptr;
    if (blocked.empty() && progress != nullptr && progress->status == "True" &&
        progress->reason == api::job_reason::kWorkloadSchedulingBlocked) {
      blocked = "job " + job.metadata.name + " scheduling blocked: " + progress->message;
    }
    return;
  }
  // A Succeeded Job with thresholds stays Running until the Job controller has evaluated them.
  const bool awaiting_thresholds =
      state.succeeded && !job.spec.thresholds.empty() && job.status &&
      api::find_condition(job.status->conditions, api::kConditionValidationFailed) == nullptr;
  if (awaiting_thresholds || !complete(group, job)) {
    running = true;
    return;
  }
  changed = true;
}

void GroupPoll::record_failed_nodes() {
  if (failed_nodes_.empty()) return;
  const k8s::ObjectRef ref{"v1", "ConfigMap", pass_.ns(), failed_nodes_configmap_name(pass_.uid())};
  const json::value* existing = pass_.in.cache.get(ref);
  if (const auto* outcome = pass_.outcome_for(k8s::ActionVerb::Create, ref)) {
    if (outcome->reason != "AlreadyExists" || !outcome->live_holder)
      return pass_.set_error(describe_outcome(*outcome));
    existing = &*outcome->live_holder;
  }
  std::optional<NodeResultWrite> write;
  try {
    write =
        node_results_write(NodeResultKind::Failed, pass_.workflow(), existing, {}, failed_nodes_);
  } catch (const std::exception&) {
    return;  // an unreadable node-results ConfigMap must not hold back the group's completion
  }
  if (!write) {
    // Already holds these nodes (e.g. created by a pass whose status write then lost a conflict):
    // the group still completes in this pass, so the ref must be written with it or never.
    if (existing != nullptr) {
      pass_.status.failedNodesRef =
          api::TypedLocalObjectReference{std::nullopt, "ConfigMap", ref.name};
    }
    return;
  }
  write->action.joins_previous = true;  // node results depend on no other write of the pass
  if (write->action.verb == k8s::ActionVerb::Create) {
    if (!pass_.can_create()) return pass_.requeue(k8s::kImmediateRequeue);
    pass_.add_create(std::move(write->action));
  } else {
    pass_.add(std::move(write->action));
  }
  pass_.status.failedNodesRef =
      api::TypedLocalObjectReference{std::nullopt, "ConfigMap", write->name};
}

}  // namespace

bool update_running_groups(Pass& pass) {
  GroupPoll poll(pass);
  for (auto& group : pass.orch().groups) {
    if (group_running(group) && group.jobRef) poll.poll(group);
  }
  poll.record_failed_nodes();
  if (poll.changed || poll.running) {
    const auto& groups = pass.orch().groups;
    const auto running = std::count_if(groups.begin(), groups.end(), group_running);
    std::string message = "Iteration " + std::to_string(pass.orch().currentIteration.value_or(1)) +
                          "/" + std::to_string(pass.iterations()) + ": " + std::to_string(running) +
                          " groups running";
    if (poll.blocked.empty()) {
      pass.set_condition(api::kConditionInProgress, api::workflow_reason::kJobRunning, message);
    } else {
      pass.set_condition(api::kConditionInProgress, "JobSchedulingBlocked",
                         message + "; " + poll.blocked);
    }
  }
  return poll.changed;
}

}  // namespace nvcre::workflow::detail
