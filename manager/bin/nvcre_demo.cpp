// nvcre-demo: the embedded main job. Starts kube-sim in-process with a simulated GPU cluster
// (default aws:h100:16, one faulty node) and its simulated Kubeflow Trainer, installs the CRDs,
// runs the real manager against it, submits a Certification, shows its progress and ends with
// the result per category, including every failed node and its reason.
// Exit 0 when the Certification reached a verdict (Succeeded or Failed), 1 on timeout or error.
#include "manager/embedded/embedded_cluster.hpp"
#include "jsonkit/yaml.hpp"
#include "manager/demo_report.hpp"
#include "manager/flags.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

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
  if (int code = nvcre::manager::parse_command_line(app, argc, argv); code >= 0) return code;
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
    while (!done && std::chrono::steady_clock::now() < deadline) {
      json::value current = api.get(certifications, ns, name);
      for (const auto& line : progress.update(current)) std::cout << line << "\n" << std::flush;
      done = nvcre::manager::has_verdict(current);
      if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    json::value final_state = api.get(certifications, ns, name);
    std::vector<json::value> workflows;
    const nvcre::k8s::ResourceRef workflow_ref{"nvcre.nvidia.com", "v1alpha1", "workflows", true};
    const json::value workflow_list = api.list(workflow_ref, ns);
    for (const auto& item : workflow_list.at("items").as_array()) workflows.push_back(item);
    std::vector<json::value> jobs;
    const json::value job_list = api.list({"nvcre.nvidia.com", "v1alpha1", "jobs", true}, ns);
    for (const auto& item : job_list.at("items").as_array()) jobs.push_back(item);
    std::vector<json::value> bandwidth;
    const json::value bandwidth_list =
        api.list({"nvcre.nvidia.com", "v1alpha1", "bandwidthmeasurements", true}, ns);
    for (const auto& item : bandwidth_list.at("items").as_array()) bandwidth.push_back(item);
    std::vector<json::value> configmaps;
    const json::value configmap_list = api.list({"", "v1", "configmaps", true}, ns);
    for (const auto& item : configmap_list.at("items").as_array()) configmaps.push_back(item);
    std::cout << nvcre::manager::final_report(final_state, workflows, jobs, bandwidth, configmaps)
              << std::flush;
    manager.stop();
    embedded.stop();
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
