// Render matrix: every catalog entry on every (platform, GPU architecture) pair, rendered
// offline exactly as `nvcrectl certification render --platform P --gpu-arch A` renders it, one fact
// line per render. The lines are what a reviewer checks against the catalog's sources
// (catalog/entries/README.md): images, GPU/NIC resources, ComputeDomain + DRA claims,
// GKE networks, tolerations, NCCL/EFA env names, MNNVL, node/GPU counts, scheduler, topology key.
// Suite render-matrix: one case per entry (<domain>-<variant>/input.yaml, a Certification with that
// single category), expected.txt = one line per (platform, architecture).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "cli/certification_commands.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/platform_names.hpp"
#include "test/support/golden.hpp"
#include "test/support/golden_inputs.hpp"

namespace json = boost::json;
using nvcre::testing::find;
using nvcre::testing::GoldenCase;

namespace {

using Path = std::initializer_list<std::string_view>;

// A scalar as text: strings bare, anything else as JSON; "-" when absent.
std::string text(const json::value* value) {
  if (value == nullptr) return "-";
  return value->is_string() ? std::string(value->get_string()) : json::serialize(*value);
}

const json::array& list_at(const json::value* root, Path path) {
  static const json::array empty;
  const json::value* value = root ? find(*root, path) : nullptr;
  return value && value->is_array() ? value->get_array() : empty;
}

// The item of a list of named objects (containers, replicatedJobs) with that name, or nullptr.
const json::value* named(const json::array& items, std::string_view name) {
  for (const auto& item : items) {
    const json::value* item_name = find(item, {"name"});
    if (item_name && item_name->is_string() && item_name->get_string() == name) return &item;
  }
  return nullptr;
}

std::string joined(const std::vector<std::string>& items, std::string_view separator = ",") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out.empty() ? "-" : out;
}

// {k: v, ...} as "k=v,..." with values in JSON form, so a quoted "32" and an unquoted 4 differ.
std::string resource_map(const json::value* map) {
  if (map == nullptr || !map->is_object()) return "-";
  std::vector<std::string> items;
  for (const auto& [key, value] : map->get_object())
    items.push_back(std::string(key) + "=" + json::serialize(value));
  return joined(items);
}

std::string tolerations(const json::value* pod_spec) {
  std::vector<std::string> items;
  for (const auto& t : list_at(pod_spec, {"tolerations"})) {
    items.push_back(text(find(t, {"key"})) + "=" + text(find(t, {"value"})) + ":" +
                    text(find(t, {"effect"})));
  }
  return joined(items);
}

std::vector<std::string> keys_of(const json::value* map) {
  std::vector<std::string> keys;
  if (map && map->is_object())
    for (const auto& [key, value] : map->get_object()) keys.emplace_back(key);
  return keys;
}

bool is_network_env(std::string_view name) {
  return name.starts_with("NCCL_") || name.starts_with("FI_") ||
         name.find("EFA") != std::string_view::npos;
}

// Everything one render is reviewed for, in a fixed order; optional fields only when present.
class FactLine {
 public:
  void add(std::string_view key, const std::string& value) { out_ << ' ' << key << '=' << value; }
  void add_if(std::string_view key, const std::string& value) {
    if (value != "-") add(key, value);
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

std::string facts_of(const json::value& workflow) {
  const json::value& spec = workflow.at("spec");
  const json::value* trainer =
      find(spec, {"jobTemplate", "spec", "workload", "trainJob", "trainer"});
  const json::value* runtime = nullptr;
  std::vector<std::string> dependencies;
  for (const auto& dependency : list_at(&spec, {"dependencies"})) {
    const std::string kind = text(find(dependency, {"kind"}));
    std::string item = kind + "/" + text(find(dependency, {"metadata", "name"}));
    if (kind == "TrainingRuntime" && runtime == nullptr) runtime = &dependency;
    if (kind == "ComputeDomain") {
      item += "{numNodes:" + text(find(dependency, {"spec", "numNodes"})) + ",claimTemplate:" +
              text(find(dependency, {"spec", "channel", "resourceClaimTemplate", "name"})) + "}";
    }
    dependencies.push_back(item);
  }
  const json::array& jobs = list_at(runtime, {"spec", "template", "spec", "replicatedJobs"});
  const json::value* worker_job = named(jobs, "node");
  const json::value* launcher_job = named(jobs, "launcher");
  const json::value* worker_pod =
      worker_job ? find(*worker_job, {"template", "spec", "template", "spec"}) : nullptr;
  const json::value* launcher_pod =
      launcher_job ? find(*launcher_job, {"template", "spec", "template", "spec"}) : nullptr;
  const json::value* worker = named(list_at(worker_pod, {"containers"}), "node");

  // Env: names forwarded with mpirun -x, trainer.env (NAME=VALUE), the worker's network env names.
  std::vector<std::string> mpi_env, mca, trainer_env, worker_env, mnnvl;
  const json::array& args = list_at(trainer, {"args"});
  std::string binary = "-";
  // The test's own arguments: after the binary in an mpirun line, all of them when the command
  // is the binary itself (the per-node entries).
  std::vector<std::string> test_args;
  bool after_binary =
      !list_at(trainer, {"command"}).empty() &&
      text(&list_at(trainer, {"command"}).back()).find("_perf") != std::string::npos;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string arg = text(&args[i]);
    const std::string next = i + 1 < args.size() ? text(&args[i + 1]) : "";
    if (after_binary) test_args.push_back(arg);
    if (!after_binary && arg.starts_with("/") && arg.find("_perf") != std::string::npos)
      after_binary = true;
    if (arg == "-x" && !next.empty()) {
      mpi_env.push_back(next.substr(0, next.find('=')));
      if (next.starts_with("NCCL_MNNVL_ENABLE="))
        mnnvl.push_back("mpirun:" + next.substr(next.find('=') + 1));
    }
    if (arg == "--mca" && !next.empty()) mca.push_back(next);
    const bool option_value = i > 0 && text(&args[i - 1]).starts_with("-");  // --prefix /opt/...
    if (binary == "-" && arg.starts_with("/") && !option_value) binary = arg;
  }
  for (const auto& var : list_at(trainer, {"env"})) {
    const std::string name = text(find(var, {"name"}));
    trainer_env.push_back(name + "=" + text(find(var, {"value"})));
    if (name == "NCCL_MNNVL_ENABLE") mnnvl.push_back("trainer:" + text(find(var, {"value"})));
  }
  for (const auto& var : list_at(worker, {"env"})) {
    const std::string name = text(find(var, {"name"}));
    if (is_network_env(name)) worker_env.push_back(name);
    if (name == "NCCL_MNNVL_ENABLE") mnnvl.push_back("worker:" + text(find(var, {"value"})));
  }
  std::vector<std::string> command, claims, pod_claims;
  for (const auto& part : list_at(trainer, {"command"})) command.push_back(text(&part));
  for (const auto& claim : list_at(worker, {"resources", "claims"}))
    claims.push_back(text(find(claim, {"name"})));
  for (const auto& claim : list_at(worker_pod, {"resourceClaims"})) {
    pod_claims.push_back(text(find(claim, {"name"})) + "->" +
                         text(find(claim, {"resourceClaimTemplateName"})));
  }
  std::vector<std::string> annotations =
      keys_of(worker_job ? find(*worker_job, {"template", "metadata", "annotations"}) : nullptr);
  for (auto& key : keys_of(worker_job ? find(*worker_job, {"template", "spec", "template",
                                                           "metadata", "annotations"})
                                      : nullptr)) {
    annotations.push_back("pod:" + key);
  }
  std::vector<std::string> init_containers, volumes;
  for (const auto& init : list_at(worker_pod, {"initContainers"}))
    init_containers.push_back(text(find(init, {"name"})) + ":" + text(find(init, {"image"})));
  for (const auto& volume : list_at(worker_pod, {"volumes"})) {
    std::string source = "-";
    for (const char* kind : {"hostPath", "configMap", "emptyDir", "persistentVolumeClaim"}) {
      if (const json::value* found = find(volume, {kind})) {
        const json::value* detail = find(*found, {"path"});
        if (detail == nullptr) detail = find(*found, {"name"});
        source = std::string(kind) + (detail ? ":" + text(detail) : "");
      }
    }
    volumes.push_back(text(find(volume, {"name"})) + "=" + source);
  }
  std::vector<std::string> policies =
      keys_of(runtime ? find(*runtime, {"spec", "mlPolicy"}) : nullptr);
  std::erase(policies, "numNodes");
  const std::string image = text(trainer ? find(*trainer, {"image"}) : nullptr);
  const std::string worker_image = text(worker ? find(*worker, {"image"}) : nullptr);
  const json::value* limits = worker ? find(*worker, {"resources", "limits"}) : nullptr;
  const json::value* requests = worker ? find(*worker, {"resources", "requests"}) : nullptr;

  // How the worker runs: its Job's retry budget, the host network, privilege and capabilities, and
  // how readiness is probed.
  std::vector<std::string> security;
  if (const json::value* context = worker ? find(*worker, {"securityContext"}) : nullptr) {
    if (const json::value* privileged = find(*context, {"privileged"}))
      security.push_back("privileged:" + text(privileged));
    for (const auto& capability : list_at(context, {"capabilities", "add"}))
      security.push_back(text(&capability));
  }
  std::string readiness = "-";
  if (const json::value* probe = worker ? find(*worker, {"readinessProbe"}) : nullptr) {
    readiness = find(*probe, {"tcpSocket"})
                    ? "tcp:" + text(find(*probe, {"tcpSocket", "port"}))
                    : (find(*probe, {"exec"}) ? std::string("exec") : std::string("other"));
  }

  FactLine line;
  line.add("nodes", text(trainer ? find(*trainer, {"numNodes"}) : nullptr));
  line.add("gpusPerNode", text(trainer ? find(*trainer, {"numProcPerNode"}) : nullptr));
  line.add("image", image);
  line.add("workerImage", worker_image == image ? "same" : worker_image);
  line.add("command", joined(command, " "));
  line.add_if("binary", binary);
  line.add_if("testArgs", joined(test_args, " "));
  line.add_if("mlPolicy", joined(policies));
  line.add_if("init", joined(init_containers));
  line.add_if("volumes", joined(volumes));
  line.add("limits", resource_map(limits));
  if (resource_map(requests) != resource_map(limits)) line.add("requests", resource_map(requests));
  line.add("deps", joined(dependencies));
  line.add_if("claims", joined(claims));
  line.add_if("podClaims", joined(pod_claims));
  line.add_if("annotations", joined(annotations));
  line.add_if("backoffLimit",
              text(worker_job ? find(*worker_job, {"template", "spec", "backoffLimit"}) : nullptr));
  line.add_if("hostNetwork", text(worker_pod ? find(*worker_pod, {"hostNetwork"}) : nullptr));
  line.add_if("security", joined(security));
  line.add_if("readiness", readiness);
  line.add_if("tolerations", tolerations(worker_pod));
  line.add_if("launcherTolerations", tolerations(launcher_pod));
  line.add_if("mpiEnv", joined(mpi_env));
  line.add_if("mca", joined(mca));
  line.add_if("trainerEnv", joined(trainer_env));
  line.add_if("workerEnv", joined(worker_env));
  line.add("mnnvl", mnnvl.empty() ? "unset" : joined(mnnvl));
  line.add("scheduler", text(worker_pod ? find(*worker_pod, {"schedulerName"}) : nullptr));
  line.add("topology", text(find(spec, {"orchestration", "topology", "topologyKey"})));
  return line.str();
}

// One line per (platform, architecture), platforms in the reference order, architectures sorted.
std::string render_matrix(const GoldenCase& golden_case) {
  std::string out;
  for (std::string_view platform : nvcre::platform::kPlatformNames) {
    for (std::string_view arch : nvcre::platform::known_gpu_architectures()) {
      nvcre::cli::RenderOptions options;
      options.file = (golden_case.dir / "input.yaml").string();
      options.platform = std::string(platform);
      options.gpu_arch = std::string(arch);
      options.output = "json";
      std::string facts;
      try {
        std::ostringstream rendered;
        nvcre::cli::render_certification(options, rendered);
        const json::value workflows = json::parse(rendered.str());
        facts = facts_of(workflows.as_array().at(0));
      } catch (const std::exception& error) {
        facts = std::string(" refused: ") + error.what();
      }
      out += std::string(platform) + "/" + std::string(arch) + ":" + facts + "\n";
    }
  }
  return out;
}

class RenderMatrix : public ::testing::TestWithParam<GoldenCase> {};

}  // namespace

TEST_P(RenderMatrix, FactLines) { nvcre::testing::check_golden(GetParam(), render_matrix); }

NVCRE_GOLDEN_SUITE(RenderMatrix, "render-matrix");

// A new catalog entry must come with its matrix case (folder <domain>-<variant>), and a removed one
// must take its case along, so the matrix always covers the whole catalog.
TEST(RenderMatrixCoverage, OneCasePerCatalogEntry) {
  std::set<std::string> entries, cases;
  for (const auto& key : nvcre::catalog::Catalog::builtin().list())
    entries.insert(key.domain + "-" + key.variant);
  for (const auto& golden_case : nvcre::testing::load_cases("render-matrix"))
    cases.insert(golden_case.name);
  EXPECT_EQ(entries, cases);
}
