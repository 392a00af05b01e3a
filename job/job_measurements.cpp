#include "job/job_measurements.hpp"
#include "k8s/meta.hpp"

#include "api/measurement.hpp"
#include "api/objects.hpp"
#include "k8s/naming.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxNameLength = 63;

k8s::ObjectRef measurement_ref(const api::Job& job, std::string_view kind, std::string name) {
  return {std::string(api::kApiVersion), std::string(kind), job.metadata.namespace_,
          std::move(name)};
}

// The Workflow controlling the Job, else the Job itself.
json::object owner_reference(const api::Job& job) {
  for (const auto& owner : job.metadata.ownerReferences) {
    if (owner.kind == "Workflow" && owner.controller.value_or(false)) {
      return k8s::owner_reference(owner.apiVersion, owner.kind, owner.name, owner.uid, true);
    }
  }
  return k8s::owner_reference(api::kApiVersion, api::Job::kKind, job.metadata.name,
                              job.metadata.uid, true);
}

json::object measurement_metadata(const api::Job& job, const k8s::ObjectRef& ref) {
  json::object labels{{api::kManagedByLabel, api::kManagedByValue},
                      {api::kJobLabel, job.metadata.name}};
  // The measurement's gauges are labelled with the Workflow.
  if (auto workflow = job.metadata.labels.find(std::string(api::kWorkflowLabel));
      workflow != job.metadata.labels.end())
    labels[api::kWorkflowLabel] = workflow->second;
  return {{"name", ref.name},
          {"namespace", ref.ns},
          {"labels", std::move(labels)},
          {"ownerReferences", json::array{owner_reference(job)}}};
}

json::object job_reference(const api::Job& job) {
  return {{"apiGroup", api::kGroup}, {"kind", api::Job::kKind}, {"name", job.metadata.name}};
}

// A Create of `ref` that the previous plan tried and the server refused: not retried in this
// pass (the requeue retries it), reported once as a Warning unless the object already exists.
bool create_refused(JobPass& pass, JobStatusDraft& draft, const k8s::ObjectRef& ref) {
  const auto& outcome = pass.in.outcome;
  if (!outcome || outcome->action.verb != k8s::ActionVerb::Create || outcome->action.target != ref)
    return false;
  if (!reconcile::is_already_exists(*outcome)) {
    draft.add_event("Warning", api::job_event::kMeasurementCreationError,
                    "Failed to create " + ref.kind + " " + ref.name + ": " + outcome->message);
  }
  return true;
}

// Created with the measurement controller's finalizer, which that controller would otherwise add
// with a patch of its own.
void create(JobPass& pass, const k8s::ObjectRef& ref, json::object metadata, json::object spec,
            std::string_view finalizer) {
  for (const auto& action : pass.result.plan.actions) {
    if (action.target == ref) return;  // already planned by an earlier step of this pass
  }
  json::value object = json::object{{"apiVersion", api::kApiVersion},
                                    {"kind", ref.kind},
                                    {"metadata", std::move(metadata)},
                                    {"spec", std::move(spec)}};
  k8s::add_finalizer(object, finalizer);
  pass.result.plan.actions.push_back(
      k8s::make_action(k8s::ActionVerb::Create, ref, std::move(object)));
}

}  // namespace

std::string goodput_measurement_name(std::string_view job) {
  return k8s::truncate_name(std::string(job) + "-goodput", kMaxNameLength);
}

std::string bandwidth_measurement_name(std::string_view job) {
  return k8s::truncate_name(std::string(job) + "-bandwidth", kMaxNameLength);
}

std::vector<const json::value*> measurements_of(const k8s::CacheView& cache, const api::Job& job,
                                                std::string_view kind) {
  const std::string own = kind == api::GoodputMeasurement::kKind
                              ? goodput_measurement_name(job.metadata.name)
                              : bandwidth_measurement_name(job.metadata.name);
  std::vector<const json::value*> out;
  for (const json::value* m : cache.list_by_field(api::kApiVersion, kind, job.metadata.namespace_,
                                                  api::kJobRefNamePointer, job.metadata.name)) {
    if (jsonkit::string_at(*m, {"metadata", "name"}) == own) {
      out.insert(out.begin(), m);
    } else {
      out.push_back(m);
    }
  }
  return out;
}

bool measures_job(const json::value& measurement, const api::Job& job) {
  const json::value* uid =
      jsonkit::value_at(measurement, {"metadata", "annotations", api::kJobUidAnnotation});
  return uid == nullptr || !uid->is_string() || uid->get_string() == job.metadata.uid;
}

bool is_measurement_create(const k8s::ActionOutcome& outcome) {
  return outcome.action.verb == k8s::ActionVerb::Create &&
         outcome.action.target.api_version == api::kApiVersion &&
         (outcome.action.target.kind == api::GoodputMeasurement::kKind ||
          outcome.action.target.kind == api::BandwidthMeasurement::kKind);
}

void ensure_goodput_measurement(JobPass& pass, JobStatusDraft& draft) {
  const api::Job& job = pass.job;
  if (!job.spec.goodputMeasurement) return;
  const auto ref = measurement_ref(job, api::GoodputMeasurement::kKind,
                                   goodput_measurement_name(job.metadata.name));
  if (pass.in.cache.get(ref) != nullptr || create_refused(pass, draft, ref)) return;
  json::object spec{{"jobRef", job_reference(job)},
                    {"logProfileRef", job.spec.goodputMeasurement->logProfileRef}};
  if (!job.spec.goodputMeasurement->sampleInterval.empty())
    spec["sampleInterval"] = job.spec.goodputMeasurement->sampleInterval;
  create(pass, ref, measurement_metadata(job, ref), std::move(spec),
         api::kGoodputMeasurementFinalizer);
}

void ensure_bandwidth_measurement(JobPass& pass, JobStatusDraft& draft) {
  const api::Job& job = pass.job;
  if (!job.spec.bandwidthMeasurement) return;
  const auto& config = *job.spec.bandwidthMeasurement;
  const auto ref = measurement_ref(job, api::BandwidthMeasurement::kKind,
                                   bandwidth_measurement_name(job.metadata.name));
  if (const json::value* existing = pass.in.cache.get(ref)) {
    if (measures_job(*existing, job) || k8s::is_being_deleted(*existing)) return;
    // Left by the Job this one replaced: its results are not this Job's.
    pass.result.plan.actions.push_back(
        k8s::delete_owned(ref, jsonkit::string_at(*existing, {"metadata", "uid"})));
    pass.result.plan.requeue_after = k8s::kDefaultRequeue;
    return;
  }
  if (create_refused(pass, draft, ref)) return;
  json::object metadata = measurement_metadata(job, ref);
  metadata["annotations"] = json::object{{api::kJobUidAnnotation, job.metadata.uid}};
  json::object spec{{"jobRef", job_reference(job)}, {"logProfileRef", config.logProfileRef}};
  if (!config.sampleInterval.empty()) spec["sampleInterval"] = config.sampleInterval;
  if (!config.testType.empty()) spec["testType"] = config.testType;
  create(pass, ref, std::move(metadata), std::move(spec), api::kBandwidthMeasurementFinalizer);
}

}  // namespace nvcre::job::detail
