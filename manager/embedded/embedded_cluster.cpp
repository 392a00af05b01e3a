#include "manager/embedded/embedded_cluster.hpp"

#include "actors/controllers.hpp"
#include "sim/cluster_profile.hpp"
#include "sim/crd_loader.hpp"

#include <boost/json.hpp>

namespace nvcre::manager {

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
  options.instance = instance;
  // A silent watch still ends this often, so stopping a manager never waits long.
  options.max_watch_timeout = std::chrono::seconds(5);
  return options;
}

}  // namespace nvcre::manager
