#include "measure/worker_pods.hpp"

#include "jsonkit/numbers.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/rfc3339.hpp"

#include <algorithm>
#include <tuple>

namespace nvcre::measure {
namespace {

std::string_view label_of(const boost::json::object& pod, std::string_view key) {
  return jsonkit::view_of(jsonkit::find_object(pod, {"metadata", "labels"}), key);
}

// A label holding an integer; 0 when missing or not one (Go's strconv.Atoi error path).
int label_int(const boost::json::object& pod, std::string_view key) {
  return jsonkit::whole_number<int>(label_of(pod, key)).value_or(0);
}

std::string_view name_of(const boost::json::object& pod) {
  return jsonkit::view_of(jsonkit::find_object(pod, {"metadata"}), "name");
}

int phase_rank(const boost::json::object& pod) {
  const auto phase = jsonkit::view_of(jsonkit::find_object(pod, {"status"}), "phase");
  if (phase == "Succeeded") return 0;
  if (phase == "Running") return 1;
  if (phase == "Failed") return 2;
  return 3;
}

// creationTimestamp; the oldest possible time when missing or malformed.
k8s::Clock::time_point created_at(const boost::json::object& pod) {
  const auto text = jsonkit::view_of(jsonkit::find_object(pod, {"metadata"}), "creationTimestamp");
  return k8s::parse_rfc3339(text).value_or(k8s::Clock::time_point::min());
}

std::vector<const boost::json::object*> labelled(std::span<const boost::json::value* const> pods,
                                                 std::string_view trainjob,
                                                 std::string_view replicated_job) {
  std::vector<const boost::json::object*> out;
  for (const auto* pod : pods) {
    const auto* object = pod == nullptr ? nullptr : pod->if_object();
    if (object == nullptr || label_of(*object, kJobSetNameLabel) != trainjob) continue;
    if (!replicated_job.empty() && label_of(*object, kReplicatedJobNameLabel) != replicated_job)
      continue;
    out.push_back(object);
  }
  return out;
}

}  // namespace

std::vector<const boost::json::object*> trainjob_worker_pods(
    std::span<const boost::json::value* const> pods, std::string_view trainjob) {
  auto out = labelled(pods, trainjob, {});
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return std::make_tuple(label_int(*a, kJobCompletionIndexLabel), name_of(*a)) <
           std::make_tuple(label_int(*b, kJobCompletionIndexLabel), name_of(*b));
  });
  return out;
}

std::vector<const boost::json::object*> replicated_job_pods(
    std::span<const boost::json::value* const> pods, std::string_view trainjob,
    std::string_view replicated_job) {
  auto out = labelled(pods, trainjob, replicated_job);
  if (replicated_job.empty()) out.clear();
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    if (auto ia = label_int(*a, kJobCompletionIndexLabel),
        ib = label_int(*b, kJobCompletionIndexLabel);
        ia != ib)
      return ia < ib;
    if (auto ra = phase_rank(*a), rb = phase_rank(*b); ra != rb) return ra < rb;
    if (auto ra = label_int(*a, kJobSetRestartAttemptLabel),
        rb = label_int(*b, kJobSetRestartAttemptLabel);
        ra != rb)
      return ra > rb;
    if (auto ca = created_at(*a), cb = created_at(*b); ca != cb) return ca > cb;
    return name_of(*a) < name_of(*b);
  });
  return out;
}

const boost::json::object* replicated_job_pod(std::span<const boost::json::value* const> pods,
                                              std::string_view trainjob,
                                              std::string_view replicated_job) {
  const auto ordered = replicated_job_pods(pods, trainjob, replicated_job);
  return ordered.empty() ? nullptr : ordered.front();
}

}  // namespace nvcre::measure
