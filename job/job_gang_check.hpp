#pragma once
// The gang consistency contract re-checked at the last moment, before the Job creates its TrainJob
// (platform/gang_validation.hpp): the Job's spec must still say what the owning Workflow's
// persisted spec.gangScheduler intent says. The intent and the TrainingRuntime come from the
// Workflow (cache, else a live read); a Job without a Workflow owner is checked for its workload
// labels only.
#include "platform/gang_validation.hpp"
#include "job/job_pass.hpp"

#include <map>
#include <optional>
#include <string>

namespace nvcre::job::detail {

struct GangCheck {
  bool waiting = false;  // a LiveGet of the owning Workflow is planned; the pass stops
  std::string error;     // the Workflow's gang intent could not be read
  std::optional<platform::GangConflict> conflict;
  // spec.workloadMetadata.labels, with a queue label an override removed put back.
  std::map<std::string, std::string> workload_labels;
};

GangCheck check_gang_consistency(JobPass& pass);

// The name a job-scoped copy of dependency `original` carries for this Job:
// Truncate(`<original>-<wfhash>-job`, 63) or Truncate(`<original>-<wfhash>-<group>-iter-<n>`, 63).
std::string job_scoped_copy_name(std::string_view original, std::string_view workflow_name,
                                 std::string_view tail);

}  // namespace nvcre::job::detail
