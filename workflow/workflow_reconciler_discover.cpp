// §5.4: the first reconcile(s) of a Workflow: discover nodes, detect platform and architecture,
// resolve overrides authoritatively, drop excluded nodes, create the workflow-scoped dependencies
// (one per pass) and partition the survivors into groups.
#include "platform/detect.hpp"
#include "platform/gang_validation.hpp"
#include "workflow/node_discovery.hpp"
#include "workflow/overrides.hpp"
#include "workflow/partition.hpp"
#include "workflow/trainjob_adapter.hpp"
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
  // Failed with the exclusion record computed so far; `error` also requeues with backoff.
  void fail(std::string_view why, std::string message, bool error) {
    flush();
    pass_.fail(why, message);
    if (error) pass_.set_error(std::move(message));
  }

 private:
  Pass& pass_;
  std::vector<PendingEvent> events_;
};

std::string placement_problem(const api::OrchestrationSpec& orchestration, std::string_view placement) {
  if (!is_unpinned(placement)) return {};
  if (orchestration.diagnose) {
    return "orchestration.placement: Unpinned is incompatible with orchestration.diagnose: diagnose isolates faults by "
           "partitioning nodes into groups and bisecting the failures, which requires the node pinning Unpinned "
           "removes; drop one of the two";
  }
  if (orchestration.topology && orchestration.topology->strictDomain) {
    return "orchestration.placement: Unpinned is incompatible with orchestration.topology.strictDomain: strictDomain "
           "runs one job per topology domain, Unpinned runs exactly one job; to confine a single unpinned job to one "
           "domain, name the domain label in target.matchExpressions instead";
  }
  return {};
}

std::vector<api::GroupStatus> group_statuses(const std::vector<PartitionGroup>& groups,
                                             const std::vector<json::value>& nodes, const std::string& topology_key) {
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
        if (auto it = domain_of.find(n); it != domain_of.end()) ++status.domainNodeCounts[it->second];
      }
    }
    out.push_back(std::move(status));
  }
  return out;
}

}  // namespace

void discover_and_partition(Pass& pass) {
  Discovery discovery(pass);
  const api::WorkflowSpec& stored = pass.doc.workflow.spec;
  auto& orch = pass.orch();
  DiscoveredNodes found = discover_target_nodes(pass.in.cache, pass.spec.orchestration.target);
  if (found.nodes.empty()) {
    return discovery.fail(reason::kNodeDiscoveryError, "No target nodes found matching orchestration target", false);
  }
  const auto platform_check = platform::detect_platform_consistent(found.nodes);
  if (!platform_check.ok()) return discovery.fail("HeterogeneousPlatform", platform_check.error, true);
  orch.detectedPlatform = platform_check.platform;
  if (!found.cordoned.empty()) {
    discovery.event("Warning", "CordonedNodesExcluded",
                    "Excluded " + std::to_string(found.cordoned.size()) + " cordoned node(s) from certification: " +
                        join(found.cordoned));
  }

  const auto selection = platform::select_primary_architecture(found.nodes);
  std::vector<json::value> nodes;
  for (auto& node : found.nodes) {
    if (std::find(selection.kept.begin(), selection.kept.end(), node_name(node)) != selection.kept.end()) {
      nodes.push_back(std::move(node));
    }
  }
  if (!selection.excluded.empty()) {
    discovery.event("Warning", "HeterogeneousGPU",
                    "Filtered " + std::to_string(nodes.size()) + "/" + std::to_string(nodes.size() + selection.excluded.size()) +
                        " nodes to primary GPU architecture " + selection.architecture + "; excluded: " +
                        join(selection.excluded));
  }
  const std::string& arch = selection.architecture;
  orch.detectedGPUArchitecture = arch;
  pass.extras.gpu_products = distinct_gpu_products(nodes);
  // Recorded before overrides run, so an override failure still leaves the coverage record.
  ExclusionRecord record = exclusion_summary(found.cordoned, selection.excluded, arch, {}, 0);
  orch.excludedNodes = record.nodes;
  orch.exclusionReason = record.reason;

  // The authoritative, tracked resolution against the stored spec (the untracked pass ran without
  // detection, so its result is not built upon).
  const std::string topology_key = stored.orchestration.topology ? stored.orchestration.topology->topologyKey : "";
  MatchContext context = match_context_for(stored, orch.detectedPlatform, arch,
                                           platform::count_topology_domains(topology_key, nodes));
  context.config = nullptr;
  try {
    ResolvedOverrides resolved = resolve_overrides(stored, context);
    resolved.spec.dependencies = select_dependencies(resolved.spec.dependencies, context);
    pass.spec = std::move(resolved.spec);
    orch.appliedOverrides = resolved.applied;
    pass.extras.placement = pass.doc.extras.placement;
    for (const auto& entry : resolved.applied) {
      if (auto it = pass.doc.extras.override_placements.find(static_cast<std::size_t>(entry.index));
          it != pass.doc.extras.override_placements.end()) {
        pass.extras.placement = it->second;
      }
    }
    for (const auto& e : override_events(resolved.applied, stored.overrides.size(), context)) {
      discovery.event(e.type, e.reason, e.message);
    }
  } catch (const OverrideError& error) {
    return discovery.fail(kOverrideErrorReason, override_failure_message(error), true);
  }

  const bool unpinned = is_unpinned(pass.extras.placement);
  pass.extras.status_placement = std::string(unpinned ? kPlacementUnpinned : kPlacementPinned);
  if (auto problem = placement_problem(pass.spec.orchestration, pass.extras.placement); !problem.empty()) {
    return discovery.fail(reason::kPartitionError, problem, true);
  }

  const std::int64_t gpus = workload_gpus_per_node(pass.spec);
  CapacityFilter capacity = filter_by_gpu_capacity(std::move(nodes), gpus);
  nodes = std::move(capacity.kept);
  if (!capacity.excluded.empty()) {
    discovery.event("Warning", "InsufficientGPUCapacity",
                    "Excluded " + std::to_string(capacity.excluded.size()) + " node(s) with fewer than " +
                        std::to_string(gpus) + " allocatable nvidia.com/gpu: " + gpu_shortfall_detail(capacity.excluded));
  }
  record = exclusion_summary(found.cordoned, selection.excluded, arch, capacity.excluded, gpus);
  orch.excludedNodes = record.nodes;
  orch.exclusionReason = record.reason;
  if (nodes.empty()) {
    std::int64_t best = 0;
    for (const auto& e : capacity.excluded) best = std::max(best, e.allocatable);
    return discovery.fail(reason::kPartitionError,
                          "No node can supply the " + std::to_string(gpus) +
                              " nvidia.com/gpu the workload requests per node; best available is " + std::to_string(best),
                          true);
  }

  const auto gang = platform::validate_resolved_job_template(pass.spec.jobTemplate, pass.spec.dependencies, stored.gangScheduler);
  if (gang.conflict) return discovery.fail(reason::kGangSchedulingConflict, gang.conflict->message, true);

  if (!ensure_workflow_dependencies(pass)) {
    if (api::is_terminal(pass.status.conditions)) discovery.flush();
    return;  // one more dependency this pass (or a failure already recorded)
  }

  std::int64_t nodes_per_job = 0;
  if (!pass.spec.jobTemplate.spec.workload.trainJob) {
    return discovery.fail(reason::kPartitionError,
                          "Failed to determine workload adapter: no workload type specified in WorkloadSpec", true);
  }
  try {
    nodes_per_job = trainjob::nodes_required(*pass.spec.jobTemplate.spec.workload.trainJob);
  } catch (const trainjob::AdapterError& error) {
    return discovery.fail(reason::kPartitionError, std::string("Failed to detect nodesPerJob: ") + error.what(), true);
  }
  const auto node_count = static_cast<std::int64_t>(nodes.size());
  if (nodes_per_job < 1) {
    if (unpinned) {
      return discovery.fail(reason::kPartitionError,
                            "Unpinned placement needs an explicit job size: set trainer.numNodes (nodesPerJob)", true);
    }
    nodes_per_job = node_count;
  }
  if (nodes_per_job > node_count) {
    std::string message = unpinned ? "Not enough schedulable nodes: need " + std::to_string(nodes_per_job) + ", found " +
                                         std::to_string(node_count) + "; make " + std::to_string(nodes_per_job) +
                                         " qualifying nodes available"
                                   : not_enough_nodes_message(nodes_per_job, node_count, arch, selection.excluded,
                                                              capacity.excluded, gpus);
    return discovery.fail(reason::kPartitionError, message, true);
  }

  std::vector<PartitionGroup> groups;
  if (unpinned) {
    groups.push_back({"group-0", {}, {}, false});
  } else if (pass.spec.orchestration.diagnose) {
    return discovery.fail(reason::kPartitionError,
                          "Failed to partition nodes: orchestration.diagnose is not supported by this controller", true);
  } else {
    PartitionInput input;
    for (const auto& node : nodes) input.nodes.push_back({node_name(node), k8s::labels_of(node)});
    input.nodes_per_job = nodes_per_job;
    if (const auto& topology = pass.spec.orchestration.topology) {
      input.topology_key = topology->topologyKey;
      input.strict_domain = topology->strictDomain;
    }
    try {
      groups = partition_nodes(std::move(input));
    } catch (const std::invalid_argument& error) {
      return discovery.fail(reason::kPartitionError, std::string("Failed to partition nodes: ") + error.what(), true);
    }
  }

  const std::string effective_key = pass.spec.orchestration.topology ? pass.spec.orchestration.topology->topologyKey : "";
  orch.totalNodes = node_count;
  orch.nodesPerJob = nodes_per_job;
  orch.totalGroups = static_cast<std::int64_t>(groups.size());
  orch.currentIteration = 1;
  orch.groups = group_statuses(groups, nodes, effective_key);
  discovery.flush();
  const std::string message =
      unpinned ? "Discovered " + std::to_string(node_count) + " nodes, running 1 unpinned job of " +
                     std::to_string(nodes_per_job) + " nodes (" + std::to_string(node_count - nodes_per_job) +
                     " target nodes not exercised)"
               : "Discovered " + std::to_string(node_count) + " nodes, partitioned into " + std::to_string(groups.size()) +
                     " groups (" + std::to_string(nodes_per_job) + " nodes/job)";
  pass.set_condition(api::kConditionInProgress, reason::kGroupsPartitioned, message);
  pass.requeue(k8s::kImmediateRequeue);
}

}  // namespace nvcre::workflow::detail
