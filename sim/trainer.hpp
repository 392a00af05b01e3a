#pragma once
// kube-sim's simulated Kubeflow Trainer v2: runs TrainJobs (trainer.kubeflow.org/v1alpha1) on the
// simulated cluster (sim/cluster_profile.hpp) so controllers can be driven end to end.
//
// Each reconcile() pass looks at every TrainJob in the store and moves it at most one stage:
//   created   -> JobSet-style pods are created, bound to nodes (sim/trainer_scheduler.hpp), Pending
//   + step    -> pods Running: each writes the start of its log (sim/trainer_logs.hpp)
//   while Running, each pass writes the lines the run has reached (a LogScript spread over `run`)
//   + run     -> pods Succeeded (the rest of their log written), or Failed (exit code 1, reason
//                Error, the node's fault text) on a
//                node annotated sim.nvcre.nvidia.com/fault (an MPI launcher fails with its
//                workers); in the same pass the TrainJob gets Complete=True (AllJobsCompleted) or
//                Failed=True (FailedJobs, naming the failed pod and node)
// A group whose pods include a stalled node (kNodeStallAnnotation) stops writing after the
// first few results and stays Running until something else ends it (a fault, a delete).
// A node annotated kNodeConditionAnnotation gets those conditions set to False a few steps into
// a run there (sim/node_conditions.hpp); the run goes on.
// `step` is the minimum time between stages (0 in tests: every pass is one stage). Pods that do
// not fit stay Pending with PodScheduled=False/Unschedulable and are retried every pass.
// spec.suspend=true deletes the pods and sets Suspended=True; clearing it resumes the job.
// A TrainJob with a foreign spec.managedBy, a finished one or one being deleted is left alone;
// its pods are owned by it, so the garbage collector removes them with it.
//
// The Trainer holds no lock of its own: the ApiServer runs it under its request mutex
// (ApiServer::advance_simulation), from a PeriodicTicker in the served binary or directly in tests.
#include "sim/log_script.hpp"
#include "sim/pod_logs.hpp"
#include "sim/store.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace nvcre::sim {

namespace trainer {
struct NodeList;
}  // namespace trainer

struct TrainerOptions {
  bool enabled = false;
  std::chrono::milliseconds step{500};  // minimum time between a TrainJob's stages
  std::chrono::milliseconds run{0};     // how long pods run at least (0: one step)
  std::function<std::chrono::steady_clock::time_point()> clock;  // default: steady_clock::now
};

// How often a served kube-sim runs a pass for a given step (a fraction of it, 10..100 ms).
std::chrono::milliseconds trainer_tick_interval(std::chrono::milliseconds step);

class Trainer {
 public:
  // The served type of (group, version, resource), or nullopt when it is not served (yet).
  using TypeLookup = std::function<std::optional<ResourceType>(
      const std::string& group, const std::string& version, const std::string& resource)>;

  // The pods' container logs go to `logs`, not into the pod objects.
  Trainer(Store& store, PodLogs& logs, TypeLookup lookup, TrainerOptions options = {});

  // One pass over every TrainJob; returns how many of them changed (0: nothing to do now).
  std::size_t reconcile();

 private:
  struct Pass;
  bool reconcile_train_job(Pass& pass, const boost::json::value& train_job);
  bool suspend(Pass& pass, const boost::json::value& train_job,
               const std::vector<StoredObject>& pods);
  StoredObject find_runtime(const boost::json::value& train_job) const;
  // Creates the pods the TrainJob should have and does not (all of them at first), bound where they
  // fit.
  void create_missing_pods(Pass& pass, const boost::json::value& train_job,
                           const boost::json::value& runtime, std::vector<StoredObject>& pods);
  bool bind_unscheduled(Pass& pass, std::vector<StoredObject>& pods);
  void start_pods(Pass& pass, std::vector<StoredObject>& pods, int world_size, bool has_launcher);
  void finish_pods(Pass& pass, std::vector<StoredObject>& pods, int world_size, bool has_launcher);
  void write_status(Pass& pass, const boost::json::value& train_job,
                    const std::vector<StoredObject>& pods);
  // Turns False the conditions the pods' nodes ask for (sim/node_conditions.hpp).
  bool fail_node_conditions(Pass& pass, const std::vector<StoredObject>& pods);
  // Writes the lines of the pod's script the run has reached (`progress`: 0 start .. 1 end),
  // up to its stall point when `stalled`.
  void write_script_lines(Pass& pass, const std::string& uid, double progress, bool stalled);

  // What a running pod has still to write.
  struct RunningLog {
    std::string ns, name, container;
    LogScript script;
    std::size_t written = 0;
  };

  Store& store_;
  PodLogs& logs_;
  TypeLookup lookup_;
  TrainerOptions options_;
  std::map<std::string, std::chrono::steady_clock::time_point> last_stage_;  // by TrainJob uid
  // The pod names a running TrainJob's plan asked for, at its and its runtime's resourceVersions:
  // a pass that finds them all does not plan again (a pass visits every running TrainJob).
  struct PlannedPods {
    std::string versions;
    std::vector<std::string> names;
  };
  std::map<std::string, PlannedPods> planned_;      // by TrainJob uid
  std::map<std::string, RunningLog> running_logs_;  // by pod uid
  // The Nodes as of the store's last Node change: copied again only when one changes.
  std::shared_ptr<const trainer::NodeList> nodes_;
  std::uint64_t nodes_version_ = 0;
};

// Calls `tick` every `interval` on its own thread until destroyed; exceptions from `tick` are
// swallowed so one bad pass cannot stop the simulation.
class PeriodicTicker {
 public:
  PeriodicTicker(std::chrono::milliseconds interval, std::function<void()> tick);
  ~PeriodicTicker();
  PeriodicTicker(const PeriodicTicker&) = delete;
  PeriodicTicker& operator=(const PeriodicTicker&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace nvcre::sim
