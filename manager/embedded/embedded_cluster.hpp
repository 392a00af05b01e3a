#pragma once
// kube-sim in-process with a simulated GPU cluster and Trainer, the CRDs installed, and the real
// manager's options preset to reconcile against it. One wiring shared by the embedded main job
// (nvcre-demo), the integration and chaos tests and the benches, so each of them drives the same
// product the same way. Managers are built by the caller (several at once, stopped abruptly,
// restarted) from manager_options().
#include "actors/manager.hpp"
#include "k8s/rest_client.hpp"
#include "sim/kube_sim.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace nvcre::manager {

struct EmbeddedClusterOptions {
  std::string profile = "aws:h100:8";     // PLATFORM:GPU:NODES (sim/cluster_profile.hpp)
  std::vector<std::string> faulty_nodes;  // NAME[=REASON]: pods on that node fail
  std::vector<std::string> slow_nodes;    // NAME=GBPS: its group reports at most GBPS bus bandwidth
  std::vector<std::string> stall_nodes;   // NAME: its group stops logging and never completes
  std::vector<std::string> node_conditions;  // NAME=TYPE: TYPE turns False a few steps into a job
  std::chrono::milliseconds trainer_step{50};
  std::chrono::milliseconds trainer_run{0};  // how long pods run, logging as they go (0: a step)
  std::chrono::milliseconds bookmark_interval{200};
  std::string crds_dir;                 // the CRDs to install (deploy/crds)
  std::vector<std::string> namespaces;  // created up front
  // LogProfile manifests (*.yaml, name order) created with the shipped ones (api/logprofiles.hpp);
  // none when empty.
  std::string logprofiles_dir;
};

class EmbeddedCluster {
 public:
  explicit EmbeddedCluster(EmbeddedClusterOptions options);
  ~EmbeddedCluster();
  EmbeddedCluster(const EmbeddedCluster&) = delete;
  EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;

  // Starts kube-sim, installs the CRDs, creates the namespaces and then every shipped LogProfile
  // and those of logprofiles_dir; throws std::runtime_error naming a bad profile,
  // faulty/slow/stall-node or node-condition spec or CRD directory, and std::invalid_argument
  // naming a LogProfile file that is not a valid LogProfile (or repeats a name).
  void start();
  void stop();  // idempotent

  sim::KubeSim& sim();
  const sim::ClusterProfile& profile() const;
  k8s::ClientConfig client_config() const;  // unthrottled, against the sim's URL
  k8s::RestClient& client();                // for the driver (tests, demo): not the manager's

  // Every nvcre watch and controller, the sim's URL; `instance` names the events' reporter.
  actors::ManagerOptions manager_options(const std::string& instance) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::manager
