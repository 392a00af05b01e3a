#pragma once
// The API calls `nvcrectl setup` shares: reading what is installed, server-side apply of one
// object, waiting for CRDs, and the confirmation prompt.
#include "install/phases.hpp"
#include "install/status.hpp"
#include "k8s/resource_mapper.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::cli::setup {

extern const k8s::ResourceRef kCrds;

// The `items` of a list; an API error (the kind is not served, access denied) yields none, a
// transport error propagates.
std::vector<boost::json::value> list_items(k8s::RestClient& client, const k8s::ResourceRef& ref,
                                           const std::string& ns,
                                           const k8s::ListOptions& options = {});

// The object, nullopt when it does not exist; other API errors propagate.
std::optional<boost::json::value> get_object(k8s::RestClient& client, const k8s::ResourceRef& ref,
                                             const std::string& ns, const std::string& name);

// Everything setup status and the deps phase look at.
install::ClusterObservation observe_cluster(k8s::RestClient& client);

// The names of the CRDs and LogProfiles setup init installs.
std::vector<std::string> shipped_names(const std::vector<boost::json::value>& objects,
                                       std::string_view kind);

// Server-side apply (field manager nvcrectl-setup, force): creates the object or brings the fields
// nvcrectl owns up to date, leaving others' fields alone. Returns "created" or "configured".
std::string apply_object(k8s::RestClient& client, k8s::ResourceMapper& mapper,
                         const boost::json::value& object);

// Waits until every named CRD is Established (true), or `timeout` passes (false).
bool wait_established(k8s::RestClient& client, const std::vector<std::string>& names,
                      std::chrono::seconds timeout);

// The summary and the question; true when the answer read from `in` is "yes".
bool confirm(std::istream& in, std::ostream& err, const k8s::ClientConfig& config,
             const std::vector<install::PhaseInfo>& phases, const std::set<std::string>& skip);

// "Kind/name" or "Kind/name (namespace: ns)", for progress lines.
std::string describe(const std::string& kind, const boost::json::value& object);

}  // namespace nvcre::cli::setup
