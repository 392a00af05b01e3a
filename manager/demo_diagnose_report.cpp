#include "manager/demo_diagnose_report.hpp"

#include "manager/demo_report.hpp"

#include "api/labels.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/kubeconfig.hpp"
#include "workflow/node_results.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>
#include <tuple>

namespace nvcre::manager {
namespace {

namespace json = boost::json;
using jsonkit::string_at;

struct RoundJob {
  std::string group;
  std::string bandwidth;  // job_bandwidth_text of its Job
  std::string nodes;      // the group-nodes annotation
  std::string verdict;
  std::string created;
  std::string failure;  // the message of its True Failed / HardwareFailed / ValidationFailed
  std::int64_t rank = 0;
};

struct Round {
  std::string stage;
  std::vector<RoundJob> jobs;
};

// The stage a round group belongs to, and where its round falls in a run: screening, the no-NVL
// rerun, the inter-domain round, bisection rounds by their number, cross-boundary probes, then
// confirmation. Only cross-boundary rounds repeat group names; they are told apart by creation
// time (and by a name repeating).
std::pair<std::string, std::int64_t> stage_of(std::string_view group) {
  if (group.starts_with("screen-no-nvl-")) return {"intra-screening-no-nvl", 1};
  if (group.starts_with("screen-")) return {"intra-screening", 0};
  if (group == "inter-domain") return {"inter-screening", 2};
  if (group.starts_with("bisect-")) {
    std::int64_t round = 0;
    const auto digits = group.substr(7);
    std::from_chars(digits.data(), digits.data() + digits.size(), round);
    return {"bisection", 3 + round};
  }
  if (group.starts_with("cross-")) return {"cross-boundary", 1'000'000};
  if (group.starts_with("confirm-")) return {"confirmation", 2'000'000};
  return {"unknown", 3'000'000};
}

// The Job's verdict (ValidationFailed first, then Succeeded / Failed / HardwareFailed, else
// Running) and, for a failure, the condition's message.
std::pair<std::string, std::string> verdict_of(const json::value& job) {
  const json::value* conditions = jsonkit::value_at(job, {"status", "conditions"});
  std::pair<std::string, std::string> verdict{"Running", ""};
  if (conditions == nullptr || !conditions->is_array()) return verdict;
  for (const auto& c : conditions->get_array()) {
    if (string_at(c, {"status"}) != "True") continue;
    const std::string type = string_at(c, {"type"});
    if (type == "ValidationFailed") return {type, string_at(c, {"message"})};
    if (type == "Succeeded" || type == "Failed" || type == "HardwareFailed")
      verdict = {type, type == "Succeeded" ? "" : string_at(c, {"message"})};
  }
  return verdict;
}

std::vector<Round> rounds_of(const std::string& workflow, const std::vector<json::value>& jobs,
                             const std::vector<json::value>& measurements) {
  std::vector<RoundJob> mine;
  for (const auto& job : jobs) {
    if (string_at(job, {"metadata", "labels", api::kWorkflowLabel}) != workflow) continue;
    RoundJob entry;
    entry.group = string_at(job, {"metadata", "labels", api::kGroupLabel});
    entry.bandwidth = job_bandwidth_text(job, measurements);
    entry.nodes = string_at(job, {"metadata", "annotations", api::kGroupNodesAnnotation});
    std::tie(entry.verdict, entry.failure) = verdict_of(job);
    entry.created = string_at(job, {"metadata", "creationTimestamp"});
    entry.rank = stage_of(entry.group).second;
    mine.push_back(std::move(entry));
  }
  std::sort(mine.begin(), mine.end(), [](const RoundJob& a, const RoundJob& b) {
    return std::tie(a.rank, a.created, a.group) < std::tie(b.rank, b.created, b.group);
  });
  std::vector<Round> rounds;
  for (auto& job : mine) {
    const bool repeats =
        !rounds.empty() &&
        std::any_of(rounds.back().jobs.begin(), rounds.back().jobs.end(),
                    [&](const RoundJob& other) { return other.group == job.group; });
    if (rounds.empty() || rounds.back().jobs.front().rank != job.rank || repeats)
      rounds.push_back({stage_of(job.group).first, {}});
    rounds.back().jobs.push_back(std::move(job));
  }
  return rounds;
}

// The decoded payload of the node-results ConfigMap `status.<ref>` names ("" when absent).
std::string payload(const json::value& workflow, std::string_view ref, std::string_view key,
                    const std::vector<json::value>& configmaps) {
  const std::string name = string_at(workflow, {"status", ref, "name"});
  if (name.empty()) return {};
  for (const auto& cm : configmaps) {
    if (string_at(cm, {"metadata", "name"}) != name) continue;
    auto raw = k8s::decode_base64(string_at(cm, {"binaryData", key}));
    if (!raw) return {};
    try {
      return workflow::gunzip(*raw);
    } catch (const std::exception&) {
      return {};
    }
  }
  return {};
}

bool holds(const std::string& csv, const std::string& node) {
  std::istringstream in(csv);
  for (std::string item; std::getline(in, item, ',');) {
    if (item == node) return true;
  }
  return false;
}

// The last round in which a failed group held `node` (nullptr: none) and that group's Job.
std::pair<const Round*, const RoundJob*> confirming_round(const std::vector<Round>& rounds,
                                                          const std::string& node) {
  for (auto round = rounds.rbegin(); round != rounds.rend(); ++round) {
    for (const auto& job : round->jobs) {
      if (job.verdict != "Succeeded" && job.verdict != "Running" && holds(job.nodes, node))
        return {&*round, &job};
    }
  }
  return {nullptr, nullptr};
}

}  // namespace

bool is_diagnose_workflow(const json::value& workflow) {
  return jsonkit::value_at(workflow, {"spec", "orchestration", "diagnose"}) != nullptr;
}

std::string diagnose_report(const json::value& workflow, const std::vector<json::value>& jobs,
                            const std::vector<json::value>& configmaps, const std::string& indent,
                            const std::vector<json::value>& bandwidth_measurements) {
  std::ostringstream out;
  const auto rounds =
      rounds_of(string_at(workflow, {"metadata", "name"}), jobs, bandwidth_measurements);
  std::size_t job_count = 0;
  for (const auto& r : rounds) job_count += r.jobs.size();
  const json::value* round =
      jsonkit::value_at(workflow, {"status", "orchestration", "diagnose", "round"});
  out << indent << "diagnose: " << (round != nullptr && round->is_int64() ? round->as_int64() : 0)
      << " rounds, " << job_count << " Jobs\n";
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    out << indent << "  round " << i + 1 << " " << rounds[i].stage << ":";
    const char* separator = " ";
    for (const auto& job : rounds[i].jobs) {
      out << separator << job.group << " [" << job.nodes << "] " << job.verdict;
      if (!job.bandwidth.empty()) out << " (" << job.bandwidth << ")";
      separator = "; ";
    }
    out << "\n";
  }
  const std::string failed =
      payload(workflow, "failedNodesRef", workflow::kFailedNodesKey, configmaps);
  std::size_t blamed = 0;
  json::value failed_nodes;
  try {
    if (!failed.empty()) failed_nodes = json::parse(failed);
  } catch (const std::exception&) {
  }
  if (failed_nodes.is_array()) {
    for (const auto& node : failed_nodes.get_array()) {
      const std::string name = string_at(node, {"name"});
      out << indent << "faulty node " << name << " (" << string_at(node, {"reason"})
          << "): " << string_at(node, {"message"});
      const auto [confirming, job] = confirming_round(rounds, name);
      if (confirming != nullptr) {
        out << "; confirmed by " << confirming->stage << " (" << job->group << ")";
        if (!job->failure.empty())
          out << "\n" << indent << "  " << job->group << ": " << job->failure;
      }
      out << "\n";
      ++blamed;
    }
  }
  if (blamed == 0) out << indent << "no faulty node\n";
  const std::string passed =
      payload(workflow, "succeededNodesRef", workflow::kSucceededNodesKey, configmaps);
  const auto count = passed.empty() ? 0 : std::count(passed.begin(), passed.end(), ',') + 1;
  std::string listed = passed;
  for (std::size_t at = listed.find(','); at != std::string::npos; at = listed.find(',', at + 2))
    listed.replace(at, 1, ", ");
  out << indent << "passed (" << count << "): " << listed << "\n";
  return out.str();
}

}  // namespace nvcre::manager
