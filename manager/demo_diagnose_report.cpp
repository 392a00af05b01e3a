#include "manager/demo_diagnose_report.hpp"

#include "manager/demo_report.hpp"

#include "api/codec.hpp"
#include "api/job.hpp"
#include "report/build.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/kubeconfig.hpp"
#include "workflow/node_results.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

namespace nvcre::manager {
namespace {

namespace json = boost::json;
using jsonkit::string_at;

std::vector<report::DiagnoseRound> rounds_of(const std::string& workflow,
                                             const std::vector<json::value>& jobs) {
  std::vector<api::Job> decoded;
  decoded.reserve(jobs.size());
  for (const auto& job : jobs) {
    try {
      decoded.push_back(api::decode<api::Job>(job));
    } catch (const std::exception&) {
      // A Job the model cannot read has no verdict to show; the rest of the report stands.
    }
  }
  std::vector<const api::Job*> pointers;
  for (const auto& job : decoded) pointers.push_back(&job);
  return report::diagnose_rounds(workflow, pointers);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

const json::value* job_named(const std::vector<json::value>& jobs, const std::string& name) {
  for (const auto& job : jobs) {
    if (string_at(job, {"metadata", "name"}) == name) return &job;
  }
  return nullptr;
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

// The last round in which a failed group held `node` (nullptr: none) and that group's Job.
std::pair<const report::DiagnoseRound*, const report::DiagnoseJob*> confirming_round(
    const std::vector<report::DiagnoseRound>& rounds, const std::string& node) {
  for (auto round = rounds.rbegin(); round != rounds.rend(); ++round) {
    for (const auto& job : round->jobs) {
      if (job.verdict != "Succeeded" && job.verdict != "Running" &&
          std::find(job.nodes.begin(), job.nodes.end(), node) != job.nodes.end())
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
  const auto rounds = rounds_of(string_at(workflow, {"metadata", "name"}), jobs);
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
      out << separator << job.group << " [" << joined(job.nodes) << "] " << job.verdict;
      const json::value* object = job_named(jobs, job.job);
      const std::string bandwidth =
          object == nullptr ? std::string() : job_bandwidth_text(*object, bandwidth_measurements);
      if (!bandwidth.empty()) out << " (" << bandwidth << ")";
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
        if (!job->message.empty())
          out << "\n" << indent << "  " << job->group << ": " << job->message;
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
