#include "overrides/when_match.hpp"
#include "jsonkit/merge_patch.hpp"

#include "jsonkit/named_merge.hpp"
#include "overrides/when_expression.hpp"

#include <algorithm>
#include <vector>

namespace nvcre::overrides {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Sub-fields are ANDed; empty sub-fields impose nothing.
bool string_matches(const api::StringMatchSpec& match, const std::string& actual) {
  if (!match.equals.empty() && match.equals != actual) return false;
  if (!match.in.empty() && !contains(match.in, actual)) return false;
  if (!match.notIn.empty() && contains(match.notIn, actual)) return false;
  return true;
}

bool int_matches(const api::IntMatchSpec& match, std::int64_t actual) {
  if (match.equals && actual != *match.equals) return false;
  if (match.greaterThan && !(actual > *match.greaterThan)) return false;
  if (match.lessThan && !(actual < *match.lessThan)) return false;
  return true;
}

// Cut to 37 characters + "..." when longer than 40. Counts UTF-8 characters, so a cut
// never splits one (upstream cuts bytes; identical for ASCII, which every known expression is).
std::string truncate_for_summary(const std::string& text) {
  std::vector<std::size_t> starts;  // byte offset of each character
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= 40) return text;
  return text.substr(0, starts[37]) + "...";
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]";
}

// The reference's one value per matcher: equals if set, else the `in` list, else the `notIn` list,
// else "<any>" (a matcher present with nothing in it), e.g. "gpuArchitecture=in [gb200,gb300]".
void summarize_string_match(std::vector<std::string>& parts, const std::string& name,
                            const std::optional<api::StringMatchSpec>& match) {
  if (!match) return;
  std::string value = "<any>";
  if (!match->equals.empty()) {
    value = match->equals;
  } else if (!match->in.empty()) {
    value = "in " + join_list(match->in);
  } else if (!match->notIn.empty()) {
    value = "notIn " + join_list(match->notIn);
  }
  parts.push_back(name + "=" + value);
}

// "=2,>1,<3": the bounds that are set, comma-joined.
std::string summarize_int_match(const api::IntMatchSpec& match) {
  std::vector<std::string> bounds;
  if (match.equals) bounds.push_back("=" + std::to_string(*match.equals));
  if (match.greaterThan) bounds.push_back(">" + std::to_string(*match.greaterThan));
  if (match.lessThan) bounds.push_back("<" + std::to_string(*match.lessThan));
  std::string out;
  for (std::size_t i = 0; i < bounds.size(); ++i) out += (i ? "," : "") + bounds[i];
  return out;
}

}  // namespace

MatchContext match_context_for(const api::WorkflowSpec& spec, std::string platform,
                               std::string gpu_architecture, std::int64_t domain_count) {
  MatchContext context;
  context.platform = std::move(platform);
  context.gpu_architecture = std::move(gpu_architecture);
  context.workload_kind = spec.jobTemplate.spec.workload.trainJob ? "TrainJob" : "";
  context.topology.mode =
      std::string(spec.orchestration.topology ? kTopologyModeTopology : kTopologyModeSimple);
  context.topology.domain_count = domain_count;
  if (spec.validation && spec.validation->performance)
    context.config = spec.validation->performance->config;
  return context;
}

bool config_matches(const boost::json::value& wanted, const boost::json::value& actual) {
  if (actual.is_null()) return false;
  if (!wanted.is_object()) return jsonkit::json_equal(wanted, actual);
  if (!actual.is_object()) return false;
  const auto& have = actual.get_object();
  for (const auto& [key, value] : wanted.get_object()) {
    const boost::json::value* found = have.if_contains(key);
    // A wanted null leaf only matches an explicit null, never a missing key.
    if (found == nullptr) return false;
    if (found->is_null() ? !value.is_null() : !config_matches(value, *found)) return false;
  }
  return true;
}

bool when_matches(const api::WhenSpec& when, const MatchContext& context) {
  // Evaluated first and unconditionally: an expression outside the subset must fail loudly
  // whatever the other conditions say (see when_expression.hpp).
  bool expression_holds = true;
  if (!when.expression.empty()) {
    expression_holds = evaluate_when_expression(
        when.expression,
        ExpressionVariables{context.platform, context.gpu_architecture, context.workload_kind,
                            context.topology.mode, context.topology.domain_count});
  }
  if (when.platform && !string_matches(*when.platform, context.platform)) return false;
  if (when.gpuArchitecture && !string_matches(*when.gpuArchitecture, context.gpu_architecture))
    return false;
  if (!when.workloadKind.empty() && when.workloadKind != context.workload_kind) return false;
  if (when.topology) {
    if (!when.topology->mode.empty() && when.topology->mode != context.topology.mode) return false;
    if (when.topology->domainCount &&
        !int_matches(*when.topology->domainCount, context.topology.domain_count)) {
      return false;
    }
  }
  if (!when.config.is_null() && !config_matches(when.config, context.config)) return false;
  return expression_holds;
}

std::string summarize_when(const api::WhenSpec& when) {
  std::vector<std::string> parts;
  summarize_string_match(parts, "gpuArchitecture", when.gpuArchitecture);
  summarize_string_match(parts, "platform", when.platform);
  if (!when.workloadKind.empty()) parts.push_back("workloadKind=" + when.workloadKind);
  if (when.topology) {
    if (!when.topology->mode.empty()) parts.push_back("topology.mode=" + when.topology->mode);
    if (const auto& count = when.topology->domainCount)
      parts.push_back("topology.domainCount=" + summarize_int_match(*count));
  }
  // The reference does not print the config it matches against.
  if (!when.config.is_null()) parts.push_back("config=<custom>");
  if (!when.expression.empty())
    parts.push_back("expression=" + truncate_for_summary(when.expression));
  if (parts.empty()) return "<always>";
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

}  // namespace nvcre::overrides
