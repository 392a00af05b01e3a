#pragma once
// Fault injection for one object's reconcile (nvcre-manager --fault-reconcile-throw
// Kind/namespace/name): the reconcile of that object throws on every attempt, as a poisoned spec
// would, so chaos runs and benches can check that one crashing reconcile leaves the others alone.
#include "reconcile/contract.hpp"

#include <string>
#include <string_view>
#include <variant>

namespace nvcre::manager {

struct ReconcileFaultTarget {
  std::string kind;
  std::string ns;  // "" for a cluster-scoped kind: Kind//name
  std::string name;
};

// "Kind/namespace/name" parsed, or why it is not one.
std::variant<ReconcileFaultTarget, std::string> parse_reconcile_fault(std::string_view text);

// `inner`, except that a pass over `target` throws std::runtime_error naming the injection.
reconcile::Function throwing_for(reconcile::Function inner, ReconcileFaultTarget target);

}  // namespace nvcre::manager
