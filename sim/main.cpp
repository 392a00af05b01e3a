// kube-sim: an in-memory Kubernetes API server on loopback.
//   kube-sim [--port N] [--address A] [--crds DIR] [--token T] [--watch-window N] [--fault-plan
//   FILE] [--request-log FILE]
//            [--tls-cert-file F --tls-private-key-file F [--client-ca-file F]]
//            [--cluster PLATFORM:GPU:NODES] [--faulty-node NAME[=REASON]]...
//            [--slow-node NAME=GBPS]... [--stall-node NAME]... [--node-condition NAME=TYPE]...
//            [--trainer-step-ms N]
//            [--trainer-run-ms N] [--no-trainer] [--authorization open|rbac [--admin-token T]]
// --cluster creates simulated GPU Nodes (sim/cluster_profile.hpp); the simulated Trainer
// (sim/trainer.hpp) runs TrainJobs, fails the pods on --faulty-node nodes, caps the bus bandwidth
// a group with a --slow-node reports, hangs a group with a --stall-node, and sets a
// --node-condition node's condition TYPE to False a few steps into a job there.
// PUT /sim/logs/<namespace>/<pod>[?container=C] replaces a pod's log (a capture to replay).
// DELETE /sim/watches ends every open watch and compacts the event log: every resume gets 410.
// --fault-plan loads a YAML/JSON fault plan (sim/fault_plan.hpp); PUT /sim/faults replaces it
// later. --request-log appends every request to FILE as a JSON line (sim/request_log.hpp).
// --tls-cert-file/--tls-private-key-file serve HTTPS (PEM, like kube-apiserver's flags);
// --client-ca-file then requires client certificates signed by that CA.
// --authorization rbac enforces access as kube-apiserver with RBAC does (sim/api_server.hpp's
// AccessOptions): --admin-token is a token with full access (system:masters); every other token
// comes from TokenRequest (`kubectl create token SA -n NS`).
// Prints "kube-sim listening on http(s)://<address>:<port>" once ready; stops on SIGINT / SIGTERM.
#include "sim/crd_loader.hpp"
#include "sim/kube_sim.hpp"

#include "jsonkit/yaml.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace {

// The flags that fault simulated nodes, as given.
struct NodeFaultFlags {
  std::vector<std::string> faulty, slow, stall, conditions;
  bool empty() const {
    return faulty.empty() && slow.empty() && stall.empty() && conditions.empty();
  }
};

// Adds the faults to the cluster profile. Throws std::invalid_argument for a malformed flag or
// for faults without a cluster.
void apply_node_faults(const NodeFaultFlags& flags,
                       std::optional<nvcre::sim::ClusterProfile>& cluster) {
  if (flags.empty()) return;
  if (!cluster)
    throw std::invalid_argument(
        "--faulty-node, --slow-node, --stall-node and --node-condition need --cluster (the "
        "simulated nodes they name)");
  for (const auto& flag : flags.faulty)
    cluster->faulty_nodes.push_back(nvcre::sim::parse_faulty_node(flag));
  for (const auto& flag : flags.slow)
    cluster->slow_nodes.push_back(nvcre::sim::parse_slow_node(flag));
  cluster->stall_nodes = flags.stall;
  for (const auto& flag : flags.conditions)
    cluster->node_conditions.push_back(nvcre::sim::parse_node_condition(flag));
}

// --fault-plan's file and --request-log's.
void apply_fault_plan_and_request_log(nvcre::sim::KubeSim& sim, const std::string& fault_plan,
                                      const std::string& request_log) {
  if (!fault_plan.empty()) {
    std::ifstream in(fault_plan);
    if (!in) throw std::runtime_error("cannot read fault plan " + fault_plan);
    std::stringstream text;
    text << in.rdbuf();
    sim.api().faults().set_plan(nvcre::sim::parse_fault_plan(text.str()));
  }
  if (!request_log.empty()) sim.api().request_log().write_to(request_log);
}

}  // namespace

int main(int argc, char** argv) {
  nvcre::sim::KubeSimOptions options;
  std::string crds;
  std::string fault_plan;
  std::string request_log;
  std::optional<std::string> cluster;
  NodeFaultFlags faults;
  std::size_t watch_window = options.api.store.retained_events;
  std::optional<unsigned> trainer_step_ms;
  std::optional<unsigned> trainer_run_ms;
  bool no_trainer = false;
  std::string authorization = "open";
  nvcre::sim::KubeSimTls tls;
  CLI::App app{
      "kube-sim: an in-memory Kubernetes API server on loopback, with a simulated GPU cluster and "
      "Trainer."};
  app.add_option("--port", options.port, "port to listen on (0: any free port)");
  app.add_option("--address", options.address, "address to listen on");
  app.add_option("--crds", crds, "install every CRD manifest in this directory")
      ->check(CLI::ExistingDirectory);
  app.add_option("--token", options.token, "require this bearer token");
  app.add_option("--watch-window", watch_window,
                 "events kept for watches; older resourceVersions answer 410 Gone")
      ->check(CLI::PositiveNumber);
  app.add_option("--fault-plan", fault_plan, "YAML/JSON fault plan (sim/fault_plan.hpp)")
      ->check(CLI::ExistingFile);
  app.add_option("--request-log", request_log,
                 "append every request to this file, one JSON line each (time, method, path, "
                 "code, User-Agent)");
  app.add_option("--tls-cert-file", tls.cert_file, "serve HTTPS with this PEM certificate")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-private-key-file", tls.key_file, "... and this PEM key")
      ->check(CLI::ExistingFile);
  app.add_option("--client-ca-file", tls.client_ca_file,
                 "require client certificates signed by this CA")
      ->check(CLI::ExistingFile);
  app.add_option("--cluster", cluster, "simulated GPU nodes, PLATFORM:GPU:NODES (e.g. aws:h100:8)");
  app.add_option("--faulty-node", faults.faulty,
                 "NAME[=REASON]: the Trainer fails pods on this node (repeatable)");
  app.add_option("--slow-node", faults.slow,
                 "NAME=GBPS: a group with this node reports at most GBPS bus bandwidth "
                 "(repeatable)");
  app.add_option("--stall-node", faults.stall,
                 "NAME: a group with this node stops logging after a few steps and keeps running "
                 "(repeatable)");
  app.add_option("--node-condition", faults.conditions,
                 "NAME=TYPE: the node's condition TYPE turns False a few Trainer steps into a job "
                 "there, e.g. gpu-node-05=GPUHealthy (repeatable)");
  app.add_option("--trainer-step-ms", trainer_step_ms, "simulated Trainer step");
  app.add_option("--trainer-run-ms", trainer_run_ms,
                 "how long simulated pods run, writing their logs as they go (default: one step)");
  app.add_flag("--no-trainer", no_trainer, "do not simulate the Kubeflow Trainer");
  app.add_option("--authorization", authorization,
                 "open (every request served) or rbac (bearer tokens required, RBAC enforced)")
      ->check(CLI::IsMember({"open", "rbac"}));
  app.add_option("--admin-token", options.api.access.admin_token,
                 "with --authorization rbac: a token with full access (group system:masters)");
  CLI11_PARSE(app, argc, argv);
  options.api.access.rbac = authorization == "rbac";
  if (options.api.access.rbac && !options.token.empty()) {
    std::cerr << "kube-sim: --token and --authorization rbac do not go together: give the admin "
                 "its token with --admin-token\n";
    return 2;
  }
  if (!options.api.access.rbac && !options.api.access.admin_token.empty()) {
    std::cerr << "kube-sim: --admin-token needs --authorization rbac\n";
    return 2;
  }
  options.api.store.retained_events = watch_window;
  options.api.trainer.enabled =
      !no_trainer;  // the binary simulates the Trainer unless --no-trainer
  if (trainer_step_ms) options.api.trainer.step = std::chrono::milliseconds(*trainer_step_ms);
  if (trainer_run_ms) options.api.trainer.run = std::chrono::milliseconds(*trainer_run_ms);
  try {
    if (cluster) options.api.cluster = nvcre::sim::parse_cluster_profile(*cluster);
    apply_node_faults(faults, options.api.cluster);
  } catch (const std::exception& e) {
    std::cerr << "kube-sim: " << e.what() << "\nRun with --help for more information.\n";
    return 2;
  }

  if (!tls.cert_file.empty() || !tls.key_file.empty() || !tls.client_ca_file.empty()) {
    if (tls.cert_file.empty() || tls.key_file.empty()) {
      std::cerr << "kube-sim: --tls-cert-file and --tls-private-key-file go together"
                   " (--client-ca-file needs both)\n";
      return 2;
    }
    options.tls = tls;
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // the server thread inherits the mask

  try {
    nvcre::sim::KubeSim sim(options);
    if (!crds.empty()) nvcre::sim::install_crds_from_directory(sim.api(), crds);
    apply_fault_plan_and_request_log(sim, fault_plan, request_log);
    sim.start();
    std::cout << "kube-sim listening on " << sim.url() << std::endl;
    int received = 0;
    sigwait(&signals, &received);
    sim.stop();
  } catch (const nvcre::sim::ApiError& e) {
    std::cerr << "kube-sim: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "kube-sim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
