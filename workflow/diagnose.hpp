#pragma once
// Diagnose mode: adaptive fault isolation over rounds of groups. Pure: the persisted
// DiagnoseStatus, the finished round's groups and what their Jobs measured go in; the next round's
// groups or the final verdict come out. Every bit of state lives in the DiagnoseStatus the Workflow
// persists, so a restarted manager resumes from the status alone.
//
// Stages, in order: intra-screening (one group per topology domain, or disjoint chunks of
// max(ceil(sqrt N), 2) name-sorted nodes) -> intra-screening-no-nvl (every screened domain again
// with NCCL_MNNVL_ENABLE=0, only when the template enables MNNVL) -> inter-screening (one healthy
// representative per screening group) -> bisection of the failed groups (<=> cross-boundary probes
// when both halves of a split pass alone) -> confirmation (each suspect paired with a rotating
// healthy reference) -> complete.
//
// The bandwidth gate: with a busBandwidthGBps threshold, a Succeeded group passes only when its
// Job's final BandwidthMeasurement peak meets it; a measurement still to come holds the whole round
// (nothing advances), one that can no longer come fails the group (fail closed).
#include "api/common_types.hpp"
#include "api/workflow.hpp"
#include "workflow/partition.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow::diagnose {

using Group = PartitionGroup;  // name, nodes, domains (overflow unused)

// Stage 1 groups `screen-<i>`. With a topology key one group per label value (a node without it
// lands in domain "unknown"), domains sorted; without, chunks as above. Throws
// std::invalid_argument when there are no nodes.
std::vector<Group> screening_groups(std::vector<PartitionNode> nodes,
                                    std::string_view topology_key);

// What the bandwidth gate knows about a Succeeded group's Job.
struct BandwidthObservation {
  enum class State {
    Pending,      // no final measurement yet (absent, still measuring): the round holds
    Measured,     // complete from the whole log of the succeeded Job: `peak_bus_gbps` is final
    Unavailable,  // complete without final results, or the Job is gone: the group fails
  };
  State state = State::Pending;
  double peak_bus_gbps = 0;
  std::string detail;  // why Unavailable, for the log of the decision
};

struct RoundInput {
  api::DiagnoseStatus status;            // as persisted (stage = the round that just finished)
  std::vector<api::GroupStatus> groups;  // the finished round, every group Succeeded or Failed
  // validation.performance.thresholds["busBandwidthGBps"]; empty: no gate.
  std::string bandwidth_threshold;
  std::map<std::string, BandwidthObservation> bandwidth;  // group name -> observation (gated only)
  std::int64_t min_group_size = 2;                        // bisection floor (below 1 reads as 1)
  bool mnnvl_enabled = false;  // the base template enables MNNVL (mnnvl_enabled below)
};

struct RoundResult {
  enum class Kind { Pending, NextRound, Succeeded, Failed };
  Kind kind = Kind::Pending;
  api::DiagnoseStatus status;  // the new status (Pending: the input's, unchanged)
  std::vector<Group> groups;   // NextRound: the groups to run
  std::string reason;          // Succeeded: JobCompleted; Failed: IterationsFailed
  std::string message;         // the condition message (Pending: which group holds the round)
  std::vector<api::FailedNode> failed_nodes;  // Failed: the nodes blamed (WorkloadFailed)
  std::vector<std::string> succeeded_nodes;   // terminal: the healthy nodes
  std::vector<std::string> demoted;  // "group: why" for each Succeeded group the gate failed
};

// Completes the round described by `input`.
RoundResult complete_round(const RoundInput& input);

// Whether the Job of a group of `nodes` run in the current stage of `status` must run with
// NCCL_MNNVL_ENABLE=0: the no-NVL screening; cross-boundary probes whose origin stage is not
// intra-screening; bisection and confirmation groups holding a node that failed without NVL.
bool forces_mnnvl_off(const api::DiagnoseStatus& status, const std::vector<std::string>& nodes);

// Whether a TrainJob enables MNNVL: a trainer arg `NCCL_MNNVL_ENABLE=<v>` (the first decides), else
// the trainer env var, with any value but "0".
bool mnnvl_enabled(const boost::json::object& train_job);

// Sets NCCL_MNNVL_ENABLE=0 on the trainer: the inline arg when there is one, else the env var,
// else a new env var.
void force_mnnvl_off(boost::json::object& train_job);

// ---- building blocks (exposed for their unit tests) ------------------------------------------

// One bisection round: each failed group at or below `min_group_size` stays whole
// (`bisect-<round>-<i>`), each larger one splits in name order into `bisect-<round>-<i>a/b`.
struct BisectResult {
  std::vector<Group> groups;
  bool converged = true;  // nothing was split
};
BisectResult bisect(const std::vector<Group>& failed, std::int64_t min_group_size,
                    std::int64_t round);

// Mixed probes across a boundary: `cross-<i>-mix0` = first halves of A and B, `cross-<i>-mix1` =
// second halves (only when it holds at least two nodes).
std::vector<Group> cross_boundary_groups(const std::vector<std::string>& half_a,
                                         const std::vector<std::string>& half_b, std::size_t index);

// `confirm-<i>` = {suspect i, healthy[i mod H]}; empty when either list is.
std::vector<Group> confirmation_groups(const std::vector<std::string>& suspects,
                                       const std::vector<std::string>& healthy);

}  // namespace nvcre::workflow::diagnose
