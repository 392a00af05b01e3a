#pragma once
// A Workflow as the controller reads and writes it: the typed model plus the few fields the CRD
// already has but api/workflow.hpp does not model yet (orchestration placement, the recorded GPU
// products). Those are lifted out of the JSON before the strict decode and put back when the status
// is encoded, so a Workflow carrying them neither fails to decode nor loses them on a status write.
#include "api/workflow.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow {

inline constexpr std::string_view kWorkflowFinalizer = "nvcre.nvidia.com/workflow-finalizer";
inline constexpr std::string_view kPlacementPinned = "Pinned";
inline constexpr std::string_view kPlacementUnpinned = "Unpinned";

// Fields carried beside the typed model (CRD: spec.orchestration.placement,
// spec.overrides[].orchestration.placement, status.orchestration.{gpuProducts,placement}).
struct WorkflowExtras {
  std::string placement;                                   // spec; "" means Pinned
  std::map<std::size_t, std::string> override_placements;  // override index -> placement it sets
  std::vector<std::string> gpu_products;                   // status: distinct gpu.product values
  std::string status_placement;                            // status: placement in effect
};

struct WorkflowDocument {
  api::Workflow workflow;
  WorkflowExtras extras;
  boost::json::value status_json;  // the persisted status as read ({} when absent)
};

// Decodes a cached Workflow. Throws api::DecodeError naming every problem.
WorkflowDocument read_workflow(const boost::json::value& object);

// The JSON of `status` with the extras put back under status.orchestration.
boost::json::value encode_status(const api::WorkflowStatus& status, const WorkflowExtras& extras);

bool is_unpinned(std::string_view placement);

// Why `orchestration` (after overrides) contradicts `placement`, or "" when it does not: Unpinned
// runs exactly one job, so diagnose and topology.strictDomain are refused; a topologyKey (which
// platform overrides add) is not. The controller, `workflow render` and `workloadrun render` share
// it.
std::string placement_problem(const api::OrchestrationSpec& orchestration,
                              std::string_view placement);

// Why Unpinned cannot build the job's GPU-architecture term, or "" when it can. `synthesized` names
// the nodes whose product label the DRA fallback filled in on in-memory copies only (a term made of
// it matches no node on the API server); `arch_excluded` the nodes dropped for another
// architecture. Without the term an Unpinned job could land on those, so the run is refused; Pinned
// (hosts already chosen) and a uniform fleet just leave the term out.
std::string synthesized_products_problem(std::string_view placement,
                                         const std::vector<std::string>& synthesized,
                                         const std::vector<std::string>& arch_excluded);

// The RFC 7386 merge patch turning `before` into `after`: `after` itself plus an explicit null for
// every object member `before` had and `after` lacks (recursively; arrays are replaced whole).
boost::json::value merge_patch_between(const boost::json::value& before,
                                       const boost::json::value& after);

}  // namespace nvcre::workflow
