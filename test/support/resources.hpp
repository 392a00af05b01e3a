#pragma once
// The API resources the manager-driven tests create, read and count, in one place.
#include "k8s/rest_client.hpp"

namespace nvcre::testing {

inline const k8s::ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications",
                                              true};
inline const k8s::ResourceRef kWorkloadRuns{"nvcre.nvidia.com", "v1alpha1", "workloadruns", true};
inline const k8s::ResourceRef kWorkflows{"nvcre.nvidia.com", "v1alpha1", "workflows", true};
inline const k8s::ResourceRef kJobs{"nvcre.nvidia.com", "v1alpha1", "jobs", true};
inline const k8s::ResourceRef kBandwidthMeasurements{"nvcre.nvidia.com", "v1alpha1",
                                                     "bandwidthmeasurements", true};
inline const k8s::ResourceRef kLogProfiles{"nvcre.nvidia.com", "v1alpha1", "logprofiles", false};
inline const k8s::ResourceRef kTrainJobs{"trainer.kubeflow.org", "v1alpha1", "trainjobs", true};
inline const k8s::ResourceRef kTrainingRuntimes{"trainer.kubeflow.org", "v1alpha1",
                                                "trainingruntimes", true};
inline const k8s::ResourceRef kConfigMaps{"", "v1", "configmaps", true};
inline const k8s::ResourceRef kNodes{"", "v1", "nodes", false};
inline const k8s::ResourceRef kEvents{"events.k8s.io", "v1", "events", true};

}  // namespace nvcre::testing
