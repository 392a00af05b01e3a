#include "actors/build_services.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {
namespace {

std::function<void(caf::error&)> fail_with(std::function<void(ServiceReply)> reply) {
  return [reply = std::move(reply)](caf::error& error) {
    const auto& context = error.context();
    // A service's own error reply carries its text; anything else (a dead or silent service) is CAF's.
    reply(ServiceReply{{}, context.match_elements<std::string>() ? context.get_as<std::string>(0) : to_string(error)});
  };
}

}  // namespace

void ask_category_build(reconciler_actor::pointer self, const ServiceActors& services,
                        certification::CategoryBuildRequest request, std::chrono::milliseconds timeout,
                        std::function<void(ServiceReply)> reply) {
  auto shared = std::make_shared<const certification::CategoryBuildRequest>(std::move(request));
  self->request(services.detector, timeout, detect_atom::value, shared->nodes)
      .then(
          [=](platform::DetectionFacts& facts) {
            self->request(services.resolver, timeout, resolve_atom::value, *shared, std::move(facts))
                .then(
                    [=](certification::ResolveAnswer& resolved) {
                      if (auto* refused = std::get_if<certification::BuildFailure>(&resolved)) {
                        reply(ServiceReply{certification::CategoryBuildAnswer{std::move(*refused)}, {}});
                        return;
                      }
                      self->request(services.gang, timeout, gang_atom::value, shared->certification,
                                    std::get<certification::ResolvedCategory>(std::move(resolved)))
                          .then([=](certification::CategoryBuildAnswer& answer) { reply(ServiceReply{std::move(answer), {}}); },
                                fail_with(reply));
                    },
                    fail_with(reply));
          },
          fail_with(reply));
}

ServiceAsker category_build_asker(std::chrono::milliseconds timeout) {
  return [timeout](reconciler_actor::pointer self, const ServiceActors& services, const k8s::ServiceWant& want,
                   std::function<void(ServiceReply)> reply) {
    const auto* request = std::any_cast<certification::CategoryBuildRequest>(&want.question);
    if (request == nullptr) {
      reply(ServiceReply{{}, "the Certification controller cannot answer service want " + want.key});
      return;
    }
    ask_category_build(self, services, *request, timeout, std::move(reply));
  };
}

}  // namespace nvcre::actors
