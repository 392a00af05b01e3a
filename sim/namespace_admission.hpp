#pragma once
// What the API server's namespace strategy does to a Namespace on create: it starts Active and
// carries the "kubernetes" spec finalizer (added when missing).
#include "sim/store.hpp"

namespace nvcre::sim {

// An Admit (sim/store.hpp): on create (no old object) sets status.phase Active and adds the
// "kubernetes" finalizer to spec.finalizers; updates pass unchanged.
void admit_namespace(const boost::json::value* old_object, boost::json::value& ns);

}  // namespace nvcre::sim
