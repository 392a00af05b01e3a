#pragma once
// (apiVersion, kind) -> REST resource (group, version, plural, namespaced), like client-go's
// RESTMapper: answered from discovery (`/api/v1`, `/apis/<group>/<version>`) the first time a
// group/version is needed, then cached. Reconcilers name objects by kind (dependency objects come
// from catalog data), the REST client needs the plural path. Thread-safe.
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace nvcre::k8s {

// Splits "group/version" ("v1" -> core group).
std::pair<std::string, std::string> split_api_version(std::string_view api_version);

// The resources of one APIResourceList (discovery document), by kind; subresources are skipped.
std::map<std::string, ResourceRef> resources_by_kind(const boost::json::value& api_resource_list);

class ResourceMapper {
 public:
  explicit ResourceMapper(RestClient& client) : client_(client) {}
  // Throws ApiError/TransportError when discovery fails, and std::invalid_argument naming the
  // apiVersion and kind when the server does not serve that kind (e.g. a CRD not installed).
  ResourceRef resource_for(std::string_view api_version, std::string_view kind);
  // Forget a group/version (after a CRD is installed, or on a "no matches for kind" miss).
  void invalidate(std::string_view api_version);

 private:
  RestClient& client_;
  std::mutex mutex_;
  std::map<std::string, std::map<std::string, ResourceRef>> by_group_version_;
};

}  // namespace nvcre::k8s
