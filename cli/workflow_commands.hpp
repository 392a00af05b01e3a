#pragma once
// `nvcrectl workflow render`: resolves a hand-written Workflow's overrides against mock nodes of a
// (platform, GPU architecture) pair or against nodes from a file, offline.
#include <boost/json/value.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace nvcre::cli {

struct WorkflowRenderOptions {
  std::string file;
  std::string platform;
  std::string gpu_arch;
  std::string nodes_file;
  std::string output = "yaml";  // yaml | json
};

// Two GPU nodes of `platform` with `gpu_architecture` (product label, provider ID, platform
// markers, hostname; the NVLink clique label for GB200/GB300). Throws std::invalid_argument for
// an unknown platform or architecture, listing what is available.
std::vector<boost::json::value> mock_nodes(const std::string& platform,
                                           const std::string& gpu_architecture);

// Nodes from a YAML/JSON file: a list of Node objects, a `kind: List` / `NodeList`, or several
// documents of kind Node.
std::vector<boost::json::value> read_nodes_file(const std::string& path);

void render_workflow(const WorkflowRenderOptions& options, std::ostream& out);

}  // namespace nvcre::cli
