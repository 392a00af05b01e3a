#include "install/phases.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace nvcre::install {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n'))
    text.remove_suffix(1);
  return text;
}

std::string chart_version() {
  return std::string(kTrainerVersion.starts_with('v') ? kTrainerVersion.substr(1)
                                                      : kTrainerVersion);
}

}  // namespace

std::vector<std::string> phases_of(SetupCommand command) {
  if (command == SetupCommand::Init) return {std::string(kPhaseDeps), std::string(kPhaseInstall)};
  return {std::string(kPhaseCr), std::string(kPhaseInstall), std::string(kPhaseDeps)};
}

std::set<std::string> parse_skip_phases(std::string_view list, SetupCommand command) {
  const auto valid = phases_of(command);
  std::set<std::string> skip;
  while (!list.empty()) {
    const auto comma = list.find(',');
    std::string name(trim(list.substr(0, comma)));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (name.empty()) continue;
    if (name == "helm") name = kPhaseInstall;
    bool known = false;
    for (const auto& phase : valid) known = known || phase == name;
    if (!known) {
      std::string names;
      for (const auto& phase : valid) names += (names.empty() ? "" : ", ") + phase;
      throw std::invalid_argument("--skip-phases: unknown phase \"" + name +
                                  "\" (valid phases: " + names + ")");
    }
    skip.insert(name);
  }
  return skip;
}

std::string render_confirmation(std::string_view context, std::string_view server,
                                const std::vector<PhaseInfo>& phases,
                                const std::set<std::string>& skip) {
  std::ostringstream out;
  out << "\n  Target cluster\n"
      << "  Context:  " << context << "\n"
      << "  Server:   " << server << "\n"
      << "\n  Phases:\n";
  for (const auto& phase : phases) {
    char name[32];
    std::snprintf(name, sizeof name, "%-12s", phase.name.c_str());
    out << "    - [" << name << "] " << phase.description
        << (skip.contains(phase.name) ? " (skipped)" : "") << "\n";
  }
  out << "\nDo you want to proceed? Only 'yes' will be accepted to confirm.\n";
  return out.str();
}

bool is_confirmed(std::string_view answer) { return trim(answer) == "yes"; }

std::string trainer_problem(const TrainerCheck& check) {
  if (!check.installed()) {
    std::string crds;
    for (const auto& name : check.missing_crds) crds += (crds.empty() ? "" : ", ") + name;
    return "Kubeflow Trainer is not installed: CRD " + crds +
           " not found (nvcre runs its workloads as Trainer TrainJobs)";
  }
  if (check.version_mismatch())
    return "Kubeflow Trainer " + check.version->detected + " is installed (from its " +
           check.version->source + ") but this nvcre build supports " + check.version->supported;
  return {};
}

std::string trainer_install_instructions() {
  std::ostringstream out;
  out << "[deps] Install Kubeflow Trainer " << kTrainerVersion << " with Helm, then re-run "
      << "'nvcrectl setup init':\n"
      << "  helm upgrade --install kubeflow-trainer oci://ghcr.io/kubeflow/charts/kubeflow-trainer "
      << "--version " << chart_version() << " --namespace " << kTrainerNamespace
      << " --create-namespace --wait\n"
      << "  kubectl wait --for condition=Established --timeout=60s "
      << "crd/trainjobs.trainer.kubeflow.org crd/trainingruntimes.trainer.kubeflow.org\n"
      << "[deps] To install nvcre without this check, pass --skip-phases=deps.\n";
  return out.str();
}

std::string trainer_warning(const TrainerCheck& check) {
  if (!check.installed() || !check.version || !check.version->detected.empty()) return {};
  return "[deps] Warning: Kubeflow Trainer is installed but its version cannot be determined "
         "(no " +
         std::string(kTrainerDeployment) +
         " Deployment with a release image tag, no app.kubernetes.io/version label on its CRD); "
         "this nvcre build supports " +
         std::string(kTrainerVersion) + ".\n";
}

std::string render_retained(const std::vector<RetainedResource>& retained) {
  if (retained.empty()) return {};
  std::ostringstream out;
  out << "\nRetained resources (not removed by reset):\n";
  for (const auto& resource : retained) {
    out << "  - " << resource.description
        << (resource.unverified ? " (may remain; existence check failed)" : "") << "\n"
        << "      " << resource.cleanup << "\n";
  }
  return out.str();
}

}  // namespace nvcre::install
