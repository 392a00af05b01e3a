#include "actors/build_services.hpp"

#include <caf/all.hpp>

#include <functional>

namespace nvcre::actors {
namespace {

std::function<void(caf::error&)> fail_with(std::function<void(BuildReply)> reply) {
  return [reply = std::move(reply)](caf::error& error) {
    const auto& context = error.context();
    // A service's own error reply carries its text; anything else (a dead or silent service) is
    // CAF's.
    reply(BuildReply{std::nullopt, context.match_elements<std::string>()
                                       ? context.get_as<std::string>(0)
                                       : to_string(error)});
  };
}

template <class Actor>
const Actor& pick(const std::vector<Actor>& pool, std::size_t hash) {
  return pool[hash % pool.size()];
}

}  // namespace

void ask_category_build(reconciler_actor::pointer self, const ServiceActors& services,
                        reconcile::CategoryBuildRequest request, std::chrono::milliseconds timeout,
                        std::function<void(BuildReply)> reply) {
  if (services.resolvers.empty() || services.assemblers.empty()) {
    reply(BuildReply{std::nullopt, "no build services are running"});
    return;
  }
  const std::size_t hash = std::hash<std::string>{}(reconcile::build_request_key(request));
  auto resolver = pick(services.resolvers, hash);
  auto gang = pick(services.assemblers, hash);
  auto shared = std::make_shared<const reconcile::CategoryBuildRequest>(std::move(request));
  self->request(services.detector, timeout, detect_atom::value, shared->nodes)
      .then(
          [=](platform::DetectionFacts& facts) {
            self->request(resolver, timeout, resolve_atom::value, *shared, std::move(facts))
                .then(
                    [=](certification::ResolveAnswer& resolved) {
                      if (auto* refused = std::get_if<certification::BuildFailure>(&resolved)) {
                        reply(BuildReply{reconcile::CategoryBuildAnswer{std::move(*refused)}, {}});
                        return;
                      }
                      self->request(gang, timeout, assemble_atom::value, shared->certification,
                                    std::get<certification::ResolvedCategory>(std::move(resolved)))
                          .then(
                              [=](reconcile::CategoryBuildAnswer& answer) {
                                reply(BuildReply{std::move(answer), {}});
                              },
                              fail_with(reply));
                    },
                    fail_with(reply));
          },
          fail_with(reply));
}

}  // namespace nvcre::actors
