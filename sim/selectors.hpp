#pragma once
// List/watch filters from query parameters: labelSelector (k8s::LabelSelector grammar) and
// fieldSelector (`a=b`, `a==b`, `a!=b`, comma-separated; metadata.name, metadata.namespace and,
// leniently, any dotted path to a scalar of the object).
#include "sim/store.hpp"

#include <string>

namespace nvcre::sim {

// Throws ApiError 400 for a malformed selector.
Filter make_filter(const std::string& label_selector, const std::string& field_selector);

}  // namespace nvcre::sim
