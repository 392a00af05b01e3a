#pragma once
// The built-in catalog: entries are YAML data under catalog/entries/,
// compiled into the binary, parsed once, and built into a WorkflowSpec per (target, config). The
// build is pure: `overrides` stay unresolved (the Workflow controller resolves them later).
// Entry files use the small directive set of catalog/expand.hpp; see catalog/entries/README.md.
#include "api/certification.hpp"
#include "api/common_types.hpp"
#include "api/workflow.hpp"

#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::catalog {

struct CategoryKey {
  std::string domain;
  std::string variant;
  auto operator<=>(const CategoryKey&) const = default;
  std::string to_string() const { return domain + "/" + variant; }  // "d/v"
};

struct Parallelism {
  std::int32_t tp = 0;
  std::int32_t pp = 0;
  std::int32_t ep = 0;
  bool operator==(const Parallelism&) const = default;
};

// <domain>/<variant>/meta.yaml: minGPUs, parallelism (arch key or `default`), timeoutPerJob.
struct EntryMeta {
  std::int32_t min_gpus = 0;
  std::map<std::string, Parallelism> parallelism;
  std::string timeout_per_job;
  // parallelism[arch], else parallelism["default"], else zeros.
  Parallelism parallelism_for(std::string_view config_arch) const;
};

// What the caller resolved; everything else takes the catalog's defaults.
struct BuildConfig {
  std::string gpu_architecture;  // required
  std::int32_t nodes_per_job = 0, gpus_per_node = 0, mlnx_per_node = 0;
  bool enable_mnnvl = false;
  std::string nic_resource_name;
  // GCP H100: the TCPXO plugin release found on the nodes ("" = unknown: the minimum release's
  // images) and the GKE networks of the TCPXO NICs in interface order (empty = gpu-nic0..7).
  std::string tcpxo_plugin_version;
  std::vector<std::string> gke_tcpxo_networks;
  api::CategoryOptions options;  // merged global + per-category options
};

struct CatalogError : std::runtime_error {
  using runtime_error::runtime_error;
};

namespace detail {
struct CatalogData;
}

class Entry {
 public:
  Entry(CategoryKey key, EntryMeta meta, boost::json::value body,
        std::shared_ptr<const detail::CatalogData> data);

  const CategoryKey& key() const { return key_; }
  const EntryMeta& meta() const { return meta_; }

  // Overrides left unresolved. Errors (CatalogError) carry the reference texts: GPUArchitecture
  // required, minGPUs, TP×PP divisibility, EP; malformed entries name the entry and the field.
  api::WorkflowSpec build(const api::TargetSpec& target, const BuildConfig& config) const;

  // The expanded entry as JSON before typed decoding (what build() decodes); for tests/tools.
  boost::json::value expand(const BuildConfig& config) const;

  // Largest n in [1, available] meeting minGPUs, TP×PP and EP constraints; 0 when none does.
  std::int32_t max_valid_nodes(std::int32_t available, std::int32_t gpus_per_node,
                               std::string_view arch) const;

  // user value > meta timeoutPerJob > 15m for diagnose, else 1h.
  std::string effective_timeout_per_job(std::string_view user_value,
                                        std::string_view test_scale) const;

 private:
  void validate_parallelism(const BuildConfig& config, std::string_view config_arch) const;
  boost::json::value expand(const BuildConfig& config, boost::json::storage_ptr storage) const;

  CategoryKey key_;
  EntryMeta meta_;
  boost::json::object defaults_;  // the entry's `$defaults`, split from the body once at load
  boost::json::value body_;       // the entry without `$defaults`, expanded as is
  std::shared_ptr<const detail::CatalogData> data_;
};

class Catalog {
 public:
  // Loaded once from the embedded data; thread-safe. A broken embedded catalog throws CatalogError.
  static const Catalog& builtin();

  // Loads from (path, content) pairs whose paths contain "catalog/entries/"; for tests.
  static Catalog load(const std::vector<std::pair<std::string, std::string>>& files);

  std::vector<CategoryKey> list() const;  // sorted by domain then variant
  const Entry* lookup(std::string_view domain, std::string_view variant) const;

 private:
  std::map<CategoryKey, Entry> entries_;
};

std::string config_arch(std::string_view arch);  // gb300 -> gb200, else unchanged

inline constexpr std::string_view kDefaultTimeoutPerJob = "1h";
inline constexpr std::string_view kDiagnoseTimeoutPerJob = "15m";
inline constexpr std::string_view kDefaultWorkloadRunTimeoutPerJob = "24h";

}  // namespace nvcre::catalog
