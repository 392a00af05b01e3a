#include "job/job_pass.hpp"

#include "k8s/label_selector.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace nvcre::job::detail {
namespace json = boost::json;

JobPass::JobPass(const reconcile::Context& input, const api::Job& decoded)
    : in(input), job(decoded) {
  // The pod label is injected by the Job controller into the worker pod template, valued with the
  // Job name. A name that is no valid label value (only a hand-made Job longer than 63) has no
  // pods.
  try {
    auto selector = k8s::LabelSelector::from_match_labels(
        {{std::string(trainjob::kJobLabel), job.metadata.name}});
    pods = in.cache.list("v1", "Pod", job.metadata.namespace_, selector);
  } catch (const std::invalid_argument&) {
    pods.clear();
  }
}

ObjectLookup JobPass::read(const k8s::ObjectRef& ref) {
  return reconcile::read_object(in, result, ref);
}

bool JobPass::stopped() const { return reconcile::waiting_for_reads(result); }

reconcile::Result JobPass::take_result() {
  // Writes planned before the stop were decided on incomplete knowledge: drop them.
  if (stopped()) reconcile::keep_only_reads(result);
  return std::move(result);
}

}  // namespace nvcre::job::detail
