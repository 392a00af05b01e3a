#pragma once
// Names, labels and annotations of the Workflows a Certification creates. Byte-compatible with
// NVCRE: external tools select on them.
#include <map>
#include <string>

#include "api/certification.hpp"
#include "api/labels.hpp"

namespace nvcre::certification {

using api::kCertificationLabel;
using api::kManagedByLabel;
using api::kManagedByValue;
inline constexpr std::string_view kCategoryDomainLabel = "nvcre.nvidia.com/category-domain";
inline constexpr std::string_view kCategoryVariantLabel = "nvcre.nvidia.com/category-variant";
inline constexpr std::string_view kRequestedTestScaleAnnotation =
    "nvcre.nvidia.com/requested-test-scale";

// "-"-joined tokens for the per-category options that change what runs, in NVCRE's order:
// n<nodesPerJob>, mnnvl|nomnnvl, <testScale>, ckpt, s<maxSteps>, e<exitDurationMins>,
// g<gpusPerNode>, hostrdma|dprdma (rdmaDeviceAccess), then ours: nic<hash of nicResourceName>,
// m<mlnxPerNode>. Empty when the category has no such option.
std::string option_suffix(const api::CertificateCategory& category);

// Truncate("<cert>-<domain>-<variant>[-<suffix>]", 31) with the FNV hash tail when too long.
std::string workflow_name(std::string_view certification_name,
                          const api::CertificateCategory& category);

std::map<std::string, std::string> workflow_labels(std::string_view certification_name,
                                                   const api::CertificateCategory& category);

// The requested-test-scale annotation, only when a test scale was resolved.
std::map<std::string, std::string> workflow_annotations(std::string_view resolved_test_scale);

}  // namespace nvcre::certification
