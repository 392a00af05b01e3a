// nvcrectl: offline tooling for nvcre manifests (more commands arrive with render and run).
#include <CLI/CLI.hpp>

#include <iostream>

#include "api/validation.hpp"
#include "cli/validate_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"nvcrectl: certify GPU clusters with nvcre (nvcre.nvidia.com/v1alpha1)"};
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  nvcrectl validate certification.yaml\n"
      "  nvcrectl validate --old before.yaml after.yaml\n"
      "  nvcrectl crds | kubectl apply -f -");

  nvcre::cli::ValidateOptions validate;
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

  auto* crds_cmd = app.add_subcommand("crds", "Print the CustomResourceDefinitions nvcre serves");
  crds_cmd->footer("Example:\n  nvcrectl crds | kubectl apply -f -");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }

  try {
    if (*validate_cmd) return nvcre::cli::run_validate(validate, std::cout, std::cerr);
    if (*crds_cmd) {
      bool first = true;
      for (const auto& file : nvcre::api::embedded_crd_files()) {
        // deploy/crds also holds third-party CRDs that only tests install.
        if (file.name.find("/nvcre.nvidia.com_") == std::string_view::npos) continue;
        if (!first) std::cout << "---\n";
        first = false;
        std::cout << file.content;
      }
      return 0;
    }
  } catch (const std::exception& error) {
    std::cerr << "Error: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
