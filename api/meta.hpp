#pragma once
// API group/version of the nvcre kinds and the subset of metav1.ObjectMeta the controllers use.
//
// ObjectMeta is a subset: it models what our objects carry and what a real API server returns for
// them, and nothing else. An unknown metadata key is a decode error like any other unknown field
// (`metadata.selfLink: unknown field ...`), so a typo such as `metadata.label` is caught.
// `managedFields` is not modelled, but every object read from a real API server carries it, so it
// is kept raw (one JSON object per entry, never interpreted) to let such objects decode and to
// write them back unchanged.
#include "api/codec.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

inline constexpr std::string_view kGroup = "nvcre.nvidia.com";
inline constexpr std::string_view kVersion = "v1alpha1";
inline constexpr std::string_view kApiVersion = "nvcre.nvidia.com/v1alpha1";

// metav1.OwnerReference.
struct OwnerReference {
  std::string apiVersion{};
  std::string kind{};
  std::string name{};
  std::string uid{};
  std::optional<bool> controller{};
  std::optional<bool> blockOwnerDeletion{};

  static constexpr std::string_view json_always_encoded[] = {"apiVersion", "kind", "name", "uid"};
  bool operator==(const OwnerReference&) const = default;
};
BOOST_DESCRIBE_STRUCT(OwnerReference, (),
                      (apiVersion, kind, name, uid, controller, blockOwnerDeletion))

// metav1.ObjectMeta subset. Timestamps are RFC 3339 strings as the API server writes them.
struct ObjectMeta {
  std::string name{};
  std::string generateName{};
  std::string namespace_{};
  std::string uid{};
  std::string resourceVersion{};
  std::optional<std::int64_t> generation{};
  std::string creationTimestamp{};
  std::string deletionTimestamp{};
  std::optional<std::int64_t> deletionGracePeriodSeconds{};
  std::map<std::string, std::string> labels{};
  std::map<std::string, std::string> annotations{};
  std::vector<OwnerReference> ownerReferences{};
  std::vector<std::string> finalizers{};
  std::vector<boost::json::object> managedFields{};  // raw: see the header comment

  bool operator==(const ObjectMeta&) const = default;
};
BOOST_DESCRIBE_STRUCT(ObjectMeta, (),
                      (name, generateName, namespace_, uid, resourceVersion, generation,
                       creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds, labels,
                       annotations, ownerReferences, finalizers, managedFields))

}  // namespace nvcre::api
