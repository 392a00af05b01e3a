// BuildConfig -> typed expansion parameters, and the parallelism checks
// of Entry::build with their reference error texts.
#include "catalog/params.hpp"

#include "api/common_types.hpp"
#include "catalog/tcpxo.hpp"

#include <boost/json.hpp>

#include <cassert>

namespace nvcre::catalog::detail {
namespace {

namespace json = boost::json;

// Parameters build_params sets, plus room for an entry's `$defaults`.
constexpr std::size_t kParamCount = 56;

template <class T>
T value_or(const std::optional<T>& value, T fallback) {
  return value ? *value : fallback;
}

std::string or_default(const std::string& value, std::string_view fallback) {
  return value.empty() ? std::string(fallback) : value;
}

std::string quantity_or(const std::optional<api::CategoryResourceList>& side,
                        std::optional<api::Quantity> api::CategoryResourceList::*member,
                        std::string_view fallback) {
  if (side && (*side).*member) return ((*side).*member)->to_string();
  return std::string(fallback);
}

}  // namespace

boost::json::object build_params(const CategoryKey& key, const EntryMeta& meta,
                                 const BuildConfig& config, boost::json::storage_ptr storage) {
  const api::CategoryOptions& o = config.options;
  const std::string test_scale = or_default(o.testScale, api::test_scale::kFullScale);
  const bool diagnose = test_scale == api::test_scale::kDiagnose;
  const std::string arch_key = config_arch(config.gpu_architecture);
  const Parallelism par = meta.parallelism_for(arch_key);

  json::array pull_secrets(storage);
  for (const auto& secret : o.imagePullSecrets)
    pull_secrets.push_back(json::object{{"name", secret.name}});
  json::object thresholds(storage);
  for (const auto& [metric, expression] : o.thresholds) thresholds[metric] = expression;

  std::optional<api::CategoryResourceList> limits, requests;
  if (o.resources) {
    limits = o.resources->limits;
    requests = o.resources->requests;
  }

  json::object p(storage);
  p.reserve(kParamCount);  // sized once: growing past Boost.JSON's small-object size rehashes
  p["domain"] = key.domain;
  p["entryName"] = key.variant;
  p["gpuArchitecture"] = config.gpu_architecture;
  p["configArch"] = arch_key;
  p["nodesPerJob"] = test_scale == api::test_scale::kIntraNode ? 1 : config.nodes_per_job;
  p["gpusPerNode"] = config.gpus_per_node;
  p["mlnxPerNode"] = config.mlnx_per_node;
  p["nicResourceName"] = config.nic_resource_name;
  p["enableMNNVL"] = config.enable_mnnvl;
  p["mnnvl"] = config.enable_mnnvl ? "1" : "0";
  p["enableCheckpoint"] = value_or(o.enableCheckpoint, false);
  p["maxSteps"] = value_or(o.maxSteps, 50);
  p["exitDurationMins"] = value_or(o.exitDurationMins, 30);
  p["startupStallTimeoutSeconds"] = value_or(o.startupStallTimeoutSeconds, 1200);
  p["saveInterval"] = value_or(o.saveInterval, 250);
  p["saveRetainInterval"] = value_or(o.saveRetainInterval, 1000);
  p["saveTopK"] = value_or(o.saveTopK, 1);
  p["storageSize"] = or_default(o.storageSize, "10Ti");
  p["storageClassName"] = o.storageClassName.value_or("");
  p["testScale"] = test_scale;
  p["maxBytes"] = or_default(o.maxBytes, "16G");
  p["numIterations"] = value_or(o.numIterations, diagnose ? 5 : 100);
  p["numCycles"] = value_or(o.numCycles, diagnose ? 1 : 10);
  p["maxConcurrent"] = value_or(o.maxConcurrent, 0);
  p["minGroupSize"] = value_or(o.minGroupSize, 2);
  p["timeoutPerJob"] = effective_timeout(o.timeoutPerJob, meta.timeout_per_job, test_scale);
  p["measurementTimeout"] = o.measurementTimeout;
  p["thresholds"] = std::move(thresholds);
  p["sourceRepo"] = o.sourceRepo;
  p["rdmaDeviceAccess"] = o.rdmaDeviceAccess;
  p["imagePullSecrets"] = std::move(pull_secrets);
  p["trainingCpuLimit"] = quantity_or(limits, &api::CategoryResourceList::cpu, "128");
  p["trainingMemoryLimit"] = quantity_or(limits, &api::CategoryResourceList::memory, "800Gi");
  p["trainingCpuRequest"] = quantity_or(requests, &api::CategoryResourceList::cpu, "64");
  p["trainingMemoryRequest"] = quantity_or(requests, &api::CategoryResourceList::memory, "500Gi");
  p["tp"] = par.tp;
  p["pp"] = par.pp;
  p["ep"] = par.ep;
  add_tcpxo_params(p, config.tcpxo_plugin_version, config.gke_tcpxo_networks);
  assert(p.size() <= kParamCount);
  return p;
}

std::string effective_timeout(std::string_view user_value, std::string_view meta_value,
                              std::string_view test_scale) {
  if (!user_value.empty()) return std::string(user_value);
  if (!meta_value.empty()) return std::string(meta_value);
  return std::string(test_scale == api::test_scale::kDiagnose ? kDiagnoseTimeoutPerJob
                                                              : kDefaultTimeoutPerJob);
}

bool nodes_satisfy(const EntryMeta& meta, std::int32_t nodes, std::int32_t gpus_per_node,
                   std::string_view config_arch_key) {
  const std::int64_t total = static_cast<std::int64_t>(nodes) * gpus_per_node;
  if (meta.min_gpus > 0 && total < meta.min_gpus) return false;
  const Parallelism par = meta.parallelism_for(config_arch_key);
  if (par.tp > 0 && par.pp > 0 && total % (par.tp * par.pp) != 0) return false;
  if (par.ep > 0 && par.tp > 0 && par.pp > 0 && (total / (par.tp * par.pp)) % par.ep != 0)
    return false;
  return true;
}

void check_parallelism(const CategoryKey& key, const EntryMeta& meta, std::int32_t nodes,
                       std::int32_t gpus, std::string_view config_arch_key) {
  if (nodes <= 0 || gpus <= 0) return;
  const std::string name = key.to_string();
  const std::int64_t total = static_cast<std::int64_t>(nodes) * gpus;
  if (meta.min_gpus > 0 && total < meta.min_gpus) {
    const std::int64_t min_nodes = (meta.min_gpus + gpus - 1) / gpus;
    throw CatalogError(name + ": requires at least " + std::to_string(meta.min_gpus) + " GPUs (" +
                       std::to_string(min_nodes) + " nodes × " + std::to_string(gpus) +
                       " GPUs/node), got " + std::to_string(total) + " GPUs (" +
                       std::to_string(nodes) + " nodes); set nodesPerJob to " +
                       std::to_string(min_nodes) + " or higher");
  }
  const Parallelism par = meta.parallelism_for(config_arch_key);
  if (par.tp <= 0 || par.pp <= 0) return;
  const std::int64_t tp_pp = static_cast<std::int64_t>(par.tp) * par.pp;
  if (total % tp_pp != 0) {
    std::int64_t below = 0, above = 0;
    for (std::int64_t n = nodes; n >= 1; --n) {
      if ((n * gpus) % tp_pp == 0) {
        below = n;
        break;
      }
    }
    for (std::int64_t n = nodes + 1; n <= total; ++n) {
      if ((n * gpus) % tp_pp == 0) {
        above = n;
        break;
      }
    }
    throw CatalogError(
        name + ": totalGPUs=" + std::to_string(total) + " (" + std::to_string(nodes) + " nodes × " +
        std::to_string(gpus) + " GPUs/node) must be divisible by TP×PP=" + std::to_string(tp_pp) +
        " (TP=" + std::to_string(par.tp) + ", PP=" + std::to_string(par.pp) +
        "); try nodesPerJob=" + std::to_string(below) + " or " + std::to_string(above));
  }
  if (par.ep > 0 && (total / tp_pp) % par.ep != 0) {
    throw CatalogError(name + ": totalGPUs=" + std::to_string(total) +
                       ", DP=" + std::to_string(total / tp_pp) + " must be divisible by EP=" +
                       std::to_string(par.ep) + "; totalGPUs must be a multiple of " +
                       std::to_string(tp_pp * par.ep) + " (TP×PP×EP=" + std::to_string(par.tp) +
                       "×" + std::to_string(par.pp) + "×" + std::to_string(par.ep) + ")");
  }
}

}  // namespace nvcre::catalog::detail
