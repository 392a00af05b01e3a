#include "actors/catalog_resolver.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {

catalog_resolver_actor::behavior_type catalog_resolver(
    catalog_resolver_actor::stateful_pointer<CatalogResolverState> self,
    CatalogResolverConfig config) {
  self->state.config = std::move(config);
  return {
      [=](resolve_atom, const certification::CategoryBuildRequest& request,
          const platform::DetectionFacts& facts) -> caf::result<certification::ResolveAnswer> {
        try {
          return self->state.config.resolve(request, facts, *self->state.config.catalog);
        } catch (const std::exception& error) {
          // A service that throws stays up; the asking reconcile gets the error and retries.
          return caf::make_error(caf::sec::runtime_error,
                                 std::string("catalog_resolver: ") + error.what());
        }
      },
  };
}

catalog_resolver_actor spawn_catalog_resolver(caf::actor_system& system,
                                              CatalogResolverConfig config) {
  return system.spawn(catalog_resolver, std::move(config));
}

}  // namespace nvcre::actors
