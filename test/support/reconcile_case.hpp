#pragma once
// Inputs of a reconcile golden case, read from the case's `input.yaml`:
//   now: "2026-01-01T00:00:00Z"       # required: reconcilers never read a clock
//   object: {...}                     # the primary object as cached; omit for "not in cache"
//   cache: [ {...}, ... ]             # other cached objects (children, nodes, pods ...)
//   live:                             # answers to LiveGet actions; object: null = live NotFound
//     - ref: {apiVersion, kind, namespace, name}
//       object: {...} | null
//   outcome:                          # the previous plan's failed action, if any
//     action: {verb: Create, target: {...}}
//     code: 409
//     reason: AlreadyExists
//     message: "..."
//     liveHolder: {...}               # Create + AlreadyExists: who holds the name
//   held: [ {outcome}, ... ]          # this pass's earlier creates (Context::held), outcome-shaped
//   extra: {...}                      # controller-specific knobs, read by the suite itself
// The expected output is `expected.yaml`: k8s::plan_to_json of the plan.
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"
#include "reconcile/contract.hpp"
#include "test/support/golden.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::testing {

struct ReconcileCase {
  k8s::Clock::time_point now;
  std::optional<boost::json::value> object;
  k8s::ObjectCache cache;
  k8s::LiveReads live;
  std::optional<k8s::ActionOutcome> outcome;
  std::vector<k8s::ActionOutcome> held;
  boost::json::value extra;  // null when absent
  std::map<std::string, reconcile::PodLogAnswer> no_pod_logs;
  reconcile::BuildAnswers no_builds;
  boost::json::value no_memo;

  // The reconcile context of the case, with no pod logs or builds answered yet.
  reconcile::Context context() const {
    return {object ? &*object : nullptr,
            cache,
            live,
            outcome,
            now,
            no_pod_logs,
            no_builds,
            no_memo,
            &held};
  }
};

// Throws std::runtime_error naming the case and the malformed part.
ReconcileCase load_reconcile_case(const GoldenCase& golden_case);

// The YAML text of a plan, as stored in expected.yaml.
std::string plan_to_yaml(const k8s::ReconcilePlan& plan);

}  // namespace nvcre::testing
