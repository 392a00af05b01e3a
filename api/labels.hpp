#pragma once
// The labels and annotations nvcre writes or selects by, defined once for every layer.
#include <string_view>

namespace nvcre::api {

// Every object nvcre creates carries managed-by=nvcre; the ConfigMap informer selects by it.
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kManagedByValue = "nvcre";

// Jobs, dependencies and measurements: the Workflow they belong to.
inline constexpr std::string_view kWorkflowLabel = "nvcre.nvidia.com/workflow";
// A Certification's Workflows: the Certification they run a category of.
inline constexpr std::string_view kCertificationLabel = "nvcre.nvidia.com/certification";
// A Job's TrainJob and pods: which nvcre Job and node group they run for.
inline constexpr std::string_view kJobLabel = "nvcre.nvidia.com/job";
inline constexpr std::string_view kGroupLabel = "nvcre.nvidia.com/group";
// The nodes of a group, comma-separated, on the Job.
inline constexpr std::string_view kGroupNodesAnnotation = "nvcre.nvidia.com/group-nodes";

// On a Certification: the name of a results-archive destination the controller is configured with,
// where the run's record should be written (set by `nvcrectl certification run --archive-to`).
inline constexpr std::string_view kArchiveDestinationAnnotation =
    "nvcre.nvidia.com/archive-destination";

// GPU Feature Discovery's marker of a GPU node.
inline constexpr std::string_view kGpuPresentLabel = "nvidia.com/gpu.present";

}  // namespace nvcre::api
