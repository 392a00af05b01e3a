#pragma once
// `nvcrectl certification render` and `list-categories`: offline, from the compiled-in catalog,
// through the same build path and transforms as the controller.
#include "api/certification.hpp"
#include "cli/connection_flags.hpp"

#include <boost/json/array.hpp>

#include <iosfwd>
#include <map>
#include <string>

namespace nvcre::cli {

struct RenderOptions {
  std::string file;
  std::string platform;         // --platform: pretend the nodes are on this platform
  std::string gpu_arch;         // --gpu-arch: wins over the nodeSelector's product label
  std::string output = "yaml";  // yaml (multi-document) | json (one array)
  bool dry_run = false;         // --dry-run: against the cluster's nodes (cli/render_dry_run.hpp)
  ConnectionFlags connection;   // --dry-run only
};

// The shared first steps of both render paths: --platform and --output checked, the file read,
// threshold keys checked, at least one category; namespace "default" when the file has none.
api::Certification load_certification_for_render(const RenderOptions& options);

// Throws std::invalid_argument unless `output` is yaml or json.
void check_render_output(const std::string& output);

// yaml: one document per object separated by "---"; json: one indented array.
void write_rendered(const boost::json::array& rendered, const std::string& output,
                    std::ostream& out);

// Writes the rendered Workflows to `out`; throws std::runtime_error / std::invalid_argument with
// the reference CLI's messages (main prints "Error: <message>" and exits 1).
void render_certification(const RenderOptions& options, std::ostream& out);

// table (default; anything unknown falls back to it) | yaml | json.
void list_categories(const std::string& output, std::ostream& out);

// "unknown threshold key(s) [...]; valid keys: [...]" for keys outside the registry; "" when all
// keys are known.
std::string unknown_threshold_keys_message(const std::map<std::string, std::string>& thresholds);

// The Certification in a YAML file; throws std::runtime_error "read certification: ..." /
// "parse certification: ...".
api::Certification read_certification(const std::string& path);

// Throws std::runtime_error "certification <n>: [category d/v: ]unknown threshold key(s) ..." or
// "... invalid rdmaDeviceAccess ...": the options nothing later would catch before rendering.
void check_options(const api::Certification& certification);

}  // namespace nvcre::cli
