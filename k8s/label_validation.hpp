#pragma once
// apimachinery's label/name validators (k8s.io/apimachinery/pkg/util/validation) with the same
// error strings, so messages we report read exactly like the API server's. An empty result means
// valid. Checks are hand-written; the regexes quoted in messages are the upstream ones.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

inline constexpr std::size_t kQualifiedNameMaxLength = 63;
inline constexpr std::size_t kLabelValueMaxLength = 63;
inline constexpr std::size_t kDns1123LabelMaxLength = 63;
inline constexpr std::size_t kDns1123SubdomainMaxLength = 253;

// Label keys and other qualified names: [prefix/]name, prefix a DNS-1123 subdomain.
std::vector<std::string> qualified_name_errors(std::string_view key);
// Label values: empty, or up to 63 chars of [-A-Za-z0-9_.] starting and ending alphanumeric.
std::vector<std::string> label_value_errors(std::string_view value);
std::vector<std::string> dns1123_subdomain_errors(std::string_view value);
std::vector<std::string> dns1123_label_errors(std::string_view value);

// Convenience predicates.
inline bool is_qualified_name(std::string_view key) { return qualified_name_errors(key).empty(); }
inline bool is_valid_label_value(std::string_view value) {
  return label_value_errors(value).empty();
}

}  // namespace nvcre::k8s
