#include "overrides/overrides.hpp"

#include "jsonkit/paths.hpp"
#include "jsonkit/json_patch.hpp"
#include "jsonkit/merge_patch.hpp"

#include "api/codec.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <string>

namespace nvcre::overrides {

namespace json = boost::json;

namespace {

// (apiVersion, kind, metadata.name): the identity an override dependency is merged by.
struct DependencyKey {
  std::string api_version;
  std::string kind;
  std::string name;
  bool operator==(const DependencyKey&) const = default;
};

DependencyKey key_of(const json::object& resource) {
  return {jsonkit::string_of(&resource, "apiVersion"), jsonkit::string_of(&resource, "kind"),
          jsonkit::string_of(jsonkit::find_object(resource, {"metadata"}), "name")};
}

std::string describe(const DependencyKey& key) { return key.kind + "/" + key.name; }

// Typed -> JSON -> `edit` -> typed. The decode is what upstream's "zero the base, unmarshal the
// result" does, except that our decoder rejects fields the JobTemplateSpec does not have instead of
// dropping them: an override writing to a misspelt path fails loudly rather than being a no-op.
template <class Edit>
api::JobTemplateSpec edit_job_template(const api::JobTemplateSpec& base, Edit&& edit,
                                       const std::string& part) {
  json::value edited = edit(api::encode(base));
  try {
    return api::decode<api::JobTemplateSpec>(edited, "jobTemplate");
  } catch (const api::DecodeError& error) {
    throw OverrideError(part + ": the result is not a valid jobTemplate: " + error.what());
  }
}

void apply_dependencies(std::vector<api::DependencySpec>& dependencies,
                        const std::vector<api::DependencySpec>& overrides) {
  for (const auto& override_dependency : overrides) {
    const DependencyKey key = key_of(override_dependency.resource);
    auto it =
        std::find_if(dependencies.begin(), dependencies.end(),
                     [&](const api::DependencySpec& base) { return key_of(base.resource) == key; });
    if (it == dependencies.end()) {
      dependencies.push_back(override_dependency);
      continue;
    }
    it->resource = jsonkit::merge_named(it->resource, override_dependency.resource).as_object();
    if (override_dependency.when != api::WhenSpec{}) it->when = override_dependency.when;
  }
}

void apply_orchestration(api::OrchestrationSpec& base,
                         const api::OrchestrationOverrideSpec& override_spec) {
  if (override_spec.target) base.target = override_spec.target;
  if (override_spec.topology) base.topology = override_spec.topology;
  if (override_spec.execution) base.execution = *override_spec.execution;
  if (override_spec.iterations) base.iterations = override_spec.iterations;
}

void apply_override(api::WorkflowSpec& spec, const api::OverrideSpec& override_spec,
                    const std::string& prefix) {
  if (!override_spec.jobTemplate.is_null()) {
    if (!override_spec.jobTemplate.is_object()) {
      throw OverrideError(prefix + "jobTemplate: must be an object, got " +
                          std::string(api::json_type_name(override_spec.jobTemplate)));
    }
    spec.jobTemplate = edit_job_template(
        spec.jobTemplate,
        [&](const json::value& base) {
          try {
            return jsonkit::merge_patch(base, override_spec.jobTemplate);
          } catch (const std::invalid_argument& error) {
            throw OverrideError(prefix + "jobTemplate: " + error.what());
          }
        },
        prefix + "jobTemplate");
  }
  if (!override_spec.jobTemplatePatch.is_null()) {
    spec.jobTemplate = edit_job_template(
        spec.jobTemplate,
        [&](const json::value& base) {
          try {
            return jsonkit::apply_json_patch(base, override_spec.jobTemplatePatch);
          } catch (const std::invalid_argument& error) {
            throw OverrideError(prefix + "jobTemplatePatch: " + error.what());
          }
        },
        prefix + "jobTemplatePatch");
  }
  apply_dependencies(spec.dependencies, override_spec.dependencies);
  if (override_spec.orchestration)
    apply_orchestration(spec.orchestration, *override_spec.orchestration);
}

}  // namespace

std::string summarize_override_parts(const api::OverrideSpec& override_spec) {
  std::vector<std::string> parts;
  if (!override_spec.jobTemplate.is_null()) parts.emplace_back("jobTemplate");
  if (!override_spec.jobTemplatePatch.is_null()) parts.emplace_back("jobTemplatePatch");
  // Upstream formats "%d dependencies" whatever the count, so "1 dependencies" is kept verbatim.
  if (!override_spec.dependencies.empty())
    parts.push_back(std::to_string(override_spec.dependencies.size()) + " dependencies");
  if (override_spec.orchestration) parts.emplace_back("orchestration");
  if (parts.empty()) return "none";
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

ResolvedOverrides resolve_overrides(const api::WorkflowSpec& spec, const MatchContext& context) {
  ResolvedOverrides resolved{spec, {}};
  for (std::size_t i = 0; i < spec.overrides.size(); ++i) {
    const api::OverrideSpec& override_spec = spec.overrides[i];
    const std::string prefix = "override[" + std::to_string(i) + "]: ";
    bool matched = false;
    try {
      matched = when_matches(override_spec.when, context);
    } catch (const OverrideError& error) {
      throw OverrideError(prefix + "evaluating when: " + error.what());
    }
    if (!matched) continue;
    const api::WorkflowSpec before = resolved.spec;
    apply_override(resolved.spec, override_spec, prefix);
    resolved.applied.push_back(
        api::AppliedOverride{static_cast<std::int64_t>(i), summarize_when(override_spec.when),
                             summarize_override_parts(override_spec), resolved.spec == before});
  }
  return resolved;
}

std::vector<api::DependencySpec> select_dependencies(
    const std::vector<api::DependencySpec>& dependencies, const MatchContext& context) {
  std::vector<api::DependencySpec> selected;
  for (std::size_t i = 0; i < dependencies.size(); ++i) {
    try {
      if (when_matches(dependencies[i].when, context)) selected.push_back(dependencies[i]);
    } catch (const OverrideError& error) {
      throw OverrideError("dependency[" + std::to_string(i) + "] (" +
                          describe(key_of(dependencies[i].resource)) +
                          "): evaluating when: " + error.what());
    }
  }
  return selected;
}

std::vector<OverrideEvent> override_events(const std::vector<api::AppliedOverride>& applied,
                                           std::size_t override_count,
                                           const MatchContext& context) {
  std::vector<OverrideEvent> events;
  for (const auto& entry : applied) {
    const std::string head = "Override " + std::to_string(entry.index) + " (" + entry.when + ")";
    if (entry.noOp) {
      events.push_back(
          {"Warning", std::string(kOverrideNoOpEvent),
           head + " matched but produced no changes — check field paths (" + entry.patches + ")"});
    } else {
      events.push_back(
          {"Normal", std::string(kOverrideAppliedEvent), head + " applied: " + entry.patches});
    }
  }
  if (applied.empty() && override_count > 0) {
    events.push_back({"Normal", std::string(kNoOverridesMatchedEvent),
                      "0 of " + std::to_string(override_count) +
                          " overrides matched (platform=" + context.platform +
                          ", gpuArchitecture=" + context.gpu_architecture + ")"});
  }
  return events;
}

std::string override_failure_message(const OverrideError& error) {
  return std::string("Failed to apply overrides: ") + error.what();
}

std::vector<api::OverrideSpec> pending_overrides(const std::vector<api::OverrideSpec>& overrides,
                                                 const std::vector<api::AppliedOverride>& applied,
                                                 const MatchContext& context) {
  std::vector<api::OverrideSpec> pending;
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    const bool was_applied = std::any_of(
        applied.begin(), applied.end(),
        [i](const api::AppliedOverride& a) { return a.index == static_cast<std::int64_t>(i); });
    if (was_applied) continue;
    api::WhenSpec fixed_part;
    fixed_part.platform = overrides[i].when.platform;
    fixed_part.gpuArchitecture = overrides[i].when.gpuArchitecture;
    MatchContext fixed_context;
    fixed_context.platform = context.platform;
    fixed_context.gpu_architecture = context.gpu_architecture;
    if (when_matches(fixed_part, fixed_context)) pending.push_back(overrides[i]);
  }
  return pending;
}

}  // namespace nvcre::overrides
