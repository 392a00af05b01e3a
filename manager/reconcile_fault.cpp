#include "manager/reconcile_fault.hpp"

#include "jsonkit/paths.hpp"

#include <stdexcept>
#include <utility>

namespace nvcre::manager {

std::variant<ReconcileFaultTarget, std::string> parse_reconcile_fault(std::string_view text) {
  const auto first = text.find('/');
  const auto second = first == std::string_view::npos ? first : text.find('/', first + 1);
  if (second == std::string_view::npos || text.find('/', second + 1) != std::string_view::npos) {
    return "--fault-reconcile-throw takes Kind/namespace/name (Kind//name for a cluster-scoped "
           "kind), got \"" +
           std::string(text) + "\"";
  }
  ReconcileFaultTarget target{std::string(text.substr(0, first)),
                              std::string(text.substr(first + 1, second - first - 1)),
                              std::string(text.substr(second + 1))};
  if (target.kind.empty() || target.name.empty()) {
    return "--fault-reconcile-throw needs a kind and a name, got \"" + std::string(text) + "\"";
  }
  return target;
}

reconcile::Function throwing_for(reconcile::Function inner, ReconcileFaultTarget target) {
  return [inner = std::move(inner), target = std::move(target)](const reconcile::Context& context) {
    if (context.object != nullptr &&
        jsonkit::string_at(*context.object, {"metadata", "name"}) == target.name &&
        jsonkit::string_at(*context.object, {"metadata", "namespace"}) == target.ns) {
      throw std::runtime_error("fault injection (--fault-reconcile-throw): the reconcile of " +
                               target.kind + " " + (target.ns.empty() ? "" : target.ns + "/") +
                               target.name + " throws on every attempt");
    }
    return inner(context);
  };
}

}  // namespace nvcre::manager
