#include "certification/build_request.hpp"

#include <stdexcept>

#include "catalog/tcpxo_detect.hpp"
#include "platform/platform_names.hpp"
#include "certification/workflow_assembly.hpp"

namespace nvcre::certification {

ResolveAnswer resolve_for_request(const CategoryBuildRequest& request,
                                  const platform::DetectionFacts& facts,
                                  const catalog::Catalog& catalog) {
  try {
    return resolve_target_category(request.certification, request.category, facts, catalog);
  } catch (const CategoryBuildError& error) {
    return BuildFailure{error.reason, error.what()};
  }
}

CategoryBuildAnswer assemble_for_request(const api::Certification& certification,
                                         ResolvedCategory resolved) {
  try {
    return assemble_category_workflow(std::move(resolved), certification);
  } catch (const CategoryBuildError& error) {
    return BuildFailure{error.reason, error.what()};
  }
}

CategoryBuildAnswer answer_build_request(const CategoryBuildRequest& request,
                                         const k8s::CacheView& cache,
                                         const catalog::Catalog& catalog) {
  auto [nodes, missing] = platform::cached_nodes(request.nodes, cache);
  if (!missing.empty())
    throw std::logic_error("build request names node " + missing + " the cache lacks");
  auto facts = platform::detect_nodes(std::move(nodes));
  if (facts.platform == platform::kGcp)  // as the platform_detector reads them
    facts.tcpxo_plugin_tags = catalog::cached_tcpxo_plugin_tags(cache, facts.nodes);
  auto resolved = resolve_for_request(request, std::move(facts), catalog);
  if (auto* failure = std::get_if<BuildFailure>(&resolved)) return *failure;
  return assemble_for_request(request.certification,
                              std::get<ResolvedCategory>(std::move(resolved)));
}

}  // namespace nvcre::certification
