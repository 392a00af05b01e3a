#include "sim/trainer.hpp"

#include "jsonkit/paths.hpp"
#include "sim/cluster_profile.hpp"
#include "sim/node_conditions.hpp"
#include "sim/trainer_logs.hpp"
#include "sim/trainer_pods.hpp"
#include "sim/trainer_scheduler.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>
#include <unordered_map>

namespace nvcre::sim {

namespace json = boost::json;
using jsonkit::ensure_object;
using jsonkit::find_array;
using jsonkit::find_object;
using jsonkit::find_string;
using namespace trainer;

namespace {

constexpr std::string_view kTrainerGroup = "trainer.kubeflow.org";
constexpr std::string_view kTrainerManagedBy = "trainer.kubeflow.org/trainjob-controller";

std::string condition_status(const json::value& object, std::string_view type) {
  if (const auto* conditions = find_array(object.as_object(), {"status", "conditions"}))
    for (const auto& c : *conditions)
      if (const auto* t = find_string(c.if_object(), "type"); t && *t == type)
        if (const auto* s = find_string(c.if_object(), "status")) return std::string(*s);
  return {};
}

// metav1.Condition upsert; lastTransitionTime moves only when the status flips.
void set_condition(json::object& status, std::string_view type, std::string_view value,
                   std::string_view reason, const std::string& message, const std::string& now) {
  auto& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array{};
  json::object condition{{"type", type},
                         {"status", value},
                         {"reason", reason},
                         {"message", message},
                         {"lastTransitionTime", now}};
  for (auto& existing : conditions.as_array()) {
    if (!existing.is_object() || existing.as_object()["type"] != json::value(type)) continue;
    if (existing.as_object()["status"] == json::value(value))
      condition["lastTransitionTime"] = existing.at("lastTransitionTime");
    existing = std::move(condition);
    return;
  }
  conditions.as_array().push_back(std::move(condition));
}

// A status write of `object` (its namespace and name read before it is handed over).
json::value write_status_of(Store& store, const ResourceType& type, json::value object) {
  const std::string ns = meta_string(object, "namespace"), name = meta_string(object, "name");
  return store.update(type, ns, name, std::move(object), Store::UpdateKind::Status);
}

std::string node_fault(const NodePicker& picker, const json::value& pod) {
  const json::value* node = picker.node(pod_node(pod));
  const auto* annotations =
      node ? find_object(node->as_object(), {"metadata", "annotations"}) : nullptr;
  const auto* fault = find_string(annotations, kNodeFaultAnnotation);
  return fault ? std::string(*fault) : std::string();
}

std::vector<const json::value*> pods_nodes(const NodePicker& picker,
                                           const std::vector<StoredObject>& pods) {
  std::vector<const json::value*> nodes;
  for (const auto& pod : pods) nodes.push_back(picker.node(pod_node(*pod)));
  return nodes;
}

// The TrainJob's worker pods by completion index: the hosts of its NCCL ranks.
std::vector<Peer> worker_peers(const std::vector<StoredObject>& pods) {
  std::vector<std::pair<std::int64_t, Peer>> indexed;
  for (const auto& pod : pods)
    if (pod_label(*pod, kReplicatedJobNameLabel) == kWorkerJob)
      indexed.push_back(
          {jsonkit::integer_of(
               pod->at("metadata").at("labels").as_object().if_contains(kCompletionIndexLabel), 0),
           Peer{meta_string(*pod, "name"), pod_node(*pod)}});
  std::sort(indexed.begin(), indexed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Peer> peers;
  for (auto& [index, peer] : indexed) peers.push_back(std::move(peer));
  return peers;
}

}  // namespace

std::chrono::milliseconds trainer_tick_interval(std::chrono::milliseconds step) {
  using std::chrono::milliseconds;
  return step.count() <= 0 ? milliseconds(20)
                           : std::clamp(step / 5, milliseconds(10), milliseconds(100));
}

struct Trainer::Pass {
  ResourceType train_jobs;
  ResourceType pods;
  ResourceType nodes;
  // The pods of the TrainJobs this pass runs, by owner uid.
  std::unordered_map<std::string, std::vector<StoredObject>> pods_by_owner;
  NodePicker picker;
  std::chrono::steady_clock::time_point now;
  std::string now_text;
  std::chrono::system_clock::time_point wall;  // the store's clock: log lines' time
};

namespace {

// Whether a TrainJob is the Trainer's to run now: not finished, not going away, not another
// controller's.
bool runs_here(const json::value& train_job) {
  const auto* spec = find_object(train_job.as_object(), {"spec"});
  if (spec == nullptr || !meta_string(train_job, "deletionTimestamp").empty()) return false;
  if (condition_status(train_job, "Complete") == "True" ||
      condition_status(train_job, "Failed") == "True")
    return false;
  const auto* managed_by = find_string(spec, "managedBy");
  return managed_by == nullptr ||
         *managed_by == kTrainerManagedBy;  // e.g. Kueue MultiKueue runs it elsewhere
}

}  // namespace

Trainer::Trainer(Store& store, PodLogs& logs, TypeLookup lookup, TrainerOptions options)
    : store_(store), logs_(logs), lookup_(std::move(lookup)), options_(std::move(options)) {
  if (!options_.clock) options_.clock = [] { return std::chrono::steady_clock::now(); };
}

std::size_t Trainer::reconcile() {
  auto train_jobs = lookup_(std::string(kTrainerGroup), "v1alpha1", "trainjobs");
  auto pods = lookup_("", "v1", "pods");
  auto nodes = lookup_("", "v1", "nodes");
  if (!train_jobs || !pods || !nodes) return 0;
  // The pass shares the stored TrainJobs and Pods instead of copying them, and copies the Nodes
  // only when one changed: it holds the store's lock just to take them, so requests are served
  // while it works, as kube-apiserver serves them while the Trainer's controllers run.
  std::set<std::string> seen;
  std::vector<StoredObject> running;
  for (auto& job : store_.snapshot(*train_jobs)) {
    seen.insert(meta_string(*job, "uid"));
    if (runs_here(*job)) running.push_back(std::move(job));
  }
  std::erase_if(last_stage_, [&](const auto& entry) { return !seen.contains(entry.first); });
  std::set<std::string> running_uids;
  for (const auto& job : running) running_uids.insert(meta_string(*job, "uid"));
  std::erase_if(planned_, [&](const auto& entry) { return !running_uids.contains(entry.first); });
  if (running.empty()) return 0;

  std::unordered_map<std::string, std::vector<StoredObject>> pods_by_owner;
  for (const auto& job : running) pods_by_owner[meta_string(*job, "uid")];
  std::map<std::string, std::int64_t> gpus_in_use;  // by node
  std::set<std::string> live_pods;
  for (const auto& pod : store_.snapshot(*pods)) {
    live_pods.insert(meta_string(*pod, "uid"));
    if (auto held = gpus_held(*pod)) gpus_in_use[held->first] += held->second;
    const auto* refs = find_array(pod->as_object(), {"metadata", "ownerReferences"});
    if (refs == nullptr) continue;
    for (const auto& ref : *refs) {
      const auto* uid = find_string(ref.if_object(), "uid");
      auto owner = uid == nullptr ? pods_by_owner.end() : pods_by_owner.find(std::string(*uid));
      if (owner == pods_by_owner.end()) continue;
      owner->second.push_back(pod);
      break;
    }
  }
  logs_.keep_only(live_pods);  // a deleted pod's log goes with it
  std::erase_if(running_logs_, [&](const auto& entry) { return !live_pods.contains(entry.first); });
  if (const auto version = store_.last_change(*nodes); !nodes_ || version != nodes_version_) {
    std::vector<json::value> copies;
    for (const auto& node : store_.snapshot(*nodes)) copies.push_back(*node);
    nodes_ = sorted_nodes(std::move(copies));
    nodes_version_ = version;
  }
  Pass pass{*train_jobs,
            *pods,
            *nodes,
            std::move(pods_by_owner),
            NodePicker(nodes_, gpus_in_use),
            options_.clock(),
            store_.now_rfc3339(),
            store_.now()};
  std::size_t changed = 0;
  for (const auto& job : running) {
    try {
      if (reconcile_train_job(pass, *job)) ++changed;
    } catch (const ApiError&) {
      // A lost race with a client (404 / 409): the next pass starts from the new state.
    }
  }
  return changed;
}

bool Trainer::reconcile_train_job(Pass& pass, const json::value& train_job) {
  const auto* spec = find_object(train_job.as_object(), {"spec"});
  const std::string uid = meta_string(train_job, "uid");
  std::vector<StoredObject> pods;
  for (auto& pod : pass.pods_by_owner[uid])
    if (meta_string(*pod, "namespace") == meta_string(train_job, "namespace"))
      pods.push_back(std::move(pod));
  std::sort(pods.begin(), pods.end(), [](const StoredObject& a, const StoredObject& b) {
    return meta_string(*a, "name") < meta_string(*b, "name");
  });

  if (const auto* suspended = spec->if_contains("suspend");
      suspended && *suspended == json::value(true))
    return suspend(pass, train_job, pods);
  bool changed = false;
  if (condition_status(train_job, "Suspended") == "True") {
    json::value fresh = store_.get(pass.train_jobs, meta_string(train_job, "namespace"),
                                   meta_string(train_job, "name"));
    set_condition(ensure_object(fresh.as_object(), "status"), "Suspended", "False", "Resumed",
                  "TrainJob is resumed", pass.now_text);
    write_status_of(store_, pass.train_jobs, std::move(fresh));
    changed = true;
  }
  auto runtime = find_runtime(train_job);
  if (!runtime) return changed;  // like the real Trainer: nothing happens until the runtime exists

  const std::size_t before = pods.size();
  create_missing_pods(pass, train_job, *runtime, pods);
  auto [stage, first_seen] = last_stage_.try_emplace(uid, pass.now);
  if (pods.size() != before) {
    stage->second = pass.now;
    write_status(pass, train_job, pods);
    return true;
  }
  changed = bind_unscheduled(pass, pods) || changed;
  if (first_seen) return changed;

  int world_size = 0;
  bool has_launcher = false;
  for (const auto& pod : pods) {
    world_size += pod_label(*pod, kReplicatedJobNameLabel) == kWorkerJob ? 1 : 0;
    has_launcher = has_launcher || pod_label(*pod, kReplicatedJobNameLabel) == kLauncherJob;
  }
  auto in_phase = [&](const char* phase) {
    return std::any_of(pods.begin(), pods.end(),
                       [&](const StoredObject& p) { return pod_phase(*p) == phase; });
  };
  const auto elapsed = pass.now - stage->second;
  if (in_phase("Pending")) {
    if (elapsed < options_.step) return changed;
    if (std::any_of(pods.begin(), pods.end(),
                    [](const StoredObject& p) { return pod_node(*p).empty(); }))
      return changed;
    start_pods(pass, pods, world_size, has_launcher);
  } else if (in_phase("Running")) {
    // The run's logs grow as it goes; it ends after `run` (at least a step) unless it stalls.
    const auto run = std::max(options_.step, options_.run);
    const double progress = run.count() > 0 ? std::chrono::duration<double>(elapsed) / run : 0.0;
    const GroupTraits traits = group_traits(pods_nodes(pass.picker, pods));
    for (const auto& pod : pods)
      if (pod_phase(*pod) == "Running")
        write_script_lines(pass, meta_string(*pod, "uid"), progress, traits.stalled);
    // A --node-condition fault shows a few steps in (mid-run for runs shorter than that).
    if (elapsed >= std::min(options_.step * kNodeConditionAfterSteps, run / 2))
      changed = fail_node_conditions(pass, pods) || changed;
    if (elapsed < run) return changed;
    const bool faulty = std::any_of(pods.begin(), pods.end(), [&](const StoredObject& p) {
      return !node_fault(pass.picker, *p).empty();
    });
    if (traits.stalled && !faulty) return changed;  // hung: nothing ends it but a fault or a delete
    finish_pods(pass, pods, world_size, has_launcher);
  } else if (elapsed < options_.step) {
    return changed;
  }
  stage->second = pass.now;
  write_status(pass, train_job, pods);
  return true;
}

bool Trainer::fail_node_conditions(Pass& pass, const std::vector<StoredObject>& pods) {
  std::vector<std::string> names;
  for (const auto* node : pods_nodes(pass.picker, pods))
    if (node != nullptr && !conditions_on_run(*node).empty())
      names.push_back(meta_string(*node, "name"));
  return !names.empty() && apply_node_conditions(store_, pass.nodes, names, pass.now_text);
}

bool Trainer::suspend(Pass& pass, const json::value& train_job,
                      const std::vector<StoredObject>& pods) {
  // A suspended JobSet has no pods: they are deleted and come back on resume.
  for (const auto& pod : pods)
    store_.remove(pass.pods, meta_string(*pod, "namespace"), meta_string(*pod, "name"));
  last_stage_.erase(meta_string(train_job, "uid"));
  if (condition_status(train_job, "Suspended") == "True") return !pods.empty();
  json::value fresh = store_.get(pass.train_jobs, meta_string(train_job, "namespace"),
                                 meta_string(train_job, "name"));
  set_condition(ensure_object(fresh.as_object(), "status"), "Suspended", "True", "Suspended",
                "TrainJob is suspended", pass.now_text);
  write_status_of(store_, pass.train_jobs, std::move(fresh));
  return true;
}

StoredObject Trainer::find_runtime(const json::value& train_job) const {
  const auto* ref = find_object(train_job.as_object(), {"spec", "runtimeRef"});
  const auto* name = find_string(ref, "name");
  if (name == nullptr) return nullptr;
  const auto* kind = find_string(ref, "kind");  // the Trainer's default is ClusterTrainingRuntime
  const bool cluster = kind == nullptr || *kind != "TrainingRuntime";
  auto type = lookup_(std::string(kTrainerGroup), "v1alpha1",
                      cluster ? "clustertrainingruntimes" : "trainingruntimes");
  if (!type) return nullptr;
  return store_.find_shared(*type, cluster ? std::string() : meta_string(train_job, "namespace"),
                            std::string(*name));
}

void Trainer::create_missing_pods(Pass& pass, const json::value& train_job,
                                  const json::value& runtime, std::vector<StoredObject>& pods) {
  const auto* runtime_spec = find_object(runtime.as_object(), {"spec"});
  if (runtime_spec == nullptr) return;
  std::set<std::string> existing;
  for (const auto& pod : pods) existing.insert(meta_string(*pod, "name"));
  PodIdentity id{meta_string(train_job, "name"), meta_string(train_job, "namespace"),
                 meta_string(train_job, "uid")};
  std::string versions =
      meta_string(train_job, "resourceVersion") + "/" + meta_string(runtime, "resourceVersion");
  PlannedPods& planned = planned_[id.uid];
  if (planned.versions == versions &&
      std::all_of(planned.names.begin(), planned.names.end(),
                  [&](const std::string& name) { return existing.contains(name); }))
    return;
  // Remembered only once every pod was made: a pass that failed midway plans again.
  PlannedPods made{std::move(versions), {}};
  for (const auto& plan : plan_replicated_jobs(train_job.at("spec").as_object(), *runtime_spec)) {
    std::set<std::string> taken;
    for (const auto& pod : pods)
      if (pod_label(*pod, kReplicatedJobNameLabel) == plan.name && !pod_node(*pod).empty())
        taken.insert(pod_node(*pod));
    for (id.index = 0; id.index < plan.pods; ++id.index) {
      json::value pod = build_pod(id, plan);
      made.names.push_back(meta_string(pod, "name"));
      if (existing.contains(made.names.back())) continue;
      auto& spec = pod.as_object()["spec"].as_object();
      auto placement = pass.picker.place(spec, taken);
      if (!placement.node.empty()) {
        spec["nodeName"] = placement.node;
        taken.insert(placement.node);
      }
      json::value created = store_.create(pass.pods, id.ns, std::move(pod));
      created.as_object()["status"] = pending_status(pass.now_text, placement.message);
      pods.push_back(std::make_shared<const json::value>(
          write_status_of(store_, pass.pods, std::move(created))));
    }
  }
  planned = std::move(made);
}

bool Trainer::bind_unscheduled(Pass& pass, std::vector<StoredObject>& pods) {
  bool changed = false;
  for (auto& pod : pods) {
    if (!pod_node(*pod).empty() || pod_phase(*pod) != "Pending") continue;
    std::set<std::string> taken;
    for (const auto& sibling : pods)
      if (pod_label(*sibling, kReplicatedJobNameLabel) ==
              pod_label(*pod, kReplicatedJobNameLabel) &&
          !pod_node(*sibling).empty())
        taken.insert(pod_node(*sibling));
    auto placement = pass.picker.place(pod->at("spec").as_object(), taken);
    if (placement.node.empty()) continue;
    const std::string ns = meta_string(*pod, "namespace"), name = meta_string(*pod, "name");
    json::value bound = *pod;
    bound.as_object()["spec"].as_object()["nodeName"] = placement.node;
    bound = store_.update(pass.pods, ns, name, std::move(bound));
    bound.as_object()["status"] = pending_status(pass.now_text, {});
    pod = std::make_shared<const json::value>(
        store_.update(pass.pods, ns, name, std::move(bound), Store::UpdateKind::Status));
    changed = true;
  }
  return changed;
}

namespace {

// A pod status write. The log lines that go with the new phase are written first, as a kubelet
// does: whoever sees the phase can read them.
json::value write_pod_status(Store& store, const ResourceType& type, json::value pod,
                             json::object status) {
  const std::string ns = meta_string(pod, "namespace"), name = meta_string(pod, "name");
  pod.as_object()["status"] = std::move(status);
  return store.update(type, ns, name, std::move(pod), Store::UpdateKind::Status);
}

}  // namespace

void Trainer::write_script_lines(Pass& pass, const std::string& uid, double progress,
                                 bool stalled) {
  auto it = running_logs_.find(uid);
  if (it == running_logs_.end()) return;
  auto& log = it->second;
  const std::size_t end =
      stalled ? std::min(log.script.stall_after, log.script.lines.size()) : log.script.lines.size();
  std::vector<LogLine> lines;
  for (; log.written < end && log.script.lines[log.written].at <= progress; ++log.written)
    lines.push_back({pass.wall, stamp_script_line(log.script.lines[log.written].text, pass.wall)});
  if (!lines.empty()) logs_.append(log.ns, log.name, uid, log.container, std::move(lines));
}

void Trainer::start_pods(Pass& pass, std::vector<StoredObject>& pods, int world_size,
                         bool has_launcher) {
  const auto workers = worker_peers(pods);
  const GroupTraits traits = group_traits(pods_nodes(pass.picker, pods));
  for (auto& pod : pods) {
    if (pod_phase(*pod) != "Pending") continue;
    const json::value* node = pass.picker.node(pod_node(*pod));
    const json::value no_node = json::object{};
    auto context = log_context(*pod, node, world_size, has_launcher);
    context.workers = workers;
    context.traits = traits;
    const std::string uid = meta_string(*pod, "uid");
    running_logs_[uid] = RunningLog{meta_string(*pod, "namespace"), meta_string(*pod, "name"),
                                    main_container(*pod), run_script(context), 0};
    write_script_lines(pass, uid, 0.0, traits.stalled);
    pod = std::make_shared<const json::value>(write_pod_status(
        store_, pass.pods, *pod, running_status(*pod, node ? *node : no_node, pass.now_text)));
  }
}

void Trainer::finish_pods(Pass& pass, std::vector<StoredObject>& pods, int world_size,
                          bool has_launcher) {
  // mpirun fails as soon as one rank does, so the launcher reports its workers' failure.
  std::string worker_failure;
  for (const auto& pod : pods)
    if (pod_label(*pod, kReplicatedJobNameLabel) != kLauncherJob && worker_failure.empty())
      if (auto fault = node_fault(pass.picker, *pod); !fault.empty())
        worker_failure = fault + " (rank on node " + pod_node(*pod) + ")";
  for (auto& pod : pods) {
    if (pod_phase(*pod) != "Running") continue;
    std::string failure = node_fault(pass.picker, *pod);
    if (failure.empty() && pod_label(*pod, kReplicatedJobNameLabel) == kLauncherJob)
      failure = worker_failure;
    const std::string uid = meta_string(*pod, "uid");
    if (failure.empty()) {
      write_script_lines(pass, uid, 1.0, false);
    } else {
      auto context = log_context(*pod, pass.picker.node(pod_node(*pod)), world_size, has_launcher);
      std::vector<LogLine> lines;
      for (auto& text : failure_lines(context, failure)) lines.push_back({pass.wall, text});
      logs_.append(meta_string(*pod, "namespace"), meta_string(*pod, "name"), uid,
                   main_container(*pod), std::move(lines));
    }
    running_logs_.erase(uid);
    pod = std::make_shared<const json::value>(
        write_pod_status(store_, pass.pods, *pod,
                         terminated_status(*pod, pass.now_text, failure.empty() ? 0 : 1, failure)));
  }
}

void Trainer::write_status(Pass& pass, const json::value& train_job,
                           const std::vector<StoredObject>& pods) {
  json::value fresh = store_.get(pass.train_jobs, meta_string(train_job, "namespace"),
                                 meta_string(train_job, "name"));
  auto& status = ensure_object(fresh.as_object(), "status");
  // jobsStatus: one entry per replicated job, in pod-name order of first appearance.
  json::array jobs;
  for (const auto& pod : pods) {
    const std::string job = pod_label(*pod, kReplicatedJobNameLabel), phase = pod_phase(*pod);
    auto it = std::find_if(jobs.begin(), jobs.end(),
                           [&](const json::value& j) { return j.at("name") == json::value(job); });
    if (it == jobs.end()) {
      jobs.push_back(json::object{{"name", job},
                                  {"ready", 0},
                                  {"succeeded", 0},
                                  {"failed", 0},
                                  {"active", 0},
                                  {"suspended", 0}});
      it = jobs.end() - 1;
    }
    auto& entry = it->as_object();
    const char* counter = phase == "Succeeded" ? "succeeded"
                          : phase == "Failed"  ? "failed"
                                               : "active";
    entry[counter] = entry[counter].as_int64() + 1;
    if (phase == "Running") entry["ready"] = entry["ready"].as_int64() + 1;
  }
  status["jobsStatus"] = std::move(jobs);
  const bool finished =
      !pods.empty() && std::all_of(pods.begin(), pods.end(), [](const StoredObject& p) {
        return pod_phase(*p) == "Succeeded" || pod_phase(*p) == "Failed";
      });
  if (finished) {
    // JobSet's terminal condition, as Trainer v2 copies it; the message names the failed pod.
    const json::value* failed = nullptr;  // a worker first: the launcher only echoes its ranks
    for (const auto& pod : pods)
      if (pod_phase(*pod) == "Failed" && pod_label(*pod, kReplicatedJobNameLabel) != kLauncherJob &&
          !failed)
        failed = pod.get();
    for (const auto& pod : pods)
      if (pod_phase(*pod) == "Failed" && !failed) failed = pod.get();
    if (failed) {
      const auto* statuses = find_array(failed->as_object(), {"status", "containerStatuses"});
      const auto* terminated =
          statuses && !statuses->empty()
              ? find_object(statuses->front().as_object(), {"state", "terminated"})
              : nullptr;
      const auto* message = find_string(terminated, "message");
      const auto exit_code =
          jsonkit::integer_of(terminated ? terminated->if_contains("exitCode") : nullptr, 1);
      set_condition(status, "Failed", "True", "FailedJobs",
                    "jobset failed due to one or more job failures: pod " +
                        meta_string(*failed, "name") + " on node " + pod_node(*failed) +
                        " failed with exit code " + std::to_string(exit_code) + ": " +
                        (message ? std::string(*message) : std::string("Error")),
                    pass.now_text);
    } else {
      set_condition(status, "Complete", "True", "AllJobsCompleted", "jobset completed successfully",
                    pass.now_text);
    }
  }
  write_status_of(store_, pass.train_jobs, std::move(fresh));
}

PeriodicTicker::PeriodicTicker(std::chrono::milliseconds interval, std::function<void()> tick)
    : thread_([this, interval, tick = std::move(tick)] {
        std::unique_lock lock(mutex_);
        while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
          lock.unlock();
          try {
            tick();
          } catch (const std::exception&) {
            // Keep simulating: the next pass starts from the store again.
          }
          lock.lock();
        }
      }) {}

PeriodicTicker::~PeriodicTicker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace nvcre::sim
