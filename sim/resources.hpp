#pragma once
// The resources kube-sim serves: built-in kinds plus every CustomResourceDefinition created at run
// time, and the discovery documents (/api, /api/v1, /apis, /apis/<group>/<version>) derived from
// them.
#include "sim/store.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nvcre::sim {

struct ResourceInfo {
  ResourceType type;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::string crd_name;  // owning CRD; empty for built-ins
  bool log_subresource = false;
  bool token_subresource = false;  // serviceaccounts/token (TokenRequest)
  // A review kind (TokenReview, SubjectAccessReview, ...): create only, answered and never stored.
  bool review = false;
  // The CRD version's additionalPrinterColumns (server-side Table output); empty for built-ins.
  boost::json::array printer_columns{};
};

class ResourceRegistry {
 public:
  ResourceRegistry();  // the built-in kinds

  // Every served version of an apiextensions.k8s.io/v1 CRD; throws ApiError 422 for a CRD whose
  // names, group or versions are unusable.
  static std::vector<ResourceInfo> from_crd(const boost::json::value& crd);
  void add(std::vector<ResourceInfo> infos);  // replaces by (group, version, resource)
  void remove_crd(const std::string& crd_name);

  const ResourceInfo* find(const std::string& group, const std::string& version,
                           const std::string& resource) const;
  // The main resource (not a subresource) serving `kind` at group/version, as a REST mapper finds
  // it; nullptr when none does.
  const ResourceInfo* find_kind(const std::string& group, const std::string& version,
                                const std::string& kind) const;
  const std::vector<ResourceInfo>& all() const { return resources_; }

  boost::json::value core_versions() const;                                 // /api  (APIVersions)
  boost::json::value group_list() const;                                    // /apis (APIGroupList)
  std::optional<boost::json::value> group(const std::string& group) const;  // /apis/<group>
  // /api/v1 or /apis/<group>/<version> (APIResourceList); nullopt when nothing is served there.
  std::optional<boost::json::value> resource_list(const std::string& group,
                                                  const std::string& version) const;

 private:
  std::vector<std::string> versions_of(const std::string& group) const;
  std::vector<ResourceInfo> resources_;
};

}  // namespace nvcre::sim
