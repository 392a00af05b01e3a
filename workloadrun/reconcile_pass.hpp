#pragma once
// Internal to the WorkloadRun reconcile: the state of one pass and its single status write.
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

#include "api/workloadrun.hpp"
#include "reconcile/pass.hpp"
#include "workloadrun/reconciler.hpp"

namespace nvcre::workloadrun::detail {

struct Pass : reconcile::PassBase {
  api::WorkloadRun run;  // the observed object, decoded
};

// One status write from the observed status. The execution triple is set the WorkloadRun way:
// the two inactive conditions read reason Superseded, and no observedGeneration is recorded.
// commit() writes only a change and follows it with the transition event.
class StatusUpdate {
 public:
  explicit StatusUpdate(const Pass& pass);

  api::WorkloadRunStatus& status() { return status_; }
  void set_execution(std::string_view type, std::string_view reason, std::string_view message);
  // An independent condition (ValidationFailed), with SetStatusCondition semantics.
  void set_condition(std::string_view type, std::string_view reason, std::string_view message);
  // `transition_event` false: the caller records its own (Warning) event for this change.
  void commit(Pass& pass, bool transition_event = true);

 private:
  api::WorkloadRunStatus observed_;
  api::WorkloadRunStatus status_;
  std::string now_;
};

// The run has a workflowRef; mirror its Workflow.
void mirror_workflow(Pass& pass);

}  // namespace nvcre::workloadrun::detail
