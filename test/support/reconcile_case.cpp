#include "test/support/reconcile_case.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

#include <map>
#include <stdexcept>

namespace nvcre::testing {
namespace {

namespace json = boost::json;

k8s::ActionVerb verb_from(std::string_view text, const std::string& where) {
  for (auto verb : {k8s::ActionVerb::Create, k8s::ActionVerb::MergePatch,
                    k8s::ActionVerb::UpdateStatus, k8s::ActionVerb::MergePatchStatus,
                    k8s::ActionVerb::Update, k8s::ActionVerb::Delete, k8s::ActionVerb::LiveGet}) {
    if (k8s::to_string(verb) == text) return verb;
  }
  throw std::runtime_error(where + ": unknown action verb \"" + std::string(text) + "\"");
}

std::string string_or_empty(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string{};
}

k8s::ActionOutcome outcome_from(const json::object& o, const std::string& where) {
  k8s::ActionOutcome outcome;
  const auto* action = o.if_contains("action");
  if (action == nullptr || !action->is_object())
    throw std::runtime_error(where + ": outcome.action is required");
  outcome.action.verb = verb_from(string_or_empty(action->as_object(), "verb"), where);
  if (const auto* target = action->as_object().if_contains("target")) {
    outcome.action.target = k8s::object_ref_from_json(*target);
  }
  if (const auto* body = action->as_object().if_contains("body")) outcome.action.body = *body;
  if (const auto* code = o.if_contains("code"); code != nullptr && code->is_int64()) {
    outcome.code = static_cast<int>(code->as_int64());
  }
  outcome.reason = string_or_empty(o, "reason");
  outcome.message = string_or_empty(o, "message");
  if (const auto* holder = o.if_contains("liveHolder")) outcome.live_holder = *holder;
  return outcome;
}

}  // namespace

ReconcileCase load_reconcile_case(const GoldenCase& golden_case) {
  const std::string where = golden_case.suite + "/" + golden_case.name + "/input.yaml";
  json::value input = jsonkit::parse_yaml(golden_case.input("input.yaml"));
  if (!input.is_object()) throw std::runtime_error(where + ": expected a mapping");
  const json::object& o = input.as_object();
  ReconcileCase out;
  auto now = k8s::parse_rfc3339(string_or_empty(o, "now"));
  if (!now) throw std::runtime_error(where + ": `now` must be an RFC 3339 timestamp");
  out.now = *now;
  if (const auto* object = o.if_contains("object"); object != nullptr && !object->is_null())
    out.object = *object;
  if (const auto* cache = o.if_contains("cache"); cache != nullptr && cache->is_array()) {
    for (const auto& item : cache->as_array()) out.cache.upsert(item);
  }
  if (const auto* live = o.if_contains("live"); live != nullptr && live->is_array()) {
    for (const auto& item : live->as_array()) {
      if (!item.is_object() || item.as_object().if_contains("ref") == nullptr) {
        throw std::runtime_error(where + ": every live entry needs a ref");
      }
      const auto* object = item.as_object().if_contains("object");
      out.live[k8s::object_ref_from_json(item.as_object().at("ref"))] =
          object == nullptr ? json::value() : *object;
    }
  }
  if (const auto* outcome = o.if_contains("outcome"); outcome != nullptr && outcome->is_object()) {
    out.outcome = outcome_from(outcome->as_object(), where);
  }
  if (const auto* held = o.if_contains("held"); held != nullptr && held->is_array()) {
    for (const auto& item : held->as_array()) {
      if (!item.is_object()) throw std::runtime_error(where + ": every held entry is an outcome");
      out.held.push_back(outcome_from(item.as_object(), where));
    }
  }
  if (const auto* extra = o.if_contains("extra")) out.extra = *extra;
  return out;
}

std::string plan_to_yaml(const k8s::ReconcilePlan& plan) {
  return jsonkit::to_yaml(k8s::plan_to_json(plan));
}

}  // namespace nvcre::testing
