#pragma once
// Category resolution, the middle stage of a category build:
// catalog lookup, options, GPU defaults, node count, the catalog entry's build and override
// resolution, against detection facts. Pure; throws CategoryBuildError. The catalog_resolver
// actor runs it for the controller, build_category_workflow for offline renders.
#include <string>
#include <vector>

#include "api/certification.hpp"
#include "api/workflow.hpp"
#include "catalog/catalog.hpp"
#include "certification/build_types.hpp"
#include "platform/node_facts.hpp"

namespace nvcre::certification {

// A category's WorkflowSpec with its overrides resolved, before the gang transforms.
struct ResolvedCategory {
  api::CertificateCategory category;
  api::CategoryOptions options;  // global + per-category (options.hpp)
  api::WorkflowSpec spec;        // overrides still pending stay in spec.overrides (controller)
  std::string platform;
  std::string gpu_architecture;
  std::vector<api::AppliedOverride> applied_overrides;
  std::vector<BuildEvent> events;
  std::string key() const { return category.domain + "/" + category.variant; }
};

// The catalog entry of `category`; CategoryNotFound ("unknown certification category: d/v").
const catalog::Entry& lookup_category_entry(const catalog::Catalog& catalog,
                                            const api::CertificateCategory& category);

// The architecture build_category_workflow uses: the caller's, else the nodes' majority, else the
// nodeSelector's product label, else whatever detection said.
std::string requested_or_detected_architecture(const api::Certification& certification,
                                               const platform::DetectionFacts& facts,
                                               const std::string& requested);

// The controller's target architecture: the primary architecture, else the nodeSelector's
// product label; "" when neither says.
std::string target_architecture(const api::Certification& certification,
                                const platform::DetectionFacts& facts);

// Options, GPU defaults and node count for the entry's build. Offline,
// nodesPerJob defaults to 1; the controller sizes the job against the primary-architecture nodes
// that can supply gpusPerNode. Appends GPUArchitectureDefaults / NICResourceDetection notices.
catalog::BuildConfig category_build_config(const std::string& key, const catalog::Entry& entry,
                                           const api::CategoryOptions& options,
                                           const std::string& architecture,
                                           const platform::DetectionFacts& facts, bool offline,
                                           std::vector<BuildEvent>& events);

// The entry's build, then override resolution against platform, architecture and topology
// domains. Offline every override is dropped once resolved; the controller keeps the pending ones.
void build_and_resolve_overrides(ResolvedCategory& resolved, const catalog::Entry& entry,
                                 const api::Certification& certification,
                                 const catalog::BuildConfig& config,
                                 const platform::DetectionFacts& facts, bool offline);

// The whole stage. `architecture` is used as given (see the two deciders above).
ResolvedCategory resolve_category(const api::Certification& certification,
                                  const api::CertificateCategory& category,
                                  const platform::DetectionFacts& facts,
                                  const std::string& architecture, bool offline,
                                  const catalog::Catalog& catalog);

// The controller's form: the target architecture first (WorkflowValidationFailed when it cannot
// be determined), then resolve_category.
ResolvedCategory resolve_target_category(const api::Certification& certification,
                                         const api::CertificateCategory& category,
                                         const platform::DetectionFacts& facts,
                                         const catalog::Catalog& catalog);

}  // namespace nvcre::certification
