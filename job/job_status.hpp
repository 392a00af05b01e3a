#pragma once
// One pass's status change for a Job: every mutation of the pass goes into a
// draft of the status, and the pass ends with at most ONE conditional write (merge patch of the
// status subresource carrying metadata.resourceVersion), so a 409 re-plans everything from the
// fresh copy instead of losing part of it. The exclusive triple follows the Job tier's "unless"
// variant: once the Job (or the draft) is terminal, the triple is never written again.
#include "api/job.hpp"
#include "k8s/reconcile_plan.hpp"

#include <string>
#include <string_view>

namespace nvcre::job::detail {

class JobStatusDraft {
 public:
  JobStatusDraft(const api::Job& job, std::string now_rfc3339);

  api::JobStatus& status() { return draft_; }
  const api::JobStatus& status() const { return draft_; }
  const std::string& now() const { return now_; }
  // Succeeded or Failed is True in the draft.
  bool terminal() const;

  // Sets `type` of the triple True (others False / NotApplicable). Ignored once terminal.
  void set_phase(std::string_view type, std::string_view reason, std::string_view message);
  // An independent condition (HardwareFailed, ValidationFailed).
  void set_condition(std::string_view type, std::string_view status, std::string_view reason,
                     std::string_view message);
  // An event recorded with the write (or alone when nothing is written).
  void add_event(std::string_view type, std::string_view reason, std::string_view note);

  // Appends the status write (only when something changed), the transition event when the True
  // type of the triple changed, and the other events.
  void finish(k8s::ReconcilePlan& plan) const;

 private:
  const api::Job& job_;
  api::JobStatus original_;
  api::JobStatus draft_;
  std::string now_;
  std::vector<k8s::EventRecord> events_;
};

k8s::ObjectRef job_ref(const api::Job& job);

}  // namespace nvcre::job::detail
