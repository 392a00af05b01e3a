// nvcre-demo: the embedded main job. Starts kube-sim in-process with a simulated GPU cluster
// (default aws:h100:16, one faulty node) and its simulated Kubeflow Trainer, installs the CRDs,
// runs the real manager against it, submits a Certification, shows its progress and ends with
// the result per category, including every failed node and its reason.
// With --keep, kube-sim and the manager stay up after the report until SIGINT/SIGTERM, and the
// demo prints a kubeconfig and the nvcrectl command that reads the report from them.
// Exit 0 when the Certification reached a verdict (Succeeded or Failed), 1 on timeout or error.
#include "manager/embedded/embedded_cluster.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/kubeconfig.hpp"
#include "manager/demo_report.hpp"
#include "manager/flags.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <signal.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace {

namespace json = boost::json;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Ctrl-C and SIGTERM, blocked in every thread (before any starts) so the main thread alone takes
// them, with sigtimedwait / sigwait, and stops the cluster in order.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

bool stop_requested(const sigset_t& set) {
  const timespec none{0, 0};
  return sigtimedwait(&set, nullptr, &none) > 0;
}

// The nvcrectl next to this binary (build/cli/nvcrectl beside build/manager/nvcre-demo), relative
// to the working directory when it lies below it, so the printed command can be pasted as is.
std::string nvcrectl_path() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return "nvcrectl";
  const fs::path cli = self.parent_path().parent_path() / "cli" / "nvcrectl";
  const fs::path relative = cli.lexically_relative(fs::current_path(error));
  if (!error && !relative.empty() && *relative.begin() != "..") return relative.string();
  return cli.string();
}

// Writes a kubeconfig for kube-sim into a fresh directory under the temporary directory and
// prints how to read the report with it; returns the directory (removed on exit).
std::filesystem::path offer_cluster(const std::string& server_url, const std::string& ns,
                                    const std::string& name) {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "nvcre-demo-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a directory for the kubeconfig under " +
                             fs::temp_directory_path().string());
  const fs::path kubeconfig = fs::path(pattern) / "kubeconfig";
  std::ofstream(kubeconfig) << nvcre::k8s::single_context_kubeconfig(server_url);
  std::cout << "\nkube-sim and the manager stay up until Ctrl-C. Kubeconfig: "
            << kubeconfig.string() << "\nRead the report from another shell:\n  " << nvcrectl_path()
            << " certification report " << name << " -n " << ns << " --kubeconfig "
            << kubeconfig.string() << "\n"
            << std::flush;
  return pattern;
}

// The result per category from what the Certification left in its namespace.
void print_final_report(nvcre::k8s::RestClient& api, const std::string& ns,
                        const std::string& name) {
  const auto items = [&](const nvcre::k8s::ResourceRef& resource) {
    std::vector<json::value> out;
    const json::value list = api.list(resource, ns);
    for (const auto& item : list.at("items").as_array()) out.push_back(item);
    return out;
  };
  const json::value final_state =
      api.get({"nvcre.nvidia.com", "v1alpha1", "certifications", true}, ns, name);
  std::cout << nvcre::manager::final_report(
                   final_state, items({"nvcre.nvidia.com", "v1alpha1", "workflows", true}),
                   items({"nvcre.nvidia.com", "v1alpha1", "jobs", true}),
                   items({"nvcre.nvidia.com", "v1alpha1", "bandwidthmeasurements", true}),
                   items({"", "v1", "configmaps", true}))
            << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cluster = "aws:h100:16";
  std::vector<std::string> faulty = {"gpu-node-05=XID 79: GPU has fallen off the bus"};
  std::vector<std::string> slow, stall, node_conditions;
  std::string certification_file = "examples/demo-certification.yaml";
  std::string crds = "deploy/crds";
  int step_ms = 300;
  int run_ms = 0;
  int timeout_s = 300;
  bool keep = false;
  CLI::App app{"nvcre-demo: one Certification end to end on an in-process kube-sim", "nvcre-demo"};
  app.add_option("--cluster", cluster, "Simulated cluster PLATFORM:GPU:NODES")
      ->capture_default_str();
  app.add_option("--faulty-node", faulty, "NAME[=REASON]: pods on this node fail (repeatable)");
  app.add_option(
      "--slow-node", slow,
      "NAME=GBPS: a group with this node reports at most GBPS bus bandwidth (repeatable)");
  app.add_option("--stall-node", stall,
                 "NAME: a group with this node stops logging after a few steps and keeps running "
                 "(repeatable)");
  app.add_option("--node-condition", node_conditions,
                 "NAME=TYPE: the node's condition TYPE turns False a few Trainer steps into a job "
                 "there, e.g. gpu-node-05=GPUHealthy (repeatable)");
  app.add_option("--certification", certification_file, "The Certification to submit")
      ->capture_default_str();
  app.add_option("--crds", crds, "Directory of the CRDs to install")->capture_default_str();
  app.add_option("--trainer-step-ms", step_ms,
                 "Simulated Trainer: time between a TrainJob's stages")
      ->capture_default_str();
  app.add_option("--trainer-run-ms", run_ms,
                 "Simulated Trainer: how long pods run, writing their logs as they go (0: a step)")
      ->capture_default_str();
  app.add_option("--timeout", timeout_s, "Give up after this many seconds")->capture_default_str();
  app.add_flag("--keep", keep,
               "After the report keep kube-sim and the manager up until Ctrl-C, and print the "
               "kubeconfig and nvcrectl command to read the report with");
  if (int code = nvcre::manager::parse_command_line(app, argc, argv); code >= 0) return code;
  const sigset_t signals = stop_signals();
  if (keep) pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  bool interrupted = false;
  spdlog::set_level(spdlog::level::warn);
  try {
    json::value certification = nvcre::jsonkit::parse_yaml(read_file(certification_file));
    std::string ns(certification.at("metadata").at("namespace").as_string());
    std::string name(certification.at("metadata").at("name").as_string());
    nvcre::manager::EmbeddedClusterOptions cluster_options;
    cluster_options.profile = cluster;
    cluster_options.faulty_nodes = faulty;
    cluster_options.slow_nodes = slow;
    cluster_options.stall_nodes = stall;
    cluster_options.node_conditions = node_conditions;
    cluster_options.trainer_run = std::chrono::milliseconds(run_ms);
    cluster_options.trainer_step = std::chrono::milliseconds(step_ms);
    cluster_options.bookmark_interval = std::chrono::milliseconds(1000);
    cluster_options.crds_dir = crds;
    cluster_options.namespaces = {ns};
    nvcre::manager::EmbeddedCluster embedded(cluster_options);
    embedded.start();
    const auto& profile = embedded.profile();
    std::cout << "kube-sim on " << embedded.sim().url() << ": " << profile.node_count << " "
              << profile.platform << " " << profile.architecture << " nodes";
    for (const auto& f : profile.faulty_nodes)
      std::cout << ", faulty " << f.name << " (" << f.reason << ")";
    for (const auto& s : profile.slow_nodes)
      std::cout << ", slow " << s.name << " (" << s.bus_bandwidth_gbps << " GB/s)";
    for (const auto& s : profile.stall_nodes) std::cout << ", stalling " << s;
    for (const auto& c : profile.node_conditions)
      std::cout << ", " << c.node << " turning " << c.type << "=False";
    std::cout << "\n";

    auto options = embedded.manager_options("nvcre-demo");
    options.max_watch_timeout = std::chrono::seconds(30);
    nvcre::actors::Manager manager(options);
    manager.start();

    nvcre::k8s::RestClient& api = embedded.client();
    const nvcre::k8s::ResourceRef certifications{"nvcre.nvidia.com", "v1alpha1", "certifications",
                                                 true};
    api.create(certifications, ns, certification);
    std::cout << "submitted Certification " << ns << "/" << name << "\n";

    nvcre::manager::DemoProgress progress;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    bool done = false;
    while (!done && !interrupted && std::chrono::steady_clock::now() < deadline) {
      if (keep && stop_requested(signals)) {
        interrupted = true;
        break;
      }
      json::value current = api.get(certifications, ns, name);
      for (const auto& line : progress.update(current)) std::cout << line << "\n" << std::flush;
      done = nvcre::manager::has_verdict(current);
      if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    print_final_report(api, ns, name);
    if (keep && !interrupted) {
      const auto dir = offer_cluster(embedded.sim().url(), ns, name);
      int signal = 0;
      sigwait(&signals, &signal);
      std::cout << "stopping kube-sim and the manager\n" << std::flush;
      std::filesystem::remove_all(dir);
    }
    manager.stop();
    embedded.stop();
    if (interrupted) {
      std::cerr << "Error: interrupted before a verdict\n";
      return 1;
    }
    if (!done) {
      std::cerr << "Error: no verdict after " << timeout_s << " s (see the progress above)\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "Error: " << error.what() << "\n";
    return 1;
  }
}
