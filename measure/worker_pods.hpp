#pragma once
// Which pods of a TrainJob a measurement reads. A TrainJob runs as a JobSet whose pods carry the
// JobSet's labels; the measurement picks among the pods the controller listed (from its cache).
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <span>
#include <string_view>
#include <vector>

namespace nvcre::measure {

inline constexpr std::string_view kJobSetNameLabel = "jobset.sigs.k8s.io/jobset-name";
inline constexpr std::string_view kReplicatedJobNameLabel = "jobset.sigs.k8s.io/replicatedjob-name";
inline constexpr std::string_view kJobSetRestartAttemptLabel = "jobset.sigs.k8s.io/restart-attempt";
inline constexpr std::string_view kJobCompletionIndexLabel =
    "batch.kubernetes.io/job-completion-index";

// The pods labelled jobset-name=<trainjob>, by completion index (a missing or malformed index
// counts as 0; equal indexes keep their name order). The first is worker-0, the last the last
// worker (the same pod when there is one).
std::vector<const boost::json::object*> trainjob_worker_pods(
    std::span<const boost::json::value* const> pods, std::string_view trainjob);

// The pods of one replicatedJob (jobset-name=<trainjob>, replicatedjob-name=<replicated_job>),
// best first: lowest completion index, then phase Succeeded < Running < Failed < any other, then
// the higher restart attempt, then the newer creationTimestamp, then the name. A pod the Job
// recreated shares its completion index with the one it replaced, so the index alone is ambiguous.
std::vector<const boost::json::object*> replicated_job_pods(
    std::span<const boost::json::value* const> pods, std::string_view trainjob,
    std::string_view replicated_job);

// The first of replicated_job_pods, nullptr when there is none.
const boost::json::object* replicated_job_pod(std::span<const boost::json::value* const> pods,
                                              std::string_view trainjob,
                                              std::string_view replicated_job);

}  // namespace nvcre::measure
