#pragma once
// The catalog_resolver: category -> WorkflowSpec (certification::resolve_for_request) against the
// platform_detector's facts. Stateless apart from its catalog; a refusal is an answer
// (BuildFailure), an unexpected exception an error reply, and the actor stays up either way.
#include "actors/interfaces.hpp"

#include <functional>

namespace nvcre::actors {

struct CatalogResolverConfig {
  const catalog::Catalog* catalog = &catalog::Catalog::builtin();
  // The pure stage it runs (tests substitute a failing one).
  std::function<certification::ResolveAnswer(const certification::CategoryBuildRequest&,
                                             const platform::DetectionFacts&,
                                             const catalog::Catalog&)>
      resolve = certification::resolve_for_request;
};

struct CatalogResolverState {
  CatalogResolverConfig config;
  static inline const char* name = "catalog_resolver";
};

catalog_resolver_actor::behavior_type catalog_resolver(
    catalog_resolver_actor::stateful_pointer<CatalogResolverState> self,
    CatalogResolverConfig config);

catalog_resolver_actor spawn_catalog_resolver(caf::actor_system& system,
                                              CatalogResolverConfig config = {});

}  // namespace nvcre::actors
