#pragma once
// Internal to the Certification reconcile: the forward path of a live, non-terminal Certification
// and the recovery of a terminal one.
#include "certification/reconcile_create.hpp"
#include "certification/reconcile_pass.hpp"

#include <cstddef>

namespace nvcre::certification::detail {

// No categoryStatuses yet: validate every category, create the first Workflow, seed the list.
void initialize_categories(Pass& pass);
// Check the active category's Workflow, create the next pending one, or give the verdict.
void process_next_category(Pass& pass);
// Goes on from category `index`'s create: seeds the list (`initializing`, index 0) or starts the
// category, or applies the failure; a NeedsBuild records where the pass asked (Pass::wanted_build).
void continue_with_create(Pass& pass, std::size_t index, bool initializing, CategoryCreate create);
// A terminal Certification whose Failed category's Workflow runs again goes back to InProgress.
void recover_if_workflow_still_running(Pass& pass);

}  // namespace nvcre::certification::detail
