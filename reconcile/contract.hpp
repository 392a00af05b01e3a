#pragma once
// The one reconcile contract every kind's pure reconcile function follows: what a pass observes
// (Context) and what it decides (Result). The actor shell builds the Context from its cache
// snapshot, performs the Result's reads (LiveGets, pod logs, category builds), re-plans with the
// answers, and then carries out the plan's writes.
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"
#include "reconcile/build_request.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::reconcile {

// A pod log a reconcile wants before it can decide: a failure tail (the last `tail_lines` lines,
// keeping at most `limit_bytes` from the end) or a measurement read (kubelet timestamps, from
// `since_time`, at most `limit_bytes`; `whole_log` pages through the entire log so that every line
// is read exactly once). Answered in Context::pod_logs under pod_log_key(want).
struct PodLogWant {
  std::string ns{};
  std::string pod{};
  std::string container{};  // "" = the pod's only/default container
  bool previous = false;    // the previous (crashed) instance
  int tail_lines = 0;       // the asking reconciler sets its bounds; 0 = no bound
  std::size_t limit_bytes = 0;
  bool timestamps = false;   // each line prefixed with the kubelet's RFC 3339 time and a space
  std::string since_time{};  // RFC 3339, second precision; "" = from the start
  bool whole_log = false;    // a paged read of the whole log (limit_bytes is the page size)
  bool operator==(const PodLogWant&) const = default;
};

// The answer to a PodLogWant: the text, or why it could not be read (a failure tail records the
// reason as its text; a measurement decides whether to retry).
struct PodLogAnswer {
  std::string text{};
  std::string error{};  // "" = read
  bool ok() const { return error.empty(); }
};

// The key a want's answer is filed under: every field that changes what is read.
std::string pod_log_key(const PodLogWant& want);

// Category builds answered so far in this pass, by build_request_key.
using BuildAnswers = std::map<std::string, CategoryBuildAnswer>;

struct Context {
  const boost::json::value* object = nullptr;        // the primary object as cached; nullptr: gone
  const k8s::CacheView& cache;                       // the informer caches of every watched kind
  const k8s::LiveReads& live;                        // answers to this pass's LiveGets
  const std::optional<k8s::ActionOutcome>& outcome;  // the previous plan's failed action
  k8s::Clock::time_point now;
  const std::map<std::string, PodLogAnswer>& pod_logs;  // by pod_log_key, when asked for
  const BuildAnswers& build_answers;                    // answers to this pass's wanted_builds
  // What this object's reconciles keep between passes in memory (null at first, and again after a
  // restart or once the idle reconciler is reaped): e.g. a measurement's log anchor. Never needed
  // for correctness, only to avoid repeating work.
  const boost::json::value& memo;
  // The creates of this pass's earlier plans that met AlreadyExists, each with the holder read
  // live, and those that succeeded, each as an AlreadyExists held by the created object
  // (k8s::created_by_this_pass) (nullptr: none). A plan that adopts one child and then meets the
  // next child's AlreadyExists, or whose later action failed after its creates went through, must
  // still know the first: with only the last outcome it would create the first again, and the
  // plans would alternate between the two until the pass gave up.
  const std::vector<k8s::ActionOutcome>* held = nullptr;
};

// The outcome of `verb` on `target`: the previous plan's failed action, or for a Create an earlier
// AlreadyExists of this pass with its holder; nullptr when neither concerns it.
const k8s::ActionOutcome* outcome_of(const Context& context, k8s::ActionVerb verb,
                                     const k8s::ObjectRef& target);

struct Result;

// How a pass that asked for category builds goes on once they are answered: the rest of its
// decision, from what it already read, decoded and discovered, instead of a whole new pass (a new
// cache read, decode and node discovery). It reads no cache: what it needs was observed when it
// asked. The shell calls it when every wanted build is answered; when it is empty the shell
// re-plans the whole pass instead. On aws:h100:800 a new Certification pass costs about 1 ms,
// going on from the ask about 0.05 ms (build/bench/nvcre_certification_pass_bench).
using Continuation = std::function<Result(const BuildAnswers&)>;

struct Result {
  k8s::ReconcilePlan plan{};
  // Reads the reconcile needs before it can decide; while any is unanswered the plan holds no
  // writes (only LiveGets, if any). The shell answers them and re-plans, as with LiveGet.
  std::vector<PodLogWant> wanted_pod_logs{};
  std::vector<CategoryBuildRequest> wanted_builds{};
  Continuation resume{};  // optional, with wanted_builds: goes on with their answers
  // Replaces the memo once the pass has carried out its plan without error.
  std::optional<boost::json::value> memo{};
};

using Function = std::function<Result(const Context&)>;

}  // namespace nvcre::reconcile
