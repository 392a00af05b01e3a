#pragma once
// `when` conditions of overrides and dependencies: the match context, the matcher and the one-line
// summary recorded in status.orchestration.appliedOverrides[].when.
#include "api/workflow.hpp"
#include "overrides/override_error.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>

namespace nvcre::overrides {

inline constexpr std::string_view kTopologyModeTopology = "topology";  // orchestration.topology set
inline constexpr std::string_view kTopologyModeSimple = "simple";      // plain chunking

struct TopologyContext {
  // "topology" | "simple" as upstream's controller derives it, or single-rack / multi-rack /
  // multi-zone (the WhenSpec vocabulary) when a caller knows better. Compared verbatim.
  std::string mode;
  std::int64_t domain_count = 0;  // distinct non-empty topology-key values over the target nodes
};

struct MatchContext {
  std::string platform;          // detected platform name; "" / "unknown" when not known
  std::string gpu_architecture;  // e.g. "h100"
  std::string workload_kind;     // "TrainJob" when jobTemplate.spec.workload.trainJob is set
  TopologyContext topology;
  boost::json::value config;  // validation.performance.config; null when absent
};

// The context the Workflow controller evaluates `spec` against: platform / GPU architecture /
// domain count as detected, workload kind and topology mode derived from the spec, config taken
// from validation.performance.config (null when absent, which makes every `when.config` fail).
MatchContext match_context_for(const api::WorkflowSpec& spec, std::string platform,
                               std::string gpu_architecture, std::int64_t domain_count);

// True when every condition present in `when` holds (an empty WhenSpec always matches). The
// expression, when present, is type-checked even when another condition already failed, so a bad
// expression is reported on every platform. Throws OverrideError (no index prefix; callers add it)
// for an expression it cannot evaluate.
bool when_matches(const api::WhenSpec& when, const MatchContext& context);

// The reference's wording: "gpuArchitecture=h100, platform=aws"; "platform=in [aws,gcp]";
// "platform=notIn [aws]" (one value per matcher: equals, else in, else notIn, else "<any>");
// "topology.domainCount=>1,<8"; "config=<custom>"; "<always>" for an empty WhenSpec. Parts follow
// WhenSpec field order; an expression longer than 40 characters is cut to 37 + "...".
std::string summarize_when(const api::WhenSpec& when);

// Subset match of `when.config` against the context config: every key of a wanted object must
// exist in the actual object and match recursively; anything else must be JSON-equal. A null
// actual config never matches.
bool config_matches(const boost::json::value& wanted, const boost::json::value& actual);

}  // namespace nvcre::overrides
