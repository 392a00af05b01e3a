#pragma once
// The verdict of a Certification, WorkloadRun, Workflow or Job as read back from the API: the True
// condition of its exclusive execution triple when that is Succeeded or Failed. Shared by every
// test that drives the real manager.
#include <boost/json.hpp>

#include <string>

namespace nvcre::testing {

struct Verdict {
  std::string type;  // "Succeeded" | "Failed"; empty: no verdict yet
  std::string reason;
  std::string message;
};

inline Verdict verdict_of(const boost::json::value& object) {
  const auto* status = object.as_object().if_contains("status");
  const auto* conditions = status == nullptr || !status->is_object()
                               ? nullptr
                               : status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return {};
  for (const auto& c : conditions->as_array()) {
    if (c.at("status") != "True") continue;
    std::string type(c.at("type").as_string());
    if (type == "Succeeded" || type == "Failed") {
      return {type, std::string(c.at("reason").as_string()),
              std::string(c.at("message").as_string())};
    }
  }
  return {};
}

}  // namespace nvcre::testing
