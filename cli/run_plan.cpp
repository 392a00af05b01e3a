#include "cli/run_plan.hpp"

#include "api/labels.hpp"
#include "api/meta.hpp"
#include "catalog/catalog.hpp"
#include "certification/options.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/duration.hpp"
#include "workflow/node_results.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <ctime>
#include <map>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;

namespace {

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& value : values) {
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t comma = std::min(value.find(',', start), value.size());
      if (comma > start) out.push_back(value.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

// The iterations one category runs: repeatCount when set, else what the entry's orchestration
// says (expanded for a representative architecture: the count does not depend on it), else 1.
std::int64_t iterations_of(const catalog::Entry& entry, const api::CategoryOptions& options) {
  if (options.repeatCount.value_or(0) > 0) return *options.repeatCount;
  try {
    catalog::BuildConfig config;
    config.gpu_architecture = "h100";
    config.options = options;
    // Kept in a local: value_at points into it, and a temporary would be gone before the read.
    const json::value expanded = entry.expand(config);
    const json::value* iterations = jsonkit::value_at(expanded, {"orchestration", "iterations"});
    if (iterations != nullptr && iterations->is_int64() && iterations->as_int64() > 0)
      return iterations->as_int64();
  } catch (const std::exception&) {
    // An entry that needs more than the options to expand still runs at least once.
  }
  return 1;
}

}  // namespace

void check_registry_flags(const RegistryFlags& registry) {
  if (registry.given() &&
      (registry.server.empty() || registry.username.empty() || registry.password.empty()))
    throw std::invalid_argument(
        "--workload-registry, --workload-registry-username, and --workload-registry-password "
        "must all be set together and non-empty");
}

void check_run_inputs(const std::string& cert_file, const std::vector<std::string>& categories,
                      const RegistryFlags& registry) {
  if (!cert_file.empty() && !categories.empty())
    throw std::invalid_argument("--cert-file and --category are mutually exclusive");
  check_registry_flags(registry);
  if (cert_file.empty() && categories.empty())
    throw std::invalid_argument(
        "either --cert-file or at least one --category is required\n\n"
        "Use 'nvcrectl certification list-categories' to see available categories");
}

std::vector<api::CertificateCategory> parse_categories(const std::vector<std::string>& values) {
  const auto& catalog = catalog::Catalog::builtin();
  std::vector<api::CertificateCategory> out;
  for (const auto& value : split_commas(values)) {
    const std::size_t slash = value.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == value.size())
      throw std::invalid_argument("invalid category format \"" + value +
                                  "\": expected domain/variant");
    api::CertificateCategory category;
    category.domain = value.substr(0, slash);
    category.variant = value.substr(slash + 1);
    if (catalog.lookup(category.domain, category.variant) == nullptr) {
      std::string message = "unknown category \"" + value + "\"\n\nAvailable categories:";
      for (const auto& key : catalog.list()) message += "\n  " + key.to_string();
      throw std::invalid_argument(message);
    }
    out.push_back(std::move(category));
  }
  return out;
}

api::Certification certification_from_flags(const std::string& name, const std::string& ns,
                                            std::vector<api::CertificateCategory> categories,
                                            const CategoryFlags& flags) {
  api::Certification certification;
  certification.apiVersion = std::string(api::kApiVersion);
  certification.kind = "Certification";
  certification.metadata.name = name;
  certification.metadata.namespace_ = ns;
  certification.metadata.labels = {{std::string(api::kManagedByLabel), "nvcre"},
                                   {"app.kubernetes.io/created-by", "nvcrectl"}};
  certification.spec.target.nodeSelector = {{std::string(api::kGpuPresentLabel), "true"}};
  certification.spec.categories = std::move(categories);
  auto& options = certification.spec.options;
  if (flags.nodes_per_job > 0) options.nodesPerJob = flags.nodes_per_job;
  if (flags.gpus_per_node > 0) options.gpusPerNode = flags.gpus_per_node;
  options.enableCheckpoint = flags.enable_checkpoint;
  options.enableMNNVL = flags.enable_mnnvl;
  if (flags.max_steps > 0) options.maxSteps = flags.max_steps;
  if (flags.exit_duration_mins > 0) options.exitDurationMins = flags.exit_duration_mins;
  if (flags.repeat_count > 0) options.repeatCount = flags.repeat_count;
  if (flags.max_restarts > 0) options.maxRestarts = flags.max_restarts;
  if (!flags.storage_class.empty()) options.storageClassName = flags.storage_class;
  return certification;
}

void set_archive_destination(api::Certification& certification, const std::string& destination) {
  certification.metadata.annotations[std::string(api::kArchiveDestinationAnnotation)] = destination;
}

std::string image_registry(const std::string& image) {
  const std::size_t slash = image.find('/');
  if (slash == std::string::npos) return "docker.io";
  const std::string first = image.substr(0, slash);
  if (first.find_first_of(".:") != std::string::npos || first == "localhost") return first;
  return "docker.io";
}

std::string generated_run_name(std::chrono::system_clock::time_point now) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "nvcrectl-%Y%m%d-%H%M%S", &utc);
  return text;
}

std::string pull_secret_name(const std::string& owner) { return "nvcrectl-pull-" + owner; }

json::value pull_secret(const std::string& name, const std::string& ns,
                        const RegistryFlags& registry) {
  const std::string auth = workflow::base64_encode(registry.username + ":" + registry.password);
  const json::object config{
      {"auths",
       {{registry.server,
         {{"username", registry.username}, {"password", registry.password}, {"auth", auth}}}}}};
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"labels",
         {{std::string(api::kManagedByLabel), "nvcre"},
          {"app.kubernetes.io/created-by", "nvcrectl"}}}}},
      {"type", "kubernetes.io/dockerconfigjson"},
      {"data", {{".dockerconfigjson", workflow::base64_encode(json::serialize(config))}}}};
}

std::optional<std::chrono::seconds> derived_wait_timeout(const api::CertificationSpec& spec) {
  const auto& catalog = catalog::Catalog::builtin();
  std::chrono::nanoseconds total{0};
  for (const auto& category : spec.categories) {
    const catalog::Entry* entry = catalog.lookup(category.domain, category.variant);
    if (entry == nullptr) continue;
    const api::CategoryOptions options = certification::resolved_options(spec, category);
    const auto per_job = k8s::parse_go_duration(
        entry->effective_timeout_per_job(options.timeoutPerJob, options.testScale));
    if (!per_job || per_job->count() <= 0) continue;
    total += *per_job * iterations_of(*entry, options);
  }
  const auto budget = std::chrono::duration_cast<std::chrono::seconds>(total * 3 / 2);
  if (budget <= kDefaultWaitTimeout) return std::nullopt;
  return budget;
}

}  // namespace nvcre::cli
