#pragma once
// The pure stages each build service runs to answer a reconcile::CategoryBuildRequest, with
// CategoryBuildError turned into a BuildFailure value.
#include <string>
#include <variant>
#include <vector>

#include "api/certification.hpp"
#include "catalog/catalog.hpp"
#include "certification/build_types.hpp"
#include "reconcile/build_request.hpp"
#include "certification/category_resolution.hpp"
#include "k8s/object_cache.hpp"
#include "platform/node_facts.hpp"

namespace nvcre::certification {

using reconcile::build_request_key;
using reconcile::CategoryBuildRequest;

using ResolveAnswer = std::variant<ResolvedCategory, BuildFailure>;

// catalog_resolver: resolve_target_category.
ResolveAnswer resolve_for_request(const CategoryBuildRequest& request,
                                  const platform::DetectionFacts& facts,
                                  const catalog::Catalog& catalog);
// gang_scheduler: assemble_category_workflow.
CategoryBuildAnswer assemble_for_request(const api::Certification& certification,
                                         ResolvedCategory resolved);

// The synchronous answerer: every stage in order, detection from `cache` (which must hold the
// request's nodes). Golden tests answer the reconcile's questions with it.
CategoryBuildAnswer answer_build_request(const CategoryBuildRequest& request,
                                         const k8s::CacheView& cache,
                                         const catalog::Catalog& catalog);

}  // namespace nvcre::certification
