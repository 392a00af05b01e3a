#include "cli/run_progress.hpp"

#include "api/certification.hpp"
#include "api/codec.hpp"
#include "api/workflow.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/duration.hpp"
#include "report/build.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::cli {
namespace json = boost::json;

namespace {

const json::array* array_at(const json::value& root, std::initializer_list<std::string_view> path) {
  const json::value* value = jsonkit::value_at(root, path);
  return value != nullptr && value->is_array() ? &value->as_array() : nullptr;
}

// "domain/variant", with the MNNVL setting when the pair occurs more than once.
std::vector<std::string> category_labels(const json::value& certification,
                                         const json::array& statuses) {
  std::map<std::string, int> counts;
  std::vector<std::string> labels;
  for (const auto& status : statuses) {
    labels.push_back(jsonkit::string_at(status, {"domain"}) + "/" +
                     jsonkit::string_at(status, {"variant"}));
    ++counts[labels.back()];
  }
  if (std::none_of(counts.begin(), counts.end(), [](const auto& c) { return c.second > 1; }))
    return labels;
  api::Certification typed;
  try {
    api::DecodeContext context;
    context.tolerate_unknown_fields([](std::string_view) { return true; });
    typed = api::decode<api::Certification>(certification, context);
  } catch (const std::exception&) {
    return labels;  // a label without the suffix beats no progress at all
  }
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (counts[labels[i]] > 1)
      if (std::string mnnvl = report::category_mnnvl(typed, i); !mnnvl.empty())
        labels[i] += " (MNNVL " + mnnvl + ")";
  return labels;
}

std::string watch_line(const std::string& label, const std::string& status,
                       std::chrono::seconds elapsed) {
  return "[watch] " + label + ": " + status + " (" + format_elapsed(elapsed) + ")";
}

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

bool condition_true(const json::value& object, std::string_view type) {
  const json::array* conditions = array_at(object, {"status", "conditions"});
  if (conditions == nullptr) return false;
  return std::any_of(conditions->begin(), conditions->end(), [&](const json::value& c) {
    return jsonkit::string_at(c, {"type"}) == type && jsonkit::string_at(c, {"status"}) == "True";
  });
}

std::string format_elapsed(std::chrono::seconds elapsed) {
  return k8s::format_go_duration(elapsed);
}

std::vector<std::string> WatchProgress::observe(const json::value& certification,
                                                std::chrono::seconds elapsed) {
  const json::array* statuses = array_at(certification, {"status", "categoryStatuses"});
  if (statuses == nullptr) return {};
  const auto labels = category_labels(certification, *statuses);
  if (categories_.size() != labels.size()) categories_.resize(labels.size());
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const json::value& status = (*statuses)[i];
    Category& category = categories_[i];
    category.label = labels[i];
    category.workflow = jsonkit::string_at(status, {"workflowRef", "name"});
    const std::string phase = jsonkit::string_at(status, {"status"});
    if (phase == category.status) continue;
    category.status = phase;
    if (phase == "InProgress" && !category.started) category.started = elapsed;
    if ((phase == "Succeeded" || phase == "Failed") && !category.finished) {
      category.finished = elapsed;
      if (!category.started) category.started = elapsed;
    }
    lines.push_back(watch_line(category.label, phase, elapsed));
  }
  return lines;
}

std::vector<std::string> WatchProgress::heartbeat(std::chrono::seconds elapsed) const {
  if (categories_.empty())
    return {"[watch] Waiting for status... (" + format_elapsed(elapsed) + ")"};
  std::vector<std::string> lines;
  for (const auto& category : categories_)
    if (category.status == "InProgress")
      lines.push_back(watch_line(category.label, category.status, elapsed));
  return lines;
}

RunOutcome WatchProgress::outcome(const json::value& certification) {
  if (condition_true(certification, "Succeeded")) return RunOutcome::Succeeded;
  if (condition_true(certification, "Failed")) return RunOutcome::Failed;
  return RunOutcome::Running;
}

std::string WatchProgress::outcome_line(RunOutcome outcome, std::chrono::seconds elapsed) {
  return std::string("[watch] Certification ") +
         (outcome == RunOutcome::Succeeded ? "succeeded." : "failed.") + " (" +
         format_elapsed(elapsed) + ")";
}

bool WatchProgress::has_workflows() const {
  return std::any_of(categories_.begin(), categories_.end(),
                     [](const Category& c) { return !c.workflow.empty(); });
}

std::vector<std::string> WatchProgress::live_lines(
    const std::map<std::string, json::value>& workflows, std::chrono::seconds elapsed) const {
  if (categories_.empty())
    return {"[watch] Waiting for status... (" + format_elapsed(elapsed) + ")"};
  std::size_t width = 0;
  for (const auto& category : categories_) width = std::max(width, category.label.size());
  std::vector<std::string> lines;
  for (const auto& category : categories_) {
    std::string status = category.status.empty() ? "Pending" : category.status;
    std::string line = "[watch] " + padded(category.label, width) + "  " + padded(status, 10);
    if (category.started)
      line += "  " + padded(format_elapsed((category.finished ? *category.finished : elapsed) -
                                           *category.started),
                            8);
    if (auto it = workflows.find(category.workflow); it != workflows.end())
      if (std::string progress = workflow_progress(it->second); !progress.empty())
        line += "  " + progress;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string workflow_progress(const json::value& workflow) {
  const json::value* orchestration = jsonkit::value_at(workflow, {"status", "orchestration"});
  if (orchestration == nullptr || !orchestration->is_object()) return {};
  std::string text;
  const json::value* diagnose = jsonkit::value_at(*orchestration, {"diagnose"});
  const json::value* round = diagnose ? jsonkit::value_at(*diagnose, {"round"}) : nullptr;
  const json::value* iterations =
      jsonkit::value_at(workflow, {"spec", "orchestration", "iterations"});
  const json::value* current = jsonkit::value_at(*orchestration, {"currentIteration"});
  if (round != nullptr && round->is_int64()) {
    text = "diagnose round " + std::to_string(round->as_int64());
    if (std::string stage = jsonkit::string_at(*diagnose, {"stage"}); !stage.empty())
      text += " (" + stage + ")";
  } else if (iterations != nullptr && iterations->is_int64() && iterations->as_int64() > 1 &&
             current != nullptr && current->is_int64()) {
    text = "iteration " + std::to_string(current->as_int64()) + "/" +
           std::to_string(iterations->as_int64());
  }
  std::int64_t done = 0, total = 0;
  if (const json::value* t = jsonkit::value_at(*orchestration, {"totalGroups"}); t && t->is_int64())
    total = t->as_int64();
  if (const json::array* groups = array_at(*orchestration, {"groups"})) {
    for (const auto& group : *groups) {
      const std::string phase = jsonkit::string_at(group, {"phase"});
      done += phase == api::group_phase::kSucceeded || phase == api::group_phase::kFailed;
    }
    total = std::max<std::int64_t>(total, static_cast<std::int64_t>(groups->size()));
  }
  if (total > 0)
    text += (text.empty() ? "" : " · ") + std::string("groups ") + std::to_string(done) + "/" +
            std::to_string(total) + " done";
  return text;
}

}  // namespace nvcre::cli
