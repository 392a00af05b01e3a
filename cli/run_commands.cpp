#include "cli/run_commands.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <iostream>

namespace nvcre::cli {

namespace {

void add_registry_flags(CLI::App& command, RegistryFlags& registry, const std::string& owner) {
  add_string_options(
      command,
      {{"--workload-registry", &registry.server,
        "Registry of the workload images; with the two flags below, creates the docker-registry "
        "Secret nvcrectl-pull-<name> owned by the " +
            owner},
       {"--workload-registry-username", &registry.username, "User name for --workload-registry"},
       {"--workload-registry-password", &registry.password,
        "Password or token for --workload-registry (never printed)"}});
}

void add_category_flags(CLI::App& run, RunCommands& commands) {
  auto& flags = commands.certification_run.options.category;
  run.add_option("--nodes-per-job", flags.nodes_per_job,
                 "Nodes per job group (0: all nodes, or the largest valid size for training)");
  run.add_option("--gpus-per-node", flags.gpus_per_node,
                 "GPUs per node (0: the GPU architecture's default)");
  commands.enable_checkpoint_flag = run.add_flag(
      "--enable-checkpoint", commands.enable_checkpoint,
      "Checkpoint training workloads (applied only when given; --enable-checkpoint=false "
      "turns it off)");
  commands.enable_mnnvl_flag = run.add_flag(
      "--enable-mnnvl", commands.enable_mnnvl,
      "Multi-node NVLink (NCCL_MNNVL_ENABLE; applied only when given, else by architecture)");
  run.add_option("--max-steps", flags.max_steps,
                 "Training step cap of NeMo 4 workloads (0: catalog default)");
  run.add_option("--exit-duration-mins", flags.exit_duration_mins,
                 "Training duration in minutes of NeMo 6 workloads (0: catalog default)");
  run.add_option("--repeat-count", flags.repeat_count,
                 "Iterations per category (0: catalog default)");
  run.add_option("--max-restarts", flags.max_restarts,
                 "Checkpoint restarts allowed (0: catalog default)");
  run.add_option("--storage-class", flags.storage_class,
                 "StorageClass for the categories' volume claims");
}

}  // namespace

void add_certification_run_command(CLI::App& certification_cmd, RunCommands& commands) {
  auto& options = commands.certification_run.options;
  auto* run = certification_cmd.add_subcommand(
      "run", "Create a Certification on the cluster, optionally wait for its report");
  run->add_option("--cert-file", options.cert_file,
                  "Certification YAML (its namespace, else -n, else a new nvcrectl-<timestamp>)");
  run->add_option("--category", options.categories,
                  "Catalog category domain/variant (repeat, or a comma list); certifies every GPU "
                  "node of the cluster's one GPU product")
      ->delimiter(',');
  run->add_option("--name", options.name,
                  "Certification name with --category (default: nvcrectl-<YYYYMMDD-HHMMSS>)");
  run->add_flag("--wait", options.wait,
                "Watch the Certification to its verdict and print the report (stdout when it "
                "passed, stderr otherwise)");
  run->add_flag("--setup", options.setup,
                "First install nvcre as `nvcrectl setup init --auto-approve` does (CRDs, manager, "
                "RBAC, LogProfiles; Kubeflow Trainer is checked, not installed)");
  run->add_option("--image", options.image,
                  "With --setup: the manager image (default: the one deploy/ names)");
  run->add_option("--controller-pull-secret", options.controller_pull_secret,
                  "With --setup: registry token for the manager image (a docker-registry Secret "
                  "in namespace nvcre, named in the manager's pod spec; separate from the "
                  "workload registry flags; never printed)");
  run->add_flag("--cleanup", options.cleanup,
                "Delete the Certification and the namespace this run created when done, also "
                "after a failure, a timeout or Ctrl-C; with --setup, then `setup reset`");
  run->add_option(
      "--timeout", options.timeout,
      "How long --wait waits (Go duration). Default: the categories' timeoutPerJob x "
      "iterations, SUMMED over the categories (the controller runs them one after another, "
      "so the longest alone would cut a multi-category run short), x 1.5 for scheduling; at "
      "least 30m");
  add_category_flags(*run, commands);
  add_registry_flags(*run, options.registry, "Certification");
  add_string_options(
      *run,
      {{"--results-file", &options.results_file, "With --wait: also write the JSON report here"},
       {"--junit-file", &options.junit_file,
        "With --wait: also write a JUnit XML report here (a testcase per category)"},
       {"--archive-to", &options.archive_to,
        "Name a controller-configured results-archive destination for this run's record (sets "
        "the nvcre.nvidia.com/archive-destination annotation). nvcre's controller has no results "
        "archive yet: the annotation is recorded on the Certification and not acted on"}});
  add_connection_flags(*run, options.connection,
                       "Namespace for a Certification whose file names none (default: a new "
                       "namespace nvcrectl-<YYYYMMDD-HHMMSS>)");
  run->footer(
      "Exit status: 0 when created (without --wait) or when the Certification passed; 1 on a "
      "failed\ncertification, a timeout, an interrupt or any error.\n\n"
      "Examples:\n"
      "  nvcrectl certification run --category communication/nccl-all-reduce --wait\n"
      "  nvcrectl certification run --cert-file cert.yaml --wait --cleanup --results-file r.json\n"
      "  nvcrectl certification run --category training/nemotron5-8b --max-steps 50 --wait "
      "--timeout 2h");
  commands.certification_run.app = run;
}

void add_workloadrun_live_commands(CLI::App& workloadrun_cmd, RunCommands& commands) {
  const std::string namespace_help =
      "Namespace of the WorkloadRun (default: the kubeconfig context's namespace, else "
      "\"default\")";
  auto& run_options = commands.workloadrun_run.options;
  auto* run = workloadrun_cmd.add_subcommand(
      "run", "Create a WorkloadRun on the cluster, optionally wait for its report");
  run->add_option("file", run_options.file, "WorkloadRun YAML or JSON file")->required();
  run->add_flag("--wait", run_options.wait,
                "Poll the WorkloadRun to its verdict and print the report (on stderr)");
  run->add_flag("--cleanup", run_options.cleanup,
                "Delete the WorkloadRun (and the namespace this run created) when done, also "
                "after a failure, a timeout or Ctrl-C");
  run->add_option("--timeout", run_options.timeout,
                  "How long --wait waits (Go duration); the run itself goes on unless --cleanup");
  add_registry_flags(*run, run_options.registry, "WorkloadRun");
  add_string_options(
      *run,
      {{"--results-file", &run_options.results_file,
        "With --wait: also write the JSON report here"},
       {"--name", &run_options.name, "Override metadata.name"},
       {"--node-list", &run_options.node_list,
        "Comma list of node names (target.nodeNames; numNodes is clamped to it)"},
       {"--test-scale", &run_options.test_scale, "intra-node, intra-rack or full-scale"},
       {"--topology-domain", &run_options.topology_domain,
        "Run on every node of this topology domain (numNodes becomes their count)"},
       {"--topology-key", &run_options.topology_key,
        "The node label whose value names the domain (e.g. nvidia.com/gpu.clique; default: the "
        "platform's own, as `cluster info` groups by: AWS topology.k8s.aws/network-node-layer-1, "
        "GCP cloud.google.com/gce-topology-block, Azure kubernetes.azure.com/ppg)"}});
  add_connection_flags(*run, run_options.connection,
                       "Namespace (default: the file's namespace, else \"default\")");
  run->footer(
      "Examples:\n"
      "  nvcrectl workloadrun run examples/workloadrun-torch.yaml --wait --cleanup\n"
      "  nvcrectl workloadrun run run.yaml --node-list gpu-1,gpu-2 --wait --results-file r.json");
  commands.workloadrun_run.app = run;

  auto* status = workloadrun_cmd.add_subcommand(
      "status", "Print a WorkloadRun's phase: Pending, InProgress, Succeeded or Failed");
  status->add_option("name", commands.workloadrun_status.options.name, "WorkloadRun name")
      ->required();
  status
      ->add_option("-o,--output", commands.workloadrun_status.options.output,
                   "json: {name, namespace, status, failedNodes}")
      ->check(CLI::IsMember({"", "text", "json"}));
  add_connection_flags(*status, commands.workloadrun_status.options.connection, namespace_help);
  status->footer("Exit status: 0 whatever the phase; 1 when the WorkloadRun cannot be read.");
  commands.workloadrun_status.app = status;

  auto& report_options = commands.workloadrun_report.options;
  report_options.output = "text";
  auto* report = workloadrun_cmd.add_subcommand("report", "Print a WorkloadRun's report");
  report->add_option("name", report_options.name, "WorkloadRun name")->required();
  report->add_option("-o,--output", report_options.output, "text (boxes) or json")
      ->check(CLI::IsMember({"text", "json"}));
  report->add_option("--results-file", report_options.results_file,
                     "Also write the JSON report here");
  add_connection_flags(*report, report_options.connection, namespace_help);
  report->footer("Exit status: 0 when it succeeded; 1 when it is missing, running or failed.");
  commands.workloadrun_report.app = report;

  auto* cancel = workloadrun_cmd.add_subcommand(
      "cancel", "Delete WorkloadRuns (their Workflows, Jobs and workloads go with them)");
  cancel->add_option("names", commands.workloadrun_cancel.options.names, "WorkloadRun names")
      ->required();
  add_connection_flags(*cancel, commands.workloadrun_cancel.options.connection, namespace_help);
  cancel->footer("A WorkloadRun that does not exist is noted on stderr, not an error.");
  commands.workloadrun_cancel.app = cancel;
}

std::optional<int> dispatch_run_commands(RunCommands& commands, std::ostream& out,
                                         std::ostream& err) {
  if (commands.certification_run.selected()) {
    auto& options = commands.certification_run.options;
    if (commands.enable_checkpoint_flag->count() > 0)
      options.category.enable_checkpoint = commands.enable_checkpoint;
    if (commands.enable_mnnvl_flag->count() > 0)
      options.category.enable_mnnvl = commands.enable_mnnvl;
    options.live = ::isatty(STDERR_FILENO) == 1;
    return run_certification_run(options, out, err);
  }
  if (commands.workloadrun_run.selected())
    return run_workloadrun_run(commands.workloadrun_run.options, out, err);
  if (commands.workloadrun_status.selected())
    return run_workloadrun_status(commands.workloadrun_status.options, out, err);
  if (commands.workloadrun_report.selected())
    return run_workloadrun_report(commands.workloadrun_report.options, out, err);
  if (commands.workloadrun_cancel.selected())
    return run_workloadrun_cancel(commands.workloadrun_cancel.options, out, err);
  return std::nullopt;
}

}  // namespace nvcre::cli
