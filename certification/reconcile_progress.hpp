#pragma once
// Internal to the Certification reconcile: the forward path of a live, non-terminal Certification
// and the recovery of a terminal one.
#include "certification/reconcile_pass.hpp"

namespace nvcre::certification::detail {

// No categoryStatuses yet: validate every category, create the first Workflow, seed the list.
void initialize_categories(Pass& pass);
// Check the active category's Workflow, create the next pending one, or give the verdict.
void process_next_category(Pass& pass);
// A terminal Certification whose Failed category's Workflow runs again goes back to InProgress.
void recover_if_workflow_still_running(Pass& pass);

}  // namespace nvcre::certification::detail
