#pragma once
// The DRA fallback read every kind's discovery shares: when a discovered node has no
// nvidia.com/gpu.product label, one uncached List of resource.k8s.io/v1 ResourceSlices names the
// product its GPUs report (platform/resource_slices.hpp). A refused List (403, an API server that
// does not serve resource.k8s.io/v1) is done without: the nodes stay unlabelled, as upstream.
#include "reconcile/contract.hpp"

#include <map>
#include <string>

namespace nvcre::reconcile {

struct SliceProducts {
  bool waiting = false;  // the List is planned into the plan: the pass must stop and re-plan
  std::map<std::string, std::string> products;  // node name -> product label value
};

// `needed`: some discovered node lacks the product label (nothing is read otherwise).
SliceProducts resource_slice_products(const Context& in, k8s::ReconcilePlan& plan, bool needed);

}  // namespace nvcre::reconcile
