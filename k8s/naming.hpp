#pragma once
// Deterministic child-object names: long names are cut and suffixed with
// a short FNV-32a hash of the full name, so two long names that share a prefix stay distinct and
// the same input always yields the same name across restarts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace nvcre::k8s {

inline constexpr std::size_t kMaxDnsLabelLength = 63;
inline constexpr std::size_t kMaxWorkflowNameLength = 31;
inline constexpr std::size_t kMaxJobNameLength = 35;
inline constexpr std::size_t kMaxWorkloadNameLength = 44;

// 32-bit FNV-1a over the bytes of `data`.
std::uint32_t fnv32a(std::string_view data);

// The 5-character hash used in truncated names: the first 5 characters of
// printf("%05x", fnv32a(name)). Not zero-padded to 8 digits, as in the Go original.
std::string name_hash(std::string_view name);

// `name` if it fits in `max` bytes; otherwise its first max-6 bytes with trailing '-' removed,
// then '-' and name_hash(name). Throws std::invalid_argument when max < 6 (no room for the hash).
std::string truncate_name(std::string_view name, std::size_t max);

// The hash segment of a name built by truncate_name: the part after the last '-' when it is
// exactly 5 characters long, otherwise name_hash(name).
std::string extract_hash(std::string_view name);

}  // namespace nvcre::k8s
