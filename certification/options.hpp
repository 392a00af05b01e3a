#pragma once
// Global -> per-category CategoryOptions resolution.
#include "api/certification.hpp"

namespace nvcre::certification {

// Starts from `global`; every per-category field that is set (an engaged optional, a non-empty
// string, list or map) replaces the global one wholesale. The exception is workloadMetadata.labels,
// merged per key with the category's value winning (a category cannot delete a global key).
api::CategoryOptions merge_category_options(const api::CategoryOptions& global,
                                            const api::CategoryOptions& per_category);

// The options in effect for one category of a Certification.
api::CategoryOptions resolved_options(const api::CertificationSpec& spec,
                                      const api::CertificateCategory& category);

}  // namespace nvcre::certification
