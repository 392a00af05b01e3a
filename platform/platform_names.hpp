#pragma once
// The platforms nvcre knows, in the canonical order used by detection, flag help and messages, so
// the set and its wording cannot drift apart.
#include <array>
#include <string>
#include <string_view>

namespace nvcre::platform {

inline constexpr std::string_view kAws = "aws";
inline constexpr std::string_view kGcp = "gcp";
inline constexpr std::string_view kAzure = "azure";
inline constexpr std::string_view kOci = "oci";
inline constexpr std::string_view kOnPrem = "onprem";
inline constexpr std::string_view kTogetherAi = "togetherai";
inline constexpr std::string_view kMistral = "mistral";
inline constexpr std::string_view kForge = "forge";
inline constexpr std::string_view kNScale = "nscale";

inline constexpr std::array<std::string_view, 9> kPlatformNames = {
    kAws, kGcp, kAzure, kOci, kOnPrem, kTogetherAi, kMistral, kForge, kNScale};

// "aws, gcp, azure, oci, onprem, togetherai, mistral, forge, nscale"
std::string platform_names_list();

bool is_platform_name(std::string_view name);

// Validates a --platform flag value. Empty means "not given" and is accepted. Throws
// std::invalid_argument with the reference CLI's message for anything else not in the list.
void validate_platform_flag(std::string_view value);

}  // namespace nvcre::platform
