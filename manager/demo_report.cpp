#include "manager/demo_report.hpp"

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

bool has_verdict(const json::value& certification) {
  std::string condition = true_condition(certification);
  return condition.starts_with("Succeeded") || condition.starts_with("Failed");
}

std::string final_report(const json::value& certification,
                         const std::vector<json::value>& workflows,
                         const std::vector<json::value>& jobs) {
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
    for (const auto& job : jobs) {
      if (text(job, {"metadata", "labels", "nvcre.nvidia.com/workflow"}) != workflow &&
          text(job, {"spec", "workflowRef", "name"}) != workflow) {
        continue;
      }
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
