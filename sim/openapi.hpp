#pragma once
// A minimal OpenAPI v3 surface: the /openapi/v3 index and one document per group-version listing
// each resource's paths with the operations' x-kubernetes-group-version-kind and the
// fieldValidation query parameter. kubectl reads exactly this to decide that the server validates
// fields itself (then it skips client-side validation, which would need /openapi/v2).
// No schemas are published.
#include "sim/resources.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace nvcre::sim {

boost::json::value openapi_v3_index(const ResourceRegistry& registry, const std::string& hash);
// `gv_path` is "api/v1" or "apis/<group>/<version>"; nullopt when nothing is served there.
std::optional<boost::json::value> openapi_v3_document(const ResourceRegistry& registry,
                                                      const std::string& gv_path);

}  // namespace nvcre::sim
