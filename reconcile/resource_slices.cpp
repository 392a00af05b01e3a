#include "reconcile/resource_slices.hpp"

#include "platform/resource_slices.hpp"
#include "reconcile/reads.hpp"

namespace nvcre::reconcile {

SliceProducts resource_slice_products(const Context& in, k8s::ReconcilePlan& plan, bool needed) {
  SliceProducts out;
  if (!needed) return out;
  const k8s::ObjectRef collection{std::string(platform::kResourceSliceApiVersion),
                                  std::string(platform::kResourceSliceKind), "", ""};
  const auto lookup = read_collection(in, plan, collection);
  switch (lookup.state) {
    case CollectionLookup::State::Unknown:
      out.waiting = true;
      break;
    case CollectionLookup::State::Listed:
      out.products = platform::gpu_products_by_node(*lookup.list);
      break;
    case CollectionLookup::State::Unavailable:
      break;
  }
  return out;
}

}  // namespace nvcre::reconcile
