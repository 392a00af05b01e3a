// nvcrectl: offline tooling for nvcre manifests (more commands arrive with render and run).
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "api/validation.hpp"
#include "platform/platform_names.hpp"
#include "cli/certification_commands.hpp"
#include "cli/cluster_info_command.hpp"
#include "cli/completion.hpp"
#include "cli/logprofile_command.hpp"
#include "cli/mcp_command.hpp"
#include "cli/render_dry_run.hpp"
#include "cli/report_command.hpp"
#include "cli/terminal.hpp"
#include "cli/run_commands.hpp"
#include "cli/setup_command.hpp"
#include "cli/validate_command.hpp"
#include "cli/workflow_commands.hpp"
#include "cli/workloadrun_commands.hpp"

namespace {

using nvcre::cli::Command;

// Every command's options, filled in by the parser, with the subcommands that select them.
struct Commands {
  Command<nvcre::cli::ValidateOptions> validate;
  Command<nvcre::cli::RenderOptions> render;
  Command<std::string> list_categories;  // the --output format
  Command<nvcre::cli::WorkloadRunRenderOptions> workloadrun_render;
  Command<nvcre::cli::WorkflowRenderOptions> workflow_render;
  Command<nvcre::cli::LogProfileTestOptions> logprofile_test;
  Command<nvcre::cli::ReportOptions> report;
  Command<nvcre::cli::ClusterInfoOptions> cluster_info;
  Command<std::string> completion;  // the shell
  Command<nvcre::cli::McpServeOptions> mcp_serve;
  Command<bool> crds;
  nvcre::cli::RunCommands run;
  nvcre::cli::SetupCommands setup;
  const CLI::App* root = nullptr;
};

void add_validate_command(CLI::App& app, Commands& commands) {
  auto& validate = commands.validate.options;
  auto* validate_cmd = app.add_subcommand(
      "validate", "Check manifests against the CRD schemas and rules, as the API server would");
  validate_cmd->add_option("files", validate.files, "YAML or JSON files (several documents each)")
      ->required()
      ->check(CLI::ExistingFile);
  validate_cmd->add_option("--old", validate.old_file,
                           "Validate an update from the object in this file (immutability rules)");
  validate_cmd->add_option("-o,--output", validate.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  validate_cmd->footer(
      "Examples:\n"
      "  nvcrectl validate examples/certification.yaml\n"
      "  nvcrectl validate -o json examples/*.yaml\n"
      "  nvcrectl validate --old job-v1.yaml job-v2.yaml");
  commands.validate.app = validate_cmd;
}

void add_report_command(CLI::App& certification_cmd, Commands& commands) {
  auto& report = commands.report.options;
  auto* report_cmd = certification_cmd.add_subcommand(
      "report", "Print the pass/fail report of one or more Certifications from the cluster");
  report_cmd->add_option("names", report.names, "Certification names")->required();
  report_cmd->add_option("-o,--output", report.output, "text (boxes) or json")
      ->check(CLI::IsMember({"text", "json"}));
  report_cmd->add_option("--results-file", report.results_file,
                         "Also write the JSON report here (one object, or an array for several)");
  report_cmd->add_option("--junit-file", report.junit_file,
                         "Also write a JUnit XML report here (a testsuite per Certification, a "
                         "testcase per category)");
  report_cmd->add_option("--html", report.html_file,
                         "Also write the report as one self-contained HTML page here (bandwidth "
                         "charts, node grid, diagnose rounds; opens offline, runs no script)");
  // kubectl's rule rather than a fixed "default": a context that names a namespace is where
  // kubectl would look too.
  nvcre::cli::add_connection_flags(
      *report_cmd, report.connection,
      "Namespace of the Certifications (default: the kubeconfig context's namespace, else "
      "\"default\")");
  report_cmd->footer(
      "Exit status: 0 when every Certification PASSED (or is INCOMPLETE: passed with nodes left\n"
      "untested, a warning); 1 when one is missing, still running or failed.\n\n"
      "Examples:\n"
      "  nvcrectl certification report my-cert -n certs\n"
      "  nvcrectl certification report cert-a cert-b --results-file r.json --junit-file r.xml\n"
      "  nvcrectl certification report my-cert -o json --kubeconfig ~/.kube/lab\n"
      "  nvcrectl certification report my-cert --html report.html");
  commands.report.app = report_cmd;
}

void add_certification_commands(CLI::App& app, Commands& commands) {
  auto* certification_cmd = app.add_subcommand("certification", "Work with Certifications");
  certification_cmd->require_subcommand(1);
  auto& render = commands.render.options;
  auto* render_cmd = certification_cmd->add_subcommand(
      "render", "Render the Workflows a Certification would produce, offline");
  render_cmd->add_option("file", render.file, "Certification YAML file");
  render_cmd->add_option(
      "--platform", render.platform,
      "Pretend the nodes run on this platform (" + nvcre::platform::platform_names_list() + ")");
  render_cmd->add_option(
      "--gpu-arch", render.gpu_arch,
      "GPU architecture (e.g. h100, gb200); wins over the nodeSelector's product label");
  render_cmd->add_option("--output", render.output, "yaml (multi-document) or json (one array)");
  render_cmd->add_flag("--dry-run", render.dry_run,
                       "Render against the cluster's nodes and validate every object with a "
                       "server-side dry run (table on stderr)");
  nvcre::cli::add_connection_flags(*render_cmd, render.connection,
                                   "--dry-run: namespace of the dry-run creates (default: the "
                                   "kubeconfig context's namespace, else \"default\")");
  render_cmd->footer(
      "Examples:\n"
      "  nvcrectl certification render examples/certification.yaml\n"
      "  nvcrectl certification render examples/certification.yaml --platform aws --output json\n"
      "  nvcrectl certification render cert.yaml --platform gcp --gpu-arch gb200");
  auto* list_cmd =
      certification_cmd->add_subcommand("list-categories", "List the catalog's categories");
  list_cmd->add_option("--output", commands.list_categories.options, "table, yaml or json");
  list_cmd->footer("Example:\n  nvcrectl certification list-categories --output json");
  commands.render.app = render_cmd;
  commands.list_categories.app = list_cmd;
  add_report_command(*certification_cmd, commands);
  nvcre::cli::add_certification_run_command(*certification_cmd, commands.run);
}

void add_workloadrun_commands(CLI::App& app, Commands& commands) {
  auto* workloadrun_cmd = app.add_subcommand("workloadrun", "Work with WorkloadRuns");
  workloadrun_cmd->require_subcommand(1);
  auto& workloadrun_render = commands.workloadrun_render.options;
  auto* workloadrun_render_cmd = workloadrun_cmd->add_subcommand(
      "render", "Render the Workflow a WorkloadRun would produce, offline");
  workloadrun_render_cmd->add_option("file", workloadrun_render.file,
                                     "WorkloadRun YAML or JSON file");
  workloadrun_render_cmd->add_option(
      "--platform", workloadrun_render.platform,
      "Pretend the nodes run on this platform (" + nvcre::platform::platform_names_list() + ")");
  workloadrun_render_cmd->add_option(
      "--gpu-arch", workloadrun_render.gpu_arch,
      "GPU architecture (e.g. h100, gb300); wins over the nodeSelector's product label");
  workloadrun_render_cmd->add_option("--output", workloadrun_render.output, "yaml or json");
  workloadrun_render_cmd->add_flag("--dry-run", workloadrun_render.dry_run,
                                   "Render against the cluster's nodes and validate every object "
                                   "with a server-side dry run (table on stderr)");
  // No -n: the WorkloadRun file's namespace (else "default") is where its objects go.
  nvcre::cli::add_connection_flags(*workloadrun_render_cmd, workloadrun_render.connection, "");
  workloadrun_render_cmd->footer(
      "Examples:\n"
      "  nvcrectl workloadrun render examples/workloadrun-torch.yaml --platform aws --gpu-arch "
      "h100\n"
      "  nvcrectl workloadrun render run.yaml --platform aws --gpu-arch gb300 --output json");
  commands.workloadrun_render.app = workloadrun_render_cmd;
  nvcre::cli::add_workloadrun_live_commands(*workloadrun_cmd, commands.run);
}

void add_workflow_commands(CLI::App& app, Commands& commands) {
  auto* workflow_cmd = app.add_subcommand("workflow", "Work with Workflows");
  workflow_cmd->require_subcommand(1);
  auto& workflow_render = commands.workflow_render.options;
  auto* workflow_render_cmd = workflow_cmd->add_subcommand(
      "render", "Resolve a Workflow's overrides against mock nodes or nodes from a file, offline");
  workflow_render_cmd->add_option("file", workflow_render.file, "Workflow YAML file");
  workflow_render_cmd->add_option("--platform", workflow_render.platform,
                                  "Platform of the mock nodes");
  workflow_render_cmd->add_option("--gpu-arch", workflow_render.gpu_arch,
                                  "GPU architecture of the mock nodes");
  workflow_render_cmd->add_option("--nodes-file", workflow_render.nodes_file,
                                  "YAML list of Node objects");
  workflow_render_cmd->add_option("--output", workflow_render.output, "yaml or json");
  workflow_render_cmd->footer(
      "Examples:\n"
      "  nvcrectl workflow render examples/workflow.yaml --platform aws --gpu-arch gb200\n"
      "  nvcrectl workflow render my-workflow.yaml --nodes-file nodes.yaml --output json");
  commands.workflow_render.app = workflow_render_cmd;
}

void add_logprofile_commands(CLI::App& app, Commands& commands) {
  auto* logprofile_cmd = app.add_subcommand("logprofile", "Work with LogProfiles");
  logprofile_cmd->require_subcommand(1);
  auto& test = commands.logprofile_test.options;
  auto* test_cmd = logprofile_cmd->add_subcommand(
      "test", "Show what a LogProfile reads from a log: bandwidth rows or training events");
  test_cmd
      ->add_option("profile", test.profile, "LogProfile manifest file, or a shipped profile's name")
      ->required();
  test_cmd
      ->add_option("--log", test.log_file, "Log file (kubectl logs, with or without --timestamps)")
      ->required();
  test_cmd->add_option("-o,--output", test.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  test_cmd->footer(
      "Examples:\n"
      "  kubectl logs --timestamps my-job-launcher-0-0 > launcher.log\n"
      "  nvcrectl logprofile test nccl-bandwidth --log launcher.log\n"
      "  nvcrectl logprofile test my-profile.yaml --log train.log -o json");
  commands.logprofile_test.app = test_cmd;
}

// A render command given no file: its usage on stderr, and the exit code.
int missing_file(std::string_view kind, std::string_view command, std::string_view file) {
  std::cerr << "Error: requires a " << kind << " YAML file as argument\n\n"
            << "Usage: nvcrectl " << command << " [flags] <" << file << ">\n";
  return 1;
}

void print_crds(std::ostream& out) {
  bool first = true;
  for (const auto& file : nvcre::api::embedded_crd_files()) {
    // deploy/crds also holds third-party CRDs that only tests install.
    if (file.name.find("/nvcre.nvidia.com_") == std::string_view::npos) continue;
    if (!first) out << "---\n";
    first = false;
    out << file.content;
  }
}

// Runs the parsed command; returns the exit code.
int run_command(Commands& commands) {
  if (auto code = nvcre::cli::dispatch_run_commands(commands.run, std::cout, std::cerr))
    return *code;
  if (int code = nvcre::cli::run_setup_command(commands.setup, std::cin, std::cout, std::cerr);
      code >= 0)
    return code;
  if (commands.validate.selected())
    return nvcre::cli::run_validate(commands.validate.options, std::cout, std::cerr);
  if (commands.render.selected()) {
    const auto& render = commands.render.options;
    if (render.file.empty())
      return missing_file("certification", "certification render", "certification.yaml");
    if (render.dry_run)
      return nvcre::cli::render_certification_dry_run(render, std::cout, std::cerr);
    nvcre::cli::render_certification(render, std::cout);
    return 0;
  }
  if (commands.workloadrun_render.selected()) {
    const auto& render = commands.workloadrun_render.options;
    if (render.file.empty())
      return missing_file("WorkloadRun", "workloadrun render", "workloadrun.yaml");
    if (render.dry_run) return nvcre::cli::render_workloadrun_dry_run(render, std::cout, std::cerr);
    nvcre::cli::render_workloadrun(render, std::cout);
    return 0;
  }
  if (commands.workflow_render.selected()) {
    if (commands.workflow_render.options.file.empty())
      return missing_file("workflow", "workflow render", "workflow.yaml");
    nvcre::cli::render_workflow(commands.workflow_render.options, std::cout);
    return 0;
  }
  if (commands.report.selected())
    return nvcre::cli::run_certification_report(commands.report.options, std::cout, std::cerr);
  if (commands.cluster_info.selected())
    return nvcre::cli::run_cluster_info(commands.cluster_info.options, std::cout,
                                        nvcre::cli::color_enabled_for(stdout));
  if (commands.completion.selected()) {
    std::cout << nvcre::cli::completion_script(*commands.root, commands.completion.options);
    return 0;
  }
  if (commands.mcp_serve.selected())
    return nvcre::cli::run_mcp_serve(commands.mcp_serve.options, std::cin, std::cout, std::cerr);
  if (commands.logprofile_test.selected()) {
    nvcre::cli::run_logprofile_test(commands.logprofile_test.options, std::cout);
    return 0;
  }
  if (commands.list_categories.selected())
    nvcre::cli::list_categories(commands.list_categories.options, std::cout);
  if (commands.crds.selected()) print_crds(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvcrectl: certify GPU clusters with nvcre (nvcre.nvidia.com/v1alpha1)"};
  app.require_subcommand(1);
  // Like every other nvcrectl error: "Error: <what>" on stderr.
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return "Error: " + std::string(error.what()) + "\nRun with --help for more information.\n";
  });
  app.footer(
      "Examples:\n"
      "  nvcrectl certification render certification.yaml --platform aws\n"
      "  nvcrectl certification list-categories\n"
      "  nvcrectl validate certification.yaml\n"
      "  nvcrectl validate --old before.yaml after.yaml\n"
      "  nvcrectl logprofile test nccl-bandwidth --log launcher.log\n"
      "  nvcrectl crds | kubectl apply -f -\n"
      "  nvcrectl setup init");

  Commands commands;
  commands.list_categories.options = "table";
  add_validate_command(app, commands);
  add_certification_commands(app, commands);
  add_workloadrun_commands(app, commands);
  add_workflow_commands(app, commands);
  add_logprofile_commands(app, commands);
  commands.cluster_info.app = nvcre::cli::add_cluster_commands(app, commands.cluster_info.options);
  commands.completion.app = nvcre::cli::add_completion_command(app, commands.completion.options);
  commands.mcp_serve.app = nvcre::cli::add_mcp_commands(app, commands.mcp_serve.options);
  commands.root = &app;
  app.set_version_flag("--version", nvcre::cli::version_line());
  nvcre::cli::add_setup_commands(app, commands.setup);
  commands.crds.app =
      app.add_subcommand("crds", "Print the CustomResourceDefinitions nvcre serves");
  commands.crds.app->footer("Example:\n  nvcrectl crds | kubectl apply -f -");

  // kubectl's plugin completion hook (kubectl_complete-nvcre) asks here: not a command users type.
  if (argc >= 2 && std::string_view(argv[1]) == "__complete") {
    const std::vector<std::string> words(argv + 2, argv + argc);
    std::cout << nvcre::cli::complete_words(app, words);
    return 0;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help exits 0; every other parse error exits 1, as every nvcrectl error does.
    return app.exit(error) == 0 ? 0 : 1;
  }

  try {
    return run_command(commands);
  } catch (const std::exception& error) {
    std::cerr << "Error: " << error.what() << "\n";
    return 1;
  }
}
