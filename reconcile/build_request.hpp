#pragma once
// A Certification reconcile's question to the build services, and their answers. The pure
// reconcile cannot build a category itself without the Node facts the platform detector owns, so,
// as with a LiveGet, it asks (Result::wanted_builds) and is re-planned with the answer
// (Context::build_answers).
#include "api/certification.hpp"
#include "api/workflow.hpp"
#include "platform/node_facts.hpp"

#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace nvcre::reconcile {

struct CategoryBuildRequest {
  api::Certification certification;
  api::CertificateCategory category;
  std::vector<platform::NodeRef> nodes;  // the discovered target nodes, name-sorted
};

// Identifies a request within one reconcile pass: the Certification's identity and
// resourceVersion (its spec decides the build), the category and every node's resourceVersion.
std::string build_request_key(const CategoryBuildRequest& request);

// What a category build or a WorkloadRun build reads besides its spec.
struct BuildInput {
  std::vector<boost::json::value> nodes;  // the target's nodes (offline render: one synthetic node)
  // Architecture decided by the caller (offline: --gpu-arch or the nodeSelector's product label);
  // empty means "detect from the nodes by majority vote".
  std::string gpu_architecture;
  // Offline render: nodesPerJob defaults to 1 (no cluster to count) and every override is removed
  // from the output once resolved; the controller keeps the ones it must still evaluate.
  bool offline = false;
};

struct BuildEvent {
  std::string type;  // Normal | Warning
  std::string reason;
  std::string message;
};

struct CategoryBuild {
  api::Workflow workflow;
  std::string platform;
  std::string gpu_architecture;
  std::vector<api::AppliedOverride> applied_overrides;
  std::vector<BuildEvent> events;  // GPUArchitectureDefaults, NICResourceDetection
};

// Why a category could not be built; `reason` is the Certification condition reason.
struct BuildFailure {
  std::string reason;
  std::string message;
  bool operator==(const BuildFailure&) const = default;
};

using CategoryBuildAnswer = std::variant<CategoryBuild, BuildFailure>;

}  // namespace nvcre::reconcile
