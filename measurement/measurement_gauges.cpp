#include "measurement/measurement_gauges.hpp"

#include "api/conditions.hpp"
#include "api/labels.hpp"
#include "api/measurement.hpp"
#include "jsonkit/paths.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

#include <charconv>

namespace nvcre::measurement {
namespace json = boost::json;
using jsonkit::string_at;

namespace {

std::optional<double> decimal(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc()) return std::nullopt;
  return value;
}

std::map<std::string, std::string> base_labels(const json::value& m) {
  return {{"namespace", string_at(m, {"metadata", "namespace"})},
          {"measurement", string_at(m, {"metadata", "name"})},
          {"job", string_at(m, {"spec", "jobRef", "name"})},
          {"workflow", string_at(m, {"metadata", "labels", api::kWorkflowLabel})}};
}

void bandwidth(const json::value& m, std::vector<k8s::GaugeSample>& out) {
  const json::array* results = jsonkit::find_array(m.as_object(), {"status", "results"});
  if (results == nullptr) return;
  auto labels = base_labels(m);
  labels["nccl_test"] = string_at(m, {"spec", "testType"});
  for (const auto& row : *results) {
    const json::value* size = jsonkit::value_at(row, {"sizeBytes"});
    if (size == nullptr || !size->is_int64()) continue;
    labels["message_size_bytes"] = std::to_string(size->get_int64());
    // GB/s under NVCRE's current names (_gbs), and under the _gbps names NVCRE kept as
    // deprecated aliases for one minor release when it renamed them (v0.6.0).
    if (auto bus = decimal(string_at(row, {"busBW"}))) {
      out.push_back({"nvcre_nccl_busbw_gbs", labels, *bus});
      out.push_back({"nvcre_nccl_busbw_gbps", labels, *bus});
    }
    if (auto alg = decimal(string_at(row, {"algBW"}))) {
      out.push_back({"nvcre_nccl_algbw_gbs", labels, *alg});
      out.push_back({"nvcre_nccl_algbw_gbps", labels, *alg});
    }
  }
}

// Status field -> gauge, in the reference's order. While the measurement samples a running Job the
// reference records every one of them (0 for a figure not measured yet); once Complete only the
// ratio stays, the outcome.
constexpr std::pair<const char*, const char*> kGoodputGauges[] = {
    {"nvcre_goodput_ratio", "result"},
    {"nvcre_goodput_avg_tflops_per_gpu", "avgTFLOPSPerGPU"},
    {"nvcre_goodput_avg_step_time_seconds", "avgStepTimeSec"},
    {"nvcre_goodput_reschedule_time_seconds", "rescheduleTimeSec"},
    {"nvcre_goodput_resume_time_seconds", "resumeTimeSec"},
    {"nvcre_goodput_checkpoint_save_time_seconds", "checkpointSaveTimeSec"},
    {"nvcre_goodput_lost_work_time_seconds", "lostWorkTimeSec"},
    {"nvcre_goodput_training_time_seconds", "trainingTimeSec"},
    {"nvcre_goodput_warmup_time_seconds", "warmupTimeSec"},
    {"nvcre_goodput_non_warmup_time_seconds", "nonWarmupTimeSec"},
};

void goodput(const json::value& m, bool complete, std::vector<k8s::GaugeSample>& out) {
  const auto labels = base_labels(m);
  if (complete) {
    if (auto ratio = decimal(string_at(m, {"status", "result"})))
      out.push_back({"nvcre_goodput_ratio", labels, *ratio});
    return;
  }
  // A sample of the running Job was recorded (Measuring True): the whole set, as the reference
  // records it with each sample. Before that, only what the status already holds.
  const bool sampled =
      api::condition_is_true(reconcile::status_conditions(m), api::kConditionMeasuring);
  for (const auto& [name, field] : kGoodputGauges) {
    auto value = decimal(string_at(m, {"status", field}));
    if (!value && sampled) value = 0.0;
    if (value) out.push_back({name, labels, *value});
  }
}

}  // namespace

std::vector<k8s::GaugeSample> measurement_gauges(const json::value& measurement) {
  std::vector<k8s::GaugeSample> out;
  if (!measurement.is_object()) return out;
  const bool complete =
      api::condition_is_true(reconcile::status_conditions(measurement), api::kConditionComplete);
  const std::string kind = string_at(measurement, {"kind"});
  if (kind == api::BandwidthMeasurement::kKind) {
    if (!complete) bandwidth(measurement, out);
  } else if (kind == api::GoodputMeasurement::kKind) {
    goodput(measurement, complete, out);
  }
  return out;
}

}  // namespace nvcre::measurement
