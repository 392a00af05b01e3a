#pragma once
// The Certification reconcile's question to the build services, and their answers. The pure
// reconcile cannot build a category itself without the Node facts the platform_detector owns, so,
// as with a LiveGet, it asks (CertificationReconcileResult::wanted_build) and is re-planned with
// the answer (CertificationReconcileInput::build_answers). The answer functions here are the pure
// stages each service runs, with CategoryBuildError turned into a BuildFailure value.
#include <string>
#include <variant>
#include <vector>

#include "api/certification.hpp"
#include "catalog/catalog.hpp"
#include "certification/build_types.hpp"
#include "certification/category_resolution.hpp"
#include "k8s/object_cache.hpp"
#include "platform/node_facts.hpp"

namespace nvcre::certification {

struct CategoryBuildRequest {
  api::Certification certification;
  api::CertificateCategory category;
  std::vector<platform::NodeRef> nodes;  // the discovered target nodes, name-sorted
};

// Identifies a request within one reconcile pass: the Certification's identity and
// resourceVersion (its spec decides the build), the category and every node's resourceVersion.
std::string build_request_key(const api::Certification& certification, const api::CertificateCategory& category,
                              const std::vector<platform::NodeRef>& nodes);
inline std::string build_request_key(const CategoryBuildRequest& request) {
  return build_request_key(request.certification, request.category, request.nodes);
}

using ResolveAnswer = std::variant<ResolvedCategory, BuildFailure>;

// catalog_resolver: resolve_target_category.
ResolveAnswer resolve_for_request(const CategoryBuildRequest& request, const platform::DetectionFacts& facts,
                                  const catalog::Catalog& catalog);
// gang_scheduler: assemble_category_workflow.
CategoryBuildAnswer assemble_for_request(const api::Certification& certification, ResolvedCategory resolved);

// The synchronous answerer: every stage in order, detection from `cache` (which must hold the
// request's nodes). Golden tests answer the reconcile's questions with it.
CategoryBuildAnswer answer_build_request(const CategoryBuildRequest& request, const k8s::CacheView& cache,
                                         const catalog::Catalog& catalog);

}  // namespace nvcre::certification
