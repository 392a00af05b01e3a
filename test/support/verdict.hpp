#pragma once
// The verdict of a Certification, WorkloadRun, Workflow or Job as read back from the API: the True
// condition of its exclusive execution triple when that is Succeeded or Failed; and any one
// condition. Shared by every test that drives the real manager.
#include <boost/json.hpp>

#include <string>
#include <string_view>

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

// The condition of `type` on the object, or null.
inline const boost::json::object* condition(const boost::json::value& object,
                                            std::string_view type) {
  const auto* status = object.as_object().if_contains("status");
  const auto* conditions = status == nullptr || !status->is_object()
                               ? nullptr
                               : status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const auto& c : conditions->as_array()) {
    if (c.at("type").as_string() == type) return &c.as_object();
  }
  return nullptr;
}

// A string field of a condition ("" when the condition or the field is absent).
inline std::string text(const boost::json::object* condition, std::string_view key) {
  if (condition == nullptr || !condition->contains(key)) return {};
  return std::string(condition->at(key).as_string());
}

}  // namespace nvcre::testing
