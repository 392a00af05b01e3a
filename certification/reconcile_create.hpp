#pragma once
// Internal to the Certification reconcile: creating one category's Workflow
// and deciding what a failed Create means.
#include <optional>
#include <string>
#include <vector>

#include "certification/build_request.hpp"
#include "certification/reconcile_pass.hpp"

namespace nvcre::certification::detail {

struct CategoryCreate {
  enum class Result {
    Created,  // `create` is this pass's Create; `events` are the build's notices
    Adopted,  // the name is held by our own Workflow (a create that raced a crash or the cache)
    WaitingForNodes,  // no node matches yet, within the discovery window; `message` says so
    Retry,   // requeue: the holder is terminating or could not be read (`message` empty), or the
             // Create met a fault a retry can cure (`message`, `events`, `error` say which)
    Failed,  // terminal for the Certification: `reason`, `message`, optional `error`, `events`
    NeedsBuild,  // the build services have not answered `build_request` yet: ask, then re-plan
    NeedsRead,   // `create` holds the uncached read discovery needs first (ResourceSlices)
  };
  Result result = Result::Failed;
  std::string workflow_name;
  std::optional<k8s::Action> create;
  std::vector<k8s::EventRecord> events;
  std::string reason;
  std::string message;
  std::string error;                                  // the error Go returns (rate-limited requeue)
  std::optional<CategoryBuildRequest> build_request;  // NeedsBuild
};

// Discovers the target nodes and goes on as create_from_answer with the request they make.
CategoryCreate create_category_workflow(const Pass& pass, const api::CertificateCategory& category);
// The create from the build services' answer to `request` in pass.in.build_answers (NeedsBuild
// while there is none): what a pass that asked resumes with, without discovering the nodes again.
CategoryCreate create_from_answer(const Pass& pass, const api::CertificateCategory& category,
                                  CategoryBuildRequest request);

// Everything but success: the status write, events, requeue or error for a failed create (a
// NeedsBuild adds nothing: the caller records the request with where it was asked).
void apply_create_failure(Pass& pass, const CategoryCreate& create);

}  // namespace nvcre::certification::detail
