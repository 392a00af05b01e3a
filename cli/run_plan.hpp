#pragma once
// The pure half of `nvcrectl certification run` / `workloadrun run`: checking the flags, building
// the Certification of category mode, the pull secret, the derived wait budget and the GPU product
// the nodes agree on. No I/O and no clock: the shell (run_command.cpp) passes names and times in.
#include "api/certification.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::cli {

// The three registry flags: all or none.
struct RegistryFlags {
  std::string server;
  std::string username;
  std::string password;  // secret: never printed
  bool given() const { return !server.empty() || !username.empty() || !password.empty(); }
};

// Category mode's CategoryOptions flags. Zero / unset means "the catalog's default": only what the
// user set reaches the Certification.
struct CategoryFlags {
  std::int32_t nodes_per_job = 0;
  std::int32_t gpus_per_node = 0;
  std::optional<bool> enable_checkpoint;  // only when the flag was given
  std::optional<bool> enable_mnnvl;       // only when the flag was given
  std::int32_t max_steps = 0;
  std::int32_t exit_duration_mins = 0;
  std::int32_t repeat_count = 0;
  std::int32_t max_restarts = 0;
  std::string storage_class;
};

// Throws std::invalid_argument when the registry trio is partly set (checked on values, so an
// empty $PASSWORD is caught).
void check_registry_flags(const RegistryFlags& registry);

// Throws std::invalid_argument with the reference's messages: both or neither of --cert-file and
// --category, a partial registry trio (checked on values, so an empty $PASSWORD is caught).
void check_run_inputs(const std::string& cert_file, const std::vector<std::string>& categories,
                      const RegistryFlags& registry);

// "domain/variant" values (each may be a comma list) checked against the built-in catalog.
// Throws std::invalid_argument: `invalid category format "<s>": expected domain/variant`, or
// `unknown category "<s>"` followed by the available categories.
std::vector<api::CertificateCategory> parse_categories(const std::vector<std::string>& values);

// The Certification category mode creates: every GPU node (nvidia.com/gpu.present only: the
// product found at creation is not stored, so node discovery is not tied to what the nodes
// reported then), labelled as made by nvcrectl, with the options the
// user set.
api::Certification certification_from_flags(const std::string& name, const std::string& ns,
                                            std::vector<api::CertificateCategory> categories,
                                            const CategoryFlags& flags);

// Stamps the archive-destination annotation naming `destination` (--archive-to). Nothing else:
// the controller owns the list of destinations and their credentials.
void set_archive_destination(api::Certification& certification, const std::string& destination);

// The registry host an image reference pulls from, by the container runtimes' rule: the first
// path component when it has a '.' or ':' or is "localhost", else Docker Hub ("docker.io").
std::string image_registry(const std::string& image);

// "nvcrectl-<YYYYMMDD-HHMMSS>" in UTC: the default Certification name and namespace.
std::string generated_run_name(std::chrono::system_clock::time_point now);

// "nvcrectl-pull-<owner>".
std::string pull_secret_name(const std::string& owner);

// A kubernetes.io/dockerconfigjson Secret for the registry (without owner: it is added once the
// owner exists and has a uid).
boost::json::value pull_secret(const std::string& name, const std::string& ns,
                               const RegistryFlags& registry);

// How long `--wait` waits when --timeout is not given, or nullopt for the 30m default. Per
// category: effective timeoutPerJob x iterations (repeatCount, else the entry's iterations, at
// least 1); the categories' budgets are SUMMED, because the controller runs categories one after
// another; x 3/2 for scheduling and image pulls; used only when above 30m. An unknown category or
// an unparsable duration counts 0.
std::optional<std::chrono::seconds> derived_wait_timeout(const api::CertificationSpec& spec);

inline constexpr std::chrono::minutes kDefaultWaitTimeout{30};

}  // namespace nvcre::cli
