#include "certification/build.hpp"

#include "certification/category_resolution.hpp"
#include "certification/workflow_assembly.hpp"
#include "platform/node_facts.hpp"

namespace nvcre::certification {

CategoryBuild build_category_workflow(const api::Certification& certification,
                                      const api::CertificateCategory& category,
                                      const BuildInput& input, const catalog::Catalog& catalog) {
  const auto facts = platform::detect_nodes(input.nodes);
  const std::string architecture =
      requested_or_detected_architecture(certification, facts, input.gpu_architecture);
  auto resolved =
      resolve_category(certification, category, facts, architecture, input.offline, catalog);
  return assemble_category_workflow(std::move(resolved), certification);
}

}  // namespace nvcre::certification
