#pragma once
// kube-sim's stand-in for the PersistentVolume controller with a dynamic provisioner: every
// PersistentVolumeClaim gets a PersistentVolume of its own ("pvc-<claim uid>", the reclaim policy
// of the claim's StorageClass, else of the default class, else Delete) and both turn Bound; a
// volume whose claim is gone turns Released, and a Released volume under Delete is deleted (the
// storage reclaimed), as kube-controller-manager does. Retain keeps a Released volume until
// someone changes its policy. The plan is pure; bind_volumes applies it through the store.
#include "sim/store.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nvcre::sim {

inline constexpr std::string_view kSimProvisioner = "sim.nvcre.nvidia.com";

struct VolumeBindingPlan {
  std::vector<boost::json::value> create_volumes;  // new PVs (status Bound is written after)
  std::vector<boost::json::value> bind_claims;     // PVCs with spec.volumeName and status Bound
  std::vector<boost::json::value> volume_status;   // PVs whose status.phase changes
  std::vector<std::string> delete_volumes;         // Released PVs under Delete
  bool empty() const {
    return create_volumes.empty() && bind_claims.empty() && volume_status.empty() &&
           delete_volumes.empty();
  }
};

VolumeBindingPlan plan_volume_binding(const std::vector<boost::json::value>& claims,
                                      const std::vector<boost::json::value>& volumes,
                                      const std::vector<boost::json::value>& storage_classes);

// One pass over the store; how many objects it wrote. `classes` absent: no StorageClass kind.
std::size_t bind_volumes(Store& store, const ResourceType& claims, const ResourceType& volumes,
                         const std::optional<ResourceType>& classes);

}  // namespace nvcre::sim
