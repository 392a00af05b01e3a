#pragma once
// Internal to the Job reconcile (namespace job::detail, as every job_* header but
// job_reconciler.hpp and job_watches.hpp): what the steps of one pass share (the decoded Job, its
// pods, the result being built) and the cache-miss discipline every step uses to read a
// child.
#include "api/labels.hpp"
#include "api/job.hpp"
#include "k8s/reconcile_plan.hpp"
#include "job/job_reconciler.hpp"
#include "jsonkit/paths.hpp"
#include "reconcile/reads.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::job::detail {

using api::kGroupLabel;
using api::kGroupNodesAnnotation;
// Default of spec.schedulingStallGraceSeconds and the pod-drain grace of deletion.
inline constexpr std::chrono::seconds kDefaultSchedulingStallGrace{300};
inline constexpr std::chrono::minutes kPodDrainGrace{5};

using reconcile::ObjectLookup;

struct JobPass {
  JobPass(const reconcile::Context& input, const api::Job& job);

  const reconcile::Context& in;
  const api::Job& job;
  std::vector<const boost::json::value*> pods;  // pods labelled nvcre.nvidia.com/job=<job>, by name
  reconcile::Result result;

  // Cache, else the live answer, else plan a LiveGet (State::Unknown).
  ObjectLookup read(const k8s::ObjectRef& ref);
  // A LiveGet or a pod log is pending: the pass ends with only the LiveGets in its plan.
  bool stopped() const;
  // Strips everything but the LiveGets from the plan when stopped().
  reconcile::Result take_result();
};

using jsonkit::string_at;
using jsonkit::value_at;

}  // namespace nvcre::job::detail
