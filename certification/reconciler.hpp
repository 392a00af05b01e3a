#pragma once
// The Certification reconcile: a pure function from what is observed (the
// cached Certification, the informer caches, live reads, the outcome of the previous plan, the
// time) to a ReconcilePlan. Finalizer, deletion cascade, terminal recovery, initialization with
// catalog validation, one Workflow per category in order, mirroring of each Workflow's result,
// and the final verdict. Building a category needs the build services' answer: the reconcile asks
// for it (wanted_builds) and goes on with it from where it asked (Result::resume), without reading,
// decoding and discovering again.
#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

#include "catalog/catalog.hpp"
#include "certification/build_request.hpp"
#include "reconcile/contract.hpp"

namespace nvcre::certification {

inline constexpr std::string_view kCertificationFinalizer =
    "nvcre.nvidia.com/certification-finalizer";
// errNoNodesMatch is retried (WaitingForNodes) for this long after the Certification's creation.
inline constexpr std::chrono::minutes kNodeDiscoveryTimeout{5};

// `catalog` validates the categories at initialization (the controller's is the built-in one).
reconcile::Result reconcile_certification(
    const reconcile::Context& context,
    const catalog::Catalog& catalog = catalog::Catalog::builtin());

// reconcile_certification with every build it asks for answered on the spot by the same pure
// stages the build services run (answer_build_request over context.cache), then resumed: the
// golden tests' and offline tools' stand-in for the actor shell's ask-then-resume.
k8s::ReconcilePlan reconcile_certification_answering_builds(const reconcile::Context& context,
                                                            const catalog::Catalog& catalog);

}  // namespace nvcre::certification
