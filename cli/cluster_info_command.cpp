#include "cli/cluster_info_command.hpp"

#include "cli/gpu_nodes.hpp"
#include "clusterinfo/cluster_info.hpp"
#include "jsonkit/yaml.hpp"
#include "platform/topology_keys.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <ostream>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;

CLI::App* add_cluster_commands(CLI::App& app, ClusterInfoOptions& options) {
  auto* cluster_cmd = app.add_subcommand("cluster", "Inspect the cluster nvcre would certify");
  cluster_cmd->require_subcommand(1);
  auto* info_cmd = cluster_cmd->add_subcommand(
      "info", "GPU nodes, node pools, platform, exclusions, topology domains and NIC resources");
  info_cmd->add_option("-o,--output", options.output, "table, json or yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}));
  info_cmd->add_option("--topology-key", options.topology_key,
                       "Node label that names a topology domain (default: the platform's)");
  add_connection_flags(*info_cmd, options.connection, "");
  info_cmd->footer(
      "Platform, GPU architecture, sizing and exclusions come from the controller's own\n"
      "detection: what this prints is what a Certification over every GPU node would see.\n"
      "The topology key defaults per platform:\n"
      "  aws:   " +
      std::string(platform::kAwsTopologyKey) +
      "\n  gcp:   " + std::string(platform::kGcpTopologyKey) +
      "\n  azure: " + std::string(platform::kAzureTopologyKey) + "\nNVLink cliques (" +
      std::string(platform::kNvlinkCliqueLabel) +
      ") are listed whenever nodes carry them.\n\n"
      "Examples:\n"
      "  nvcrectl cluster info\n"
      "  nvcrectl cluster info -o json --context lab\n"
      "  nvcrectl cluster info --topology-key topology.kubernetes.io/zone");
  return info_cmd;
}

int run_cluster_info(const ClusterInfoOptions& options, std::ostream& out, bool color) {
  auto client = connect(options.connection);
  std::vector<json::value> nodes;
  try {
    nodes = list_gpu_nodes(*client);
  } catch (const k8s::TransportError& error) {
    throw std::runtime_error(describe_connection_failure(client->config(), error.what()));
  } catch (const k8s::ApiError& error) {
    throw std::runtime_error("node discovery: list nodes on " + client->config().server + ": " +
                             error.what());
  }
  const auto info = clusterinfo::build_cluster_info(std::move(nodes), {options.topology_key});
  if (options.output == "json")
    out << jsonkit::to_pretty_json(clusterinfo::to_json(info));
  else if (options.output == "yaml")
    out << jsonkit::to_yaml(clusterinfo::to_json(info));
  else
    out << clusterinfo::render_text(info, color);
  return 0;
}

}  // namespace nvcre::cli
