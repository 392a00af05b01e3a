#include "manager/embedded/embedded_cluster.hpp"

#include "actors/controllers.hpp"
#include "api/logprofiles.hpp"
#include "sim/cluster_profile.hpp"
#include "sim/crd_loader.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nvcre::manager {

namespace {

struct ManifestFile {
  std::string name;
  std::string content;
};

std::vector<ManifestFile> read_yaml_files(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) {
    throw std::runtime_error("LogProfile directory " + dir + " does not exist");
  }
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ManifestFile> files;
  for (const auto& path : paths) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw std::runtime_error("cannot read " + path.string());
    files.push_back({path.string(), text.str()});
  }
  return files;
}

// The shipped profiles and those of `extra_dir`, checked together (one name, one profile).
std::vector<boost::json::value> logprofiles_to_create(const std::string& extra_dir) {
  if (extra_dir.empty()) return api::shipped_logprofiles();
  const auto shipped = api::embedded_logprofile_files();
  const std::vector<ManifestFile> extra = read_yaml_files(extra_dir);
  std::vector<EmbeddedFile> files(shipped.begin(), shipped.end());
  for (const auto& file : extra) files.push_back({file.name, file.content});
  return api::load_logprofile_manifests(files);
}

}  // namespace

struct EmbeddedCluster::Impl {
  EmbeddedClusterOptions options;
  sim::ClusterProfile profile;
  std::unique_ptr<sim::KubeSim> sim;
  std::unique_ptr<k8s::RestClient> client;
};

EmbeddedCluster::EmbeddedCluster(EmbeddedClusterOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->profile = sim::parse_cluster_profile(impl_->options.profile);
  for (const auto& faulty : impl_->options.faulty_nodes) {
    impl_->profile.faulty_nodes.push_back(sim::parse_faulty_node(faulty));
  }
  for (const auto& slow : impl_->options.slow_nodes)
    impl_->profile.slow_nodes.push_back(sim::parse_slow_node(slow));
  impl_->profile.stall_nodes = impl_->options.stall_nodes;
  for (const auto& condition : impl_->options.node_conditions)
    impl_->profile.node_conditions.push_back(sim::parse_node_condition(condition));
}

EmbeddedCluster::~EmbeddedCluster() { stop(); }

void EmbeddedCluster::start() {
  sim::KubeSimOptions sim_options;
  sim_options.api.cluster = impl_->profile;
  sim_options.api.trainer.enabled = true;
  sim_options.api.trainer.step = impl_->options.trainer_step;
  sim_options.api.trainer.run = impl_->options.trainer_run;
  sim_options.api.bookmark_interval = impl_->options.bookmark_interval;
  impl_->sim = std::make_unique<sim::KubeSim>(sim_options);
  impl_->sim->start();
  sim::install_crds_from_directory(impl_->sim->api(), impl_->options.crds_dir);
  impl_->client = std::make_unique<k8s::RestClient>(client_config());
  for (const auto& ns : impl_->options.namespaces) {
    impl_->client->create(
        {"", "v1", "namespaces", false}, "",
        boost::json::object{
            {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
  const k8s::ResourceRef logprofiles{"nvcre.nvidia.com", "v1alpha1", "logprofiles", false};
  for (const auto& profile : logprofiles_to_create(impl_->options.logprofiles_dir)) {
    impl_->client->create(logprofiles, "", profile);
  }
}

void EmbeddedCluster::stop() {
  if (!impl_ || !impl_->sim) return;
  impl_->client.reset();
  impl_->sim->stop();
  impl_->sim.reset();
}

sim::KubeSim& EmbeddedCluster::sim() { return *impl_->sim; }

const sim::ClusterProfile& EmbeddedCluster::profile() const { return impl_->profile; }

k8s::ClientConfig EmbeddedCluster::client_config() const {
  k8s::ClientConfig config;
  config.server = impl_->sim->url();
  config.rate_limit.qps = -1;
  return config;
}

k8s::RestClient& EmbeddedCluster::client() { return *impl_->client; }

actors::ManagerOptions EmbeddedCluster::manager_options(const std::string& instance) const {
  actors::ManagerOptions options;
  options.client = client_config();
  options.watches = actors::nvcre_watches();
  options.controllers = actors::nvcre_controllers();
  options.gauge_projections = actors::nvcre_gauge_projections();
  options.instance = instance;
  // A silent watch still ends this often, so stopping a manager never waits long.
  options.max_watch_timeout = std::chrono::seconds(5);
  return options;
}

}  // namespace nvcre::manager
