// The first reconcile(s) of a Workflow: discover nodes, detect platform and architecture,
// resolve overrides authoritatively, drop excluded nodes, create the workflow-scoped dependencies
// (one per pass) and partition the survivors into groups.
#include "platform/detect.hpp"
#include "platform/gang_validation.hpp"
#include "platform/resource_slices.hpp"
#include "workflow/node_discovery.hpp"
#include "overrides/overrides.hpp"
#include "workflow/diagnose.hpp"
#include "workflow/partition.hpp"
#include "job/trainjob_adapter.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

#include <map>

namespace nvcre::workflow::detail {
namespace json = boost::json;
namespace reason = api::workflow_reason;

namespace {

struct PendingEvent {
  std::string type;
  std::string reason;
  std::string note;
};

// Discovery events are said once, by the pass that ends discovery (partitioned or failed), not by
// every pass that creates one more dependency.
class Discovery {
 public:
  explicit Discovery(Pass& pass) : pass_(pass) {}

  void event(std::string type, std::string reason, std::string note) {
    events_.push_back({std::move(type), std::move(reason), std::move(note)});
  }
  void flush() {
    for (auto& e : events_) pass_.event(e.type, e.reason, std::move(e.note));
    events_.clear();
  }
  // Failed with the exclusion record computed so far; `error` also requeues with backoff. Always
  // false, so that a step of discovery ends with `return discovery.fail(...)`.
  bool fail(std::string_view why, std::string message, bool error) {
    flush();
    pass_.fail(why, message);
    if (error) pass_.set_error(std::move(message));
    return false;
  }

 private:
  Pass& pass_;
  std::vector<PendingEvent> events_;
};

std::vector<api::GroupStatus> group_statuses(const std::vector<PartitionGroup>& groups,
                                             const std::vector<json::value>& nodes,
                                             const std::string& topology_key) {
  std::map<std::string, std::string> domain_of;
  if (!topology_key.empty()) {
    for (const auto& node : nodes) {
      auto label = platform::NodeView(node).label(topology_key);
      if (label && !label->empty()) domain_of[node_name(node)] = std::string(*label);
    }
  }
  std::vector<api::GroupStatus> out;
  for (const auto& g : groups) {
    api::GroupStatus status;
    status.name = g.name;
    status.nodes = g.nodes;
    status.domains = g.domains;
    status.overflow = g.overflow;
    status.phase = std::string(api::group_phase::kPending);
    if (g.domains.size() > 1 && !domain_of.empty()) {
      for (const auto& n : g.nodes) {
        if (auto it = domain_of.find(n); it != domain_of.end())
          ++status.domainNodeCounts[it->second];
      }
    }
    out.push_back(std::move(status));
  }
  return out;
}

// The nodes discovery keeps, and the ones it dropped on the way (for the exclusion record).
struct Survivors {
  std::vector<std::string> cordoned;
  platform::ArchitectureSelection selection;
  std::vector<json::value> nodes;
  std::vector<CapacityExclusion> capacity_excluded;
  std::int64_t gpus = 0;                 // nvidia.com/gpu the workload requests per node
  std::vector<std::string> synthesized;  // nodes whose product only the ResourceSlices named
};

void record_exclusions(Pass& pass, const Survivors& survivors) {
  ExclusionRecord record = exclusion_summary(survivors.cordoned, survivors.selection.excluded,
                                             survivors.selection.architecture,
                                             survivors.capacity_excluded, survivors.gpus);
  pass.orch().excludedNodes = record.nodes;
  pass.orch().exclusionReason = record.reason;
}

// The target nodes, all on one platform, of the primary GPU architecture. Returns false when
// discovery failed (recorded on the pass), as every step below does.
bool discover_nodes(Pass& pass, Discovery& discovery, Survivors& survivors) {
  auto& orch = pass.orch();
  DiscoveredNodes found = discover_target_nodes(pass.in.cache, pass.spec.orchestration.target);
  if (found.nodes.empty()) {
    return discovery.fail(reason::kNodeDiscoveryError,
                          "No target nodes found matching orchestration target", false);
  }
  // DRA-only nodes carry no product label: their ResourceSlices name it (in memory only).
  const auto slices =
      pass.resource_slice_products(platform::any_node_lacks_gpu_product(found.nodes));
  if (slices.waiting) return false;
  survivors.synthesized = platform::augment_gpu_product_labels(found.nodes, slices.products);
  const auto platform_check = platform::detect_platform_consistent(found.nodes);
  if (!platform_check.ok())
    return discovery.fail("HeterogeneousPlatform", platform_check.error, true);
  orch.detectedPlatform = platform_check.platform;
  if (!found.cordoned.empty()) {
    discovery.event("Warning", "CordonedNodesExcluded",
                    "Excluded " + std::to_string(found.cordoned.size()) +
                        " cordoned node(s) from certification: " + join(found.cordoned));
  }

  survivors.cordoned = std::move(found.cordoned);
  survivors.selection = platform::select_primary_architecture(found.nodes);
  const auto& selection = survivors.selection;
  auto& nodes = survivors.nodes;
  for (auto& node : found.nodes) {
    if (std::find(selection.kept.begin(), selection.kept.end(), node_name(node)) !=
        selection.kept.end()) {
      nodes.push_back(std::move(node));
    }
  }
  if (!selection.excluded.empty()) {
    discovery.event("Warning", "HeterogeneousGPU",
                    "Filtered " + std::to_string(nodes.size()) + "/" +
                        std::to_string(nodes.size() + selection.excluded.size()) +
                        " nodes to primary GPU architecture " + selection.architecture +
                        "; excluded: " + join(selection.excluded));
  }
  orch.detectedGPUArchitecture = selection.architecture;
  // A product only these copies carry would pin the pods to a label no node has.
  if (survivors.synthesized.empty()) pass.extras.gpu_products = distinct_gpu_products(nodes);
  // Recorded before overrides run, so an override failure still leaves the coverage record.
  record_exclusions(pass, survivors);
  return true;
}

// The authoritative, tracked resolution against the stored spec (the untracked pass ran without
// detection, so its result is not built upon).
bool resolve_tracked_overrides(Pass& pass, Discovery& discovery, const Survivors& survivors) {
  const api::WorkflowSpec& stored = pass.doc.workflow.spec;
  auto& orch = pass.orch();
  const std::string topology_key =
      stored.orchestration.topology ? stored.orchestration.topology->topologyKey : "";
  overrides::MatchContext context =
      overrides::match_context_for(stored, orch.detectedPlatform, survivors.selection.architecture,
                                   platform::count_topology_domains(topology_key, survivors.nodes));
  context.config = nullptr;
  try {
    overrides::ResolvedOverrides resolved = overrides::resolve_overrides(stored, context);
    resolved.spec.dependencies =
        overrides::select_dependencies(resolved.spec.dependencies, context);
    pass.spec = std::move(resolved.spec);
    orch.appliedOverrides = resolved.applied;
    pass.extras.placement = pass.doc.extras.placement;
    for (const auto& entry : resolved.applied) {
      if (auto it = pass.doc.extras.override_placements.find(static_cast<std::size_t>(entry.index));
          it != pass.doc.extras.override_placements.end()) {
        pass.extras.placement = it->second;
      }
    }
    for (const auto& e :
         overrides::override_events(resolved.applied, stored.overrides.size(), context)) {
      discovery.event(e.type, e.reason, e.message);
    }
  } catch (const overrides::OverrideError& error) {
    return discovery.fail(overrides::kOverrideErrorReason,
                          overrides::override_failure_message(error), true);
  }
  return true;
}

bool check_placement(Pass& pass, Discovery& discovery, const Survivors& survivors) {
  const bool unpinned = is_unpinned(pass.extras.placement);
  // As upstream: only the non-default mode is recorded; Pinned Workflows carry no status field.
  pass.extras.status_placement = unpinned ? std::string(kPlacementUnpinned) : std::string();
  if (auto problem = placement_problem(pass.spec.orchestration, pass.extras.placement);
      !problem.empty()) {
    return discovery.fail(reason::kPartitionError, problem, true);
  }
  if (auto problem = synthesized_products_problem(pass.extras.placement, survivors.synthesized,
                                                  survivors.selection.excluded);
      !problem.empty()) {
    return discovery.fail(reason::kPartitionError, problem, true);
  }
  return true;
}

// Drops the nodes with fewer allocatable GPUs than the workload requests per node.
bool drop_nodes_short_of_gpus(Pass& pass, Discovery& discovery, Survivors& survivors) {
  const std::int64_t gpus = workload_gpus_per_node(pass.spec);
  CapacityFilter capacity = filter_by_gpu_capacity(std::move(survivors.nodes), gpus);
  survivors.nodes = std::move(capacity.kept);
  survivors.capacity_excluded = std::move(capacity.excluded);
  survivors.gpus = gpus;
  const auto& excluded = survivors.capacity_excluded;
  if (!excluded.empty()) {
    discovery.event("Warning", "InsufficientGPUCapacity",
                    "Excluded " + std::to_string(excluded.size()) + " node(s) with fewer than " +
                        std::to_string(gpus) +
                        " allocatable nvidia.com/gpu: " + gpu_shortfall_detail(excluded));
  }
  record_exclusions(pass, survivors);
  if (survivors.nodes.empty()) {
    std::int64_t best = 0;
    for (const auto& e : excluded) best = std::max(best, e.allocatable);
    return discovery.fail(reason::kPartitionError,
                          "No node can supply the " + std::to_string(gpus) +
                              " nvidia.com/gpu the workload requests per node; best available is " +
                              std::to_string(best),
                          true);
  }
  return true;
}

// The nodes each job runs on: the TrainJob's own count, else (pinned) every surviving node.
bool settle_nodes_per_job(Pass& pass, Discovery& discovery, const Survivors& survivors,
                          bool unpinned, std::int64_t& nodes_per_job) {
  if (!pass.spec.jobTemplate.spec.workload.trainJob) {
    return discovery.fail(
        reason::kPartitionError,
        "Failed to determine workload adapter: no workload type specified in WorkloadSpec", true);
  }
  try {
    nodes_per_job = trainjob::nodes_required(*pass.spec.jobTemplate.spec.workload.trainJob);
  } catch (const trainjob::AdapterError& error) {
    return discovery.fail(reason::kPartitionError,
                          std::string("Failed to detect nodesPerJob: ") + error.what(), true);
  }
  const auto node_count = static_cast<std::int64_t>(survivors.nodes.size());
  if (nodes_per_job < 1) {
    if (unpinned) {
      return discovery.fail(reason::kPartitionError,
                            "orchestration.placement: Unpinned requires an explicit job size, but "
                            "the workload declares none; set nodesPerJob (Certification) or "
                            "numNodes (WorkloadRun). Unpinned will not fall back to running one "
                            "job across all discovered nodes",
                            true);
    }
    nodes_per_job = node_count;
  }
  if (nodes_per_job > node_count) {
    std::string message = not_enough_nodes_message(
        nodes_per_job, node_count, survivors.selection.architecture, survivors.selection.excluded,
        survivors.capacity_excluded, survivors.gpus, unpinned);
    return discovery.fail(reason::kPartitionError, message, true);
  }
  return true;
}

// One unpinned group; diagnose's screening groups (a job's size is then the first group's); or the
// surviving nodes partitioned into groups of `nodes_per_job`.
bool partition_groups(Pass& pass, Discovery& discovery, const std::vector<json::value>& nodes,
                      std::int64_t& nodes_per_job, bool unpinned,
                      std::vector<PartitionGroup>& groups) {
  if (unpinned) {
    groups.push_back({"group-0", {}, {}, false});
    return true;
  }
  PartitionInput input;
  for (const auto& node : nodes) input.nodes.push_back({node_name(node), k8s::labels_of(node)});
  try {
    if (const auto& diagnose = pass.spec.orchestration.diagnose) {
      groups = diagnose::screening_groups(std::move(input.nodes), diagnose->topologyKey);
      nodes_per_job = static_cast<std::int64_t>(groups.front().nodes.size());
      pass.orch().diagnose =
          api::DiagnoseStatus{.stage = std::string(api::diagnose_stage::kIntraScreening)};
      return true;
    }
    input.nodes_per_job = nodes_per_job;
    if (const auto& topology = pass.spec.orchestration.topology) {
      input.topology_key = topology->topologyKey;
      input.strict_domain = topology->strictDomain;
    }
    groups = partition_nodes(std::move(input));
  } catch (const std::invalid_argument& error) {
    return discovery.fail(reason::kPartitionError,
                          std::string("Failed to partition nodes: ") + error.what(), true);
  }
  return true;
}

void record_partition(Pass& pass, Discovery& discovery, const std::vector<json::value>& nodes,
                      const std::vector<PartitionGroup>& groups, std::int64_t nodes_per_job,
                      bool unpinned) {
  auto& orch = pass.orch();
  const auto node_count = static_cast<std::int64_t>(nodes.size());
  const std::string effective_key =
      pass.spec.orchestration.topology ? pass.spec.orchestration.topology->topologyKey : "";
  orch.totalNodes = node_count;
  orch.nodesPerJob = nodes_per_job;
  orch.totalGroups = static_cast<std::int64_t>(groups.size());
  orch.currentIteration = 1;
  orch.groups = group_statuses(groups, nodes, effective_key);
  discovery.flush();
  const std::string message =
      unpinned ? "Discovered " + std::to_string(node_count) + " nodes, running 1 unpinned job of " +
                     std::to_string(nodes_per_job) + " nodes (" +
                     std::to_string(node_count - nodes_per_job) + " target nodes not exercised)"
               : "Discovered " + std::to_string(node_count) + " nodes, partitioned into " +
                     std::to_string(groups.size()) + " groups (" + std::to_string(nodes_per_job) +
                     " nodes/job)";
  pass.set_condition(api::kConditionInProgress, reason::kGroupsPartitioned, message);
  pass.requeue(k8s::kImmediateRequeue);
}

}  // namespace

void discover_and_partition(Pass& pass) {
  Discovery discovery(pass);
  Survivors survivors;
  if (!discover_nodes(pass, discovery, survivors)) return;
  if (!resolve_tracked_overrides(pass, discovery, survivors)) return;
  if (!check_placement(pass, discovery, survivors)) return;
  if (!drop_nodes_short_of_gpus(pass, discovery, survivors)) return;

  const auto gang = platform::validate_resolved_job_template(
      pass.spec.jobTemplate, pass.spec.dependencies, pass.doc.workflow.spec.gangScheduler);
  if (gang.conflict) {
    discovery.fail(reason::kGangSchedulingConflict, gang.conflict->message, true);
    return;
  }
  if (!ensure_workflow_dependencies(pass)) {
    if (api::is_terminal(pass.status.conditions)) discovery.flush();
    return;  // one more dependency this pass (or a failure already recorded)
  }

  const bool unpinned = is_unpinned(pass.extras.placement);
  std::int64_t nodes_per_job = 0;
  if (!settle_nodes_per_job(pass, discovery, survivors, unpinned, nodes_per_job)) return;
  std::vector<PartitionGroup> groups;
  if (!partition_groups(pass, discovery, survivors.nodes, nodes_per_job, unpinned, groups)) return;
  record_partition(pass, discovery, survivors.nodes, groups, nodes_per_job, unpinned);
}

}  // namespace nvcre::workflow::detail
