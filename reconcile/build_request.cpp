#include "reconcile/build_request.hpp"

namespace nvcre::reconcile {

std::string build_request_key(const CategoryBuildRequest& request) {
  const auto& meta = request.certification.metadata;
  std::string key = meta.namespace_ + "/" + meta.name + "@" + meta.resourceVersion + "#" +
                    meta.uid + " " + request.category.domain + "/" + request.category.variant +
                    " on";
  for (const auto& node : request.nodes) {
    key += " " + node.name + "@" + node.resource_version;
    if (!node.resource_slice_product.empty()) key += "=" + node.resource_slice_product;
  }
  return key;
}

}  // namespace nvcre::reconcile
