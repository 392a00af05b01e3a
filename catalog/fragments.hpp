#pragma once
// Public access to the catalog's `_lib/` fragments and directive engine for data that is not a
// catalog entry: the WorkloadRun platform overrides are one such
// document, `_lib/overrides/workloadrun.yaml`, expanded with the same directives and fragments the
// entries use so CSP/GPU networking facts have one source.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string_view>

namespace nvcre::catalog {

// Expands the embedded `_lib/<lib_path>` document (e.g. "overrides/workloadrun.yaml") with
// `params` (the names the fragments use: entryName, nodesPerJob, gpusPerNode, mlnxPerNode,
// nicResourceName, enableMNNVL, mnnvl, plus whatever the document itself reads). Throws
// CatalogError when the fragment does not exist or does not expand.
boost::json::value expand_lib_fragment(std::string_view lib_path,
                                       const boost::json::object& params);

}  // namespace nvcre::catalog
