#pragma once
// The phases of `nvcrectl setup init` (deps, install) and `setup reset` (cr, install, deps), the
// confirmation they ask for, what the deps phase says about Kubeflow Trainer and what reset keeps.
// Text only: the command in cli/ prints it and does the I/O.
#include "install/status.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::install {

inline constexpr std::string_view kPhaseDeps = "deps";
inline constexpr std::string_view kPhaseInstall = "install";
inline constexpr std::string_view kPhaseCr = "cr";

enum class SetupCommand { Init, Reset };

// The phases of a command in the order they run.
std::vector<std::string> phases_of(SetupCommand command);

// --skip-phases "deps,install" -> {"deps", "install"}. "helm" names the install phase too (scripts
// written for NVCRE's Helm-based setup pass it). Throws std::invalid_argument for a name the
// command does not have, listing the valid ones.
std::set<std::string> parse_skip_phases(std::string_view list, SetupCommand command);

struct PhaseInfo {
  std::string name;
  std::string description;
};

// The summary shown before the prompt: target cluster, then each phase ("(skipped)" marked),
// then the question.
std::string render_confirmation(std::string_view context, std::string_view server,
                                const std::vector<PhaseInfo>& phases,
                                const std::set<std::string>& skip);

// Only the literal answer "yes" (surrounding blanks ignored) proceeds.
bool is_confirmed(std::string_view answer);

// The init's deps verdict: "" when Trainer is there at the supported version (or an unknown one,
// see trainer_warning); else the error for "Error: [deps] ...", saying what is wrong.
std::string trainer_problem(const TrainerCheck& check);

// The exact steps to install (or move to) the supported Trainer, printed with trainer_problem.
std::string trainer_install_instructions();

// A warning when Trainer is installed but its version cannot be told; "" otherwise.
std::string trainer_warning(const TrainerCheck& check);

// Something reset leaves in place on purpose, with the command that removes it.
struct RetainedResource {
  std::string description;
  std::string cleanup;
  bool unverified = false;  // its existence could not be checked (it may remain)
};

// "Retained resources (not removed by reset):" and one entry per resource; "" for none.
std::string render_retained(const std::vector<RetainedResource>& retained);

}  // namespace nvcre::install
