#include "manager/demo_report.hpp"

#include "api/labels.hpp"
#include "api/measurement.hpp"
#include "manager/demo_diagnose_report.hpp"
#include "measure/bandwidth.hpp"

#include <boost/json.hpp>

#include <sstream>

namespace nvcre::manager {
namespace {

namespace json = boost::json;

std::string text(const json::value& object, std::initializer_list<std::string_view> path) {
  const json::value* at = &object;
  for (auto key : path) {
    const auto* o = at->if_object();
    at = o == nullptr ? nullptr : o->if_contains(key);
    if (at == nullptr) return {};
  }
  return at->is_string() ? std::string(at->as_string()) : std::string{};
}

const json::array* array_at(const json::value& object, std::string_view a, std::string_view b) {
  const auto* o = object.if_object();
  const auto* first = o == nullptr ? nullptr : o->if_contains(a);
  const auto* inner = first == nullptr ? nullptr : first->if_object();
  const auto* second = inner == nullptr ? nullptr : inner->if_contains(b);
  return second == nullptr ? nullptr : second->if_array();
}

// The True one of InProgress / Succeeded / Failed, as "Type (Reason): message".
std::string true_condition(const json::value& object) {
  if (const auto* conditions = array_at(object, "status", "conditions")) {
    for (const auto& c : *conditions) {
      if (text(c, {"status"}) != "True") continue;
      std::string type = text(c, {"type"});
      if (type != "InProgress" && type != "Succeeded" && type != "Failed") continue;
      return type + " (" + text(c, {"reason"}) + "): " + text(c, {"message"});
    }
  }
  return {};
}

// A condition of the object that is True, as "Type (Reason): message" ("" when not True).
std::string condition_text(const json::value& object, std::string_view type) {
  if (const auto* conditions = array_at(object, "status", "conditions")) {
    for (const auto& c : *conditions) {
      if (text(c, {"type"}) == type && text(c, {"status"}) == "True")
        return std::string(type) + " (" + text(c, {"reason"}) + "): " + text(c, {"message"});
    }
  }
  return {};
}

std::string condition_reason(const json::value& object, std::string_view type) {
  if (const auto* conditions = array_at(object, "status", "conditions")) {
    for (const auto& c : *conditions) {
      if (text(c, {"type"}) == type) return text(c, {"reason"});
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> DemoProgress::update(const json::value& certification) {
  std::vector<std::string> lines;
  std::string condition = true_condition(certification);
  if (!condition.empty() && condition != last_condition_) {
    lines.push_back("  Certification " + condition);
    last_condition_ = condition;
  }
  if (const auto* categories = array_at(certification, "status", "categoryStatuses")) {
    for (const auto& c : *categories) {
      std::string key = text(c, {"domain"}) + "/" + text(c, {"variant"});
      std::string status = text(c, {"status"});
      if (last_category_[key] == status) continue;
      last_category_[key] = status;
      std::string workflow = text(c, {"workflowRef", "name"});
      lines.push_back("    " + key + ": " + status +
                      (workflow.empty() ? "" : " (Workflow " + workflow + ")"));
    }
  }
  return lines;
}

std::string job_bandwidth_text(const json::value& job,
                               const std::vector<json::value>& measurements) {
  const std::string name = text(job, {"metadata", "name"});
  for (const auto& m : measurements) {
    if (text(m, {"spec", "jobRef", "name"}) != name) continue;
    const std::string complete = condition_reason(m, "Complete");
    // The figure the busBandwidthGBps threshold is judged on, formatted as the status stores it.
    std::string peak;
    try {
      if (const auto* results = array_at(m, "status", "results")) {
        const auto rows = api::decode<std::vector<api::BandwidthResult>>(json::value(*results));
        if (auto best = measure::peak_bus_bandwidth(rows)) peak = measure::format_gbps(*best);
      }
    } catch (const std::exception&) {
      peak.clear();  // a measurement the model cannot read shows as not measured
    }
    if (peak.empty())
      return "bus bandwidth not measured" + (complete.empty() ? "" : " (" + complete + ")");
    return "peak bus bandwidth " + peak + " GB/s" +
           (complete == "JobSucceeded"
                ? ""
                : " (" + (complete.empty() ? "provisional" : complete) + ")");
  }
  return {};
}

bool has_verdict(const json::value& certification) {
  std::string condition = true_condition(certification);
  return condition.starts_with("Succeeded") || condition.starts_with("Failed");
}

std::string final_report(const json::value& certification,
                         const std::vector<json::value>& workflows,
                         const std::vector<json::value>& jobs,
                         const std::vector<json::value>& bandwidth_measurements,
                         const std::vector<json::value>& configmaps) {
  std::ostringstream out;
  out << "\nResult of Certification " << text(certification, {"metadata", "namespace"}) << "/"
      << text(certification, {"metadata", "name"}) << ": " << true_condition(certification) << "\n";
  const auto* categories = array_at(certification, "status", "categoryStatuses");
  if (categories == nullptr) return out.str();
  for (const auto& c : *categories) {
    std::string workflow = text(c, {"workflowRef", "name"});
    out << "  " << text(c, {"domain"}) << "/" << text(c, {"variant"}) << ": "
        << text(c, {"status"});
    for (const auto& w : workflows) {
      if (text(w, {"metadata", "name"}) == workflow) out << " - " << true_condition(w);
    }
    out << "\n";
    const json::value* diagnosed = nullptr;
    for (const auto& w : workflows) {
      if (text(w, {"metadata", "name"}) == workflow && is_diagnose_workflow(w)) diagnosed = &w;
    }
    if (diagnosed != nullptr) {  // its round Jobs blame whole groups: the verdict names the nodes
      out << diagnose_report(*diagnosed, jobs, configmaps, "    ", bandwidth_measurements);
      continue;
    }
    for (const auto& job : jobs) {
      if (text(job, {"metadata", "labels", api::kWorkflowLabel}) != workflow &&
          text(job, {"spec", "workflowRef", "name"}) != workflow) {
        continue;
      }
      out << "    Job " << text(job, {"metadata", "name"});
      if (auto nodes = text(job, {"metadata", "annotations", "nvcre.nvidia.com/group-nodes"});
          !nodes.empty())
        out << " [" << nodes << "]";
      std::string verdict = true_condition(job);
      out << ": " << verdict.substr(0, verdict.find(' '));
      if (auto bandwidth = job_bandwidth_text(job, bandwidth_measurements); !bandwidth.empty())
        out << ", " << bandwidth;
      out << "\n";
      if (auto validation = condition_text(job, "ValidationFailed"); !validation.empty())
        out << "      " << validation << "\n";
      if (const auto* failed = array_at(job, "status", "failedNodes")) {
        for (const auto& node : *failed) {
          out << "      failed node " << text(node, {"name"}) << " (" << text(node, {"reason"})
              << "): " << text(node, {"message"}) << "   [Job " << text(job, {"metadata", "name"})
              << "]\n";
        }
      }
    }
  }
  return out.str();
}

}  // namespace nvcre::manager
