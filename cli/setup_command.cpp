#include "cli/setup_command.hpp"

#include "cli/run_plan.hpp"
#include "cli/setup_cluster.hpp"
#include "cli/version.hpp"
#include "install/bundle.hpp"
#include "install/phases.hpp"
#include "install/status.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <ostream>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;
namespace {

void add_common(CLI::App& command, SetupOptions& options) {
  // No -n: setup installs into its own namespace, and an ignored flag is worse than none.
  add_connection_flags(command, options.connection, "");
}

void add_phase_flags(CLI::App& command, SetupOptions& options, const std::string& phases) {
  command.add_option("--skip-phases", options.skip_phases,
                     "Comma-separated phases to skip (" + phases + ")");
  command.add_flag("--auto-approve", options.auto_approve,
                   "Skip the interactive confirmation prompt (for CI/automation)");
}

// The init's [deps] phase: Kubeflow Trainer's CRDs at the supported version, or the steps to get
// there. Throws (the command fails) when Trainer is missing or another version.
void check_deps(k8s::RestClient& client, std::ostream& err) {
  const auto trainer = install::check_trainer(setup::observe_cluster(client));
  if (auto problem = install::trainer_problem(trainer); !problem.empty()) {
    err << "[deps] " << problem << ".\n" << install::trainer_install_instructions();
    throw std::runtime_error("[deps] " + problem);
  }
  if (auto warning = install::trainer_warning(trainer); !warning.empty()) {
    err << warning;
  } else {
    err << "[deps] Kubeflow Trainer " << trainer.version->detected << " found ("
        << trainer.version->source << ").\n";
  }
}

// The init's [install] phase: every object of deploy/, CRDs first, LogProfiles once their CRD is
// established.
void apply_install(k8s::RestClient& client, const std::vector<json::value>& objects,
                   std::chrono::seconds establish_timeout, std::ostream& err) {
  err << "[install] Applying nvcre " << kVersion << " (" << objects.size()
      << " objects, field manager " << install::kFieldManager << ")...\n";
  k8s::ResourceMapper mapper(client);
  bool established = false;
  for (const auto& object : objects) {
    if (install::is_custom_resource(object) && !established) {
      const auto crds = setup::shipped_names(objects, "CustomResourceDefinition");
      err << "  Waiting for the CRDs to be established...\n";
      if (!setup::wait_established(client, crds, establish_timeout))
        throw std::runtime_error("[install] the nvcre CRDs were not Established within " +
                                 std::to_string(establish_timeout.count()) +
                                 "s; check them with 'kubectl get crd -l "
                                 "app.kubernetes.io/part-of=nvcre' and re-run init");
      mapper.invalidate(jsonkit::string_at(object, {"apiVersion"}));
      established = true;
    }
    const std::string result = setup::apply_object(client, mapper, object);
    err << "  " << install::object_label(object) << " " << result << "\n";
  }
}

// The manager container's image among the objects init applies.
std::string manager_image(const std::vector<json::value>& objects) {
  for (const auto& object : objects) {
    if (jsonkit::string_at(object, {"kind"}) != "Deployment") continue;
    const auto* containers = jsonkit::value_at(object, {"spec", "template", "spec", "containers"});
    if (containers == nullptr || !containers->is_array()) continue;
    for (const auto& container : containers->as_array())
      if (jsonkit::string_at(container, {"name"}) == install::kManagerContainer)
        return jsonkit::string_at(container, {"image"});
  }
  return {};
}

// What init applies: deploy/'s objects, and with --image-pull-secret a docker-registry Secret for
// the manager image's registry, which the manager's pod spec names.
std::vector<json::value> init_objects(const SetupOptions& options) {
  if (options.image_pull_secret.empty()) return install::install_objects({options.image, ""});
  const std::string secret(kManagerPullSecret);
  auto objects = install::install_objects({options.image, secret});
  // The token is the password; registries that take a token accept any user name.
  objects.push_back(
      pull_secret(secret, std::string(install::kNamespace),
                  {image_registry(manager_image(objects)), "token", options.image_pull_secret}));
  return install::apply_order(std::move(objects));
}

}  // namespace

void add_setup_commands(CLI::App& app, SetupCommands& commands) {
  auto* setup_cmd =
      app.add_subcommand("setup", "Install nvcre into a cluster, check it, remove it");
  setup_cmd->require_subcommand(1);

  auto* init = setup_cmd->add_subcommand(
      "init", "Install nvcre (CRDs, manager, RBAC, LogProfiles) on the target cluster");
  add_phase_flags(*init, commands.init, "deps, install");
  init->add_option("--image", commands.init.image,
                   "Manager image (default: the one deploy/manager/deployment.yaml names)");
  init->add_option("--image-pull-secret", commands.init.image_pull_secret,
                   "Registry token for a private manager image: creates the docker-registry "
                   "Secret " +
                       std::string(kManagerPullSecret) +
                       " (namespace nvcre, for the image's registry) and names it in the "
                       "manager's pod spec; reset keeps it with the namespace (never printed)");
  add_common(*init, commands.init);
  init->footer(
      "Phases:\n"
      "  [deps]     check that Kubeflow Trainer " +
      std::string(install::kTrainerVersion) +
      " is installed (says how to install it when it is not)\n"
      "  [install]  apply the objects of deploy/ compiled into nvcrectl (server-side apply; "
      "re-running init upgrades them)\n\n"
      "Examples:\n"
      "  nvcrectl setup init\n"
      "  nvcrectl setup init --auto-approve --image registry.example.com/nvcre-manager:0.2.0\n"
      "  nvcrectl setup init --skip-phases=deps --context lab");
  commands.init_cmd = init;

  auto* status = setup_cmd->add_subcommand(
      "status", "Report the installation status of nvcre and its dependencies");
  status->add_option("-o,--output", commands.status.output, "Output format: table, json")
      ->check(CLI::IsMember({"table", "json"}));
  add_common(*status, commands.status);
  status->footer(
      "Components: nvcreCRDs, nvcreController (a Deployment in namespace nvcre with an available\n"
      "replica), kubeflowTrainer (supported: " +
      std::string(install::kTrainerVersion) +
      "), logProfiles (the shipped ones), gpuOperator (nodes\n"
      "labelled nvidia.com/gpu.present=true), dcgm (optional).\n\n"
      "Examples:\n"
      "  nvcrectl setup status\n"
      "  nvcrectl setup status -o json");
  commands.status_cmd = status;

  auto* reset = setup_cmd->add_subcommand("reset", "Remove nvcre from the target cluster");
  add_phase_flags(*reset, commands.reset, "cr, install, deps");
  add_common(*reset, commands.reset);
  reset->footer(
      "Phases:\n"
      "  [cr]       delete every nvcre custom resource and wait (10 min) while the controller\n"
      "             runs their finalizers\n"
      "  [install]  delete what init installed, the CRDs last (the namespace is kept)\n"
      "  [deps]     Kubeflow Trainer is kept: nvcrectl never installs it\n\n"
      "Examples:\n"
      "  nvcrectl setup reset\n"
      "  nvcrectl setup reset --auto-approve --skip-phases=cr");
  commands.reset_cmd = reset;
}

int run_setup_command(const SetupCommands& commands, std::istream& in, std::ostream& out,
                      std::ostream& err) {
  if (commands.init_cmd != nullptr && *commands.init_cmd)
    return run_setup_init(commands.init, in, err);
  if (commands.status_cmd != nullptr && *commands.status_cmd)
    return run_setup_status(commands.status, out);
  if (commands.reset_cmd != nullptr && *commands.reset_cmd)
    return run_setup_reset(commands.reset, in, err);
  return -1;
}

int run_setup_init(const SetupOptions& options, std::istream& in, std::ostream& err) {
  err << "[preflight] Checking prerequisites...\n";
  const auto skip = install::parse_skip_phases(options.skip_phases, install::SetupCommand::Init);
  const auto objects = init_objects(options);
  auto client = connect(options.connection);
  if (!options.auto_approve) {
    const std::vector<install::PhaseInfo> phases = {
        {std::string(install::kPhaseDeps),
         "Kubeflow Trainer " + std::string(install::kTrainerVersion) + " (checked, not installed)"},
        {std::string(install::kPhaseInstall),
         "nvcre " + std::string(kVersion) + " (CRDs, manager, RBAC, LogProfiles)"}};
    if (!setup::confirm(in, err, client->config(), phases, skip)) {
      err << "\nInit cancelled.\n";
      return 0;
    }
    err << "\n";
  }
  try {
    if (skip.contains(std::string(install::kPhaseDeps)))
      err << "[deps] Skipped.\n";
    else
      check_deps(*client, err);
    if (skip.contains(std::string(install::kPhaseInstall)))
      err << "[install] Skipped.\n";
    else
      apply_install(*client, objects, options.establish_timeout, err);
  } catch (const k8s::TransportError& error) {
    throw std::runtime_error(describe_connection_failure(client->config(), error.what()));
  }
  err << "\nnvcre " << kVersion << " initialized successfully.\n";
  return 0;
}

int run_setup_status(const SetupOptions& options, std::ostream& out) {
  const auto objects = install::install_objects();
  auto client = connect(options.connection);
  install::ClusterObservation observed;
  try {
    observed = setup::observe_cluster(*client);
  } catch (const k8s::TransportError& error) {
    throw std::runtime_error(describe_connection_failure(client->config(), error.what()));
  }
  const auto status =
      install::evaluate_status(observed, setup::shipped_names(objects, "CustomResourceDefinition"),
                               setup::shipped_names(objects, "LogProfile"));
  if (options.output == "json")
    out << jsonkit::to_pretty_json(install::status_json(status)) << "\n";
  else
    out << install::render_status_table(status);
  return 0;
}

}  // namespace nvcre::cli
