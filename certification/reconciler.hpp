#pragma once
// The Certification reconcile (controllers.md §4): a pure function from what is observed (the
// cached Certification, the informer caches, live reads, the outcome of the previous plan, the
// time) to a ReconcilePlan. Finalizer, deletion cascade, terminal recovery, initialization with
// catalog validation, one Workflow per category in order, mirroring of each Workflow's result,
// and the final verdict.
#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

#include "catalog/catalog.hpp"
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

namespace nvcre::certification {

inline constexpr std::string_view kCertificationFinalizer = "nvcre.nvidia.com/certification-finalizer";
// errNoNodesMatch is retried (WaitingForNodes) for this long after the Certification's creation.
inline constexpr std::chrono::minutes kNodeDiscoveryTimeout{5};

struct CertificationReconcileInput {
  const boost::json::value* object = nullptr;  // the cached Certification; nullptr: gone, nothing to do
  const k8s::CacheView& cache;                  // Workflows (nvcre.nvidia.com/v1alpha1) and Nodes (v1)
  const k8s::LiveReads& live;                   // answers to this reconcile's earlier LiveGets
  const std::optional<k8s::ActionOutcome>& outcome;  // the previous plan's failed action
  k8s::Clock::time_point now;
  const catalog::Catalog& catalog;
};

k8s::ReconcilePlan reconcile_certification(const CertificationReconcileInput& input);

}  // namespace nvcre::certification
