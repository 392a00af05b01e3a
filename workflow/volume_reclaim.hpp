#pragma once
// The PersistentVolumes behind a Workflow's PersistentVolumeClaims (checkpoint storage): before an
// owned claim is deleted its bound volume is stamped with the Workflow's uid annotation, and once
// the claim is gone and the volume Released, a stamped volume under Retain is flipped to Delete so
// the storage is reclaimed instead of left behind. Only stamped volumes are ever flipped: a
// volume someone else bound to a claim of the same name keeps its policy. Pure functions over the
// objects read live; the Workflow reconcile plans what they return.
#include "api/workflow.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow {

inline constexpr std::string_view kPersistentVolumeClaimKind = "PersistentVolumeClaim";

// The volume a claim is bound to ("" while unbound).
std::string bound_volume_name(const boost::json::value& claim);

// The MergePatch that stamps `volume` with the Workflow's uid; nullopt when it carries it already.
std::optional<k8s::Action> stamp_volume(const boost::json::value& volume,
                                        std::string_view workflow_uid);

// What to do with the Workflow's volumes, from a live List of PersistentVolumes: flip every volume
// stamped with its uid that is no longer Bound and under Retain, and wait while one is still
// Bound (its claim is not gone yet).
struct VolumeReclaim {
  std::vector<k8s::Action> flips;  // MergePatch persistentVolumeReclaimPolicy: Delete
  bool wait = false;               // a stamped volume is still Bound: look again shortly
};
VolumeReclaim reclaim_volumes(const boost::json::value& volume_list, std::string_view workflow_uid);

// Whether the Workflow creates PersistentVolumeClaims (then its deletion reclaims their volumes).
bool declares_claims(const api::WorkflowSpec& spec);

// How soon to look again at a volume that is still Bound.
inline constexpr std::chrono::milliseconds kVolumeRequeue{5000};

}  // namespace nvcre::workflow
