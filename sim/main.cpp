// kube-sim: an in-memory Kubernetes API server on loopback.
//   kube-sim [--port N] [--address A] [--crds DIR] [--token T] [--watch-window N] [--fault-plan FILE]
//            [--tls-cert-file F --tls-private-key-file F [--client-ca-file F]]
//            [--cluster PLATFORM:GPU:NODES] [--faulty-node NAME[=REASON]]... [--trainer-step-ms N] [--no-trainer]
// --cluster creates simulated GPU Nodes (sim/cluster_profile.hpp); the simulated Trainer
// (sim/trainer.hpp) runs TrainJobs and fails the pods on --faulty-node nodes.
// --fault-plan loads a YAML/JSON fault plan (sim/fault_plan.hpp); PUT /sim/faults replaces it later.
// --tls-cert-file/--tls-private-key-file serve HTTPS (PEM, like kube-apiserver's flags);
// --client-ca-file then requires client certificates signed by that CA.
// Prints "kube-sim listening on http(s)://<address>:<port>" once ready; stops on SIGINT / SIGTERM.
#include "sim/crd_loader.hpp"
#include "sim/kube_sim.hpp"

#include "api/yaml_json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

int usage() {
  std::cerr << "usage: kube-sim [--port N] [--address A] [--crds DIR] [--token T] [--watch-window N]"
               " [--fault-plan FILE]\n"
               "                [--tls-cert-file FILE --tls-private-key-file FILE [--client-ca-file FILE]]\n"
               "                [--cluster PLATFORM:GPU:NODES] [--faulty-node NAME[=REASON]]... [--trainer-step-ms N]"
               " [--no-trainer]\n";
  return 2;
}


}  // namespace

int main(int argc, char** argv) {
  nvcre::sim::KubeSimOptions options;
  std::string crds;
  std::string fault_plan;
  std::vector<nvcre::sim::FaultyNode> faulty_nodes;
  options.api.trainer.enabled = true;  // the binary simulates the Trainer unless --no-trainer
  nvcre::sim::KubeSimTls tls;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--port") {
        options.port = static_cast<unsigned short>(std::stoi(value()));
      } else if (arg == "--address") {
        options.address = value();
      } else if (arg == "--crds") {
        crds = value();
      } else if (arg == "--token") {
        options.token = value();
      } else if (arg == "--watch-window") {
        options.api.store.retained_events = static_cast<std::size_t>(std::stoul(value()));
      } else if (arg == "--fault-plan") {
        fault_plan = value();
      } else if (arg == "--tls-cert-file") {
        tls.cert_file = value();
      } else if (arg == "--tls-private-key-file") {
        tls.key_file = value();
      } else if (arg == "--client-ca-file") {
        tls.client_ca_file = value();
      } else if (arg == "--cluster") {
        options.api.cluster = nvcre::sim::parse_cluster_profile(value());
      } else if (arg == "--faulty-node") {
        faulty_nodes.push_back(nvcre::sim::parse_faulty_node(value()));
      } else if (arg == "--trainer-step-ms") {
        options.api.trainer.step = std::chrono::milliseconds(std::stoul(value()));
      } else if (arg == "--no-trainer") {
        options.api.trainer.enabled = false;
      } else if (arg == "--help" || arg == "-h") {
        usage();
        return 0;
      } else {
        return usage();
      }
    } catch (const std::exception& e) {
      std::cerr << "kube-sim: " << e.what() << "\n";
      return usage();
    }
  }

  if (!tls.cert_file.empty() || !tls.key_file.empty() || !tls.client_ca_file.empty()) {
    if (tls.cert_file.empty() || tls.key_file.empty()) {
      std::cerr << "kube-sim: --tls-cert-file and --tls-private-key-file go together"
                   " (--client-ca-file needs both)\n";
      return usage();
    }
    options.tls = tls;
  }

  if (!faulty_nodes.empty()) {
    if (!options.api.cluster) {
      std::cerr << "kube-sim: --faulty-node needs --cluster\n";
      return usage();
    }
    options.api.cluster->faulty_nodes = faulty_nodes;
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // the server thread inherits the mask

  try {
    nvcre::sim::KubeSim sim(options);
    if (!crds.empty()) nvcre::sim::install_crds_from_directory(sim.api(), crds);
    if (!fault_plan.empty()) {
      std::ifstream in(fault_plan);
      if (!in) throw std::runtime_error("cannot read fault plan " + fault_plan);
      std::stringstream text;
      text << in.rdbuf();
      sim.api().faults().set_plan(nvcre::sim::parse_fault_plan(text.str()));
    }
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
