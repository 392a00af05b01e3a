#pragma once
// The Certification reconcile (controllers.md §4): a pure function from what is observed (the
// cached Certification, the informer caches, live reads, the outcome of the previous plan, the
// time) to a ReconcilePlan. Finalizer, deletion cascade, terminal recovery, initialization with
// catalog validation, one Workflow per category in order, mirroring of each Workflow's result,
// and the final verdict. Building a category needs the build services' answer: the reconcile asks
// for it (wanted_build) and is re-planned with it (build_answers), as with a LiveGet.
#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string_view>

#include "catalog/catalog.hpp"
#include "certification/build_request.hpp"
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

namespace nvcre::certification {

inline constexpr std::string_view kCertificationFinalizer = "nvcre.nvidia.com/certification-finalizer";
// errNoNodesMatch is retried (WaitingForNodes) for this long after the Certification's creation.
inline constexpr std::chrono::minutes kNodeDiscoveryTimeout{5};

// The answer to the request with this build_request_key, or nullptr when it has not been asked.
using BuildAnswerLookup = std::function<const CategoryBuildAnswer*(const std::string& request_key)>;

struct CertificationReconcileInput {
  const boost::json::value* object = nullptr;  // the cached Certification; nullptr: gone, nothing to do
  const k8s::CacheView& cache;                  // Workflows (nvcre.nvidia.com/v1alpha1) and Nodes (v1)
  const k8s::LiveReads& live;                   // answers to this reconcile's earlier LiveGets
  const std::optional<k8s::ActionOutcome>& outcome;  // the previous plan's failed action
  k8s::Clock::time_point now;
  const catalog::Catalog& catalog;
  BuildAnswerLookup build_answers = {};  // empty: nothing answered yet
};

struct CertificationReconcileResult {
  k8s::ReconcilePlan plan;  // empty when it asks for a build
  std::optional<CategoryBuildRequest> wanted_build;
};

CertificationReconcileResult reconcile_certification(const CertificationReconcileInput& input);

// reconcile_certification with every build it asks for answered on the spot by the same pure
// stages the build services run (answer_build_request over input.cache): the golden tests' and
// offline tools' stand-in for the actor shell's ask-then-replan.
k8s::ReconcilePlan reconcile_certification_answering_builds(const CertificationReconcileInput& input);

}  // namespace nvcre::certification
