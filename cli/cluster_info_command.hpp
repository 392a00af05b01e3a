#pragma once
// `nvcrectl cluster info`: lists the GPU nodes (nvidia.com/gpu.present=true) and prints what the
// controller would make of them (clusterinfo/cluster_info.hpp) as a table, JSON or YAML.
#include "cli/connection_flags.hpp"

#include <boost/json/value.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace nvcre::cli {

struct ClusterInfoOptions {
  ConnectionFlags connection;
  std::string output = "table";  // table | json | yaml
  std::string topology_key;
};

// Registers `cluster info` under `app` (creating the `cluster` group); returns the `info` command.
CLI::App* add_cluster_commands(CLI::App& app, ClusterInfoOptions& options);

// Runs the command; returns the exit code. `color`: ANSI emphasis in the table.
int run_cluster_info(const ClusterInfoOptions& options, std::ostream& out, bool color);

}  // namespace nvcre::cli
