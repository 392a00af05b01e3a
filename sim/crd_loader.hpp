#pragma once
// Installs every CustomResourceDefinition found in a directory's *.yaml / *.yml / *.json files
// (files in name order, other kinds skipped), as `kubectl create -f DIR` would. Used by the
// kube-sim binary (--crds) and the embedded demo.
#include "sim/api_server.hpp"

#include <filesystem>

namespace nvcre::sim {

// Throws std::runtime_error naming the directory when it is missing, and ApiError when a CRD is
// rejected (for example a validation rule kube-sim cannot evaluate).
void install_crds_from_directory(ApiServer& api, const std::filesystem::path& dir);

}  // namespace nvcre::sim
