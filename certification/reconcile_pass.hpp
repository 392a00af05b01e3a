#pragma once
// Internal to the Certification reconcile: the state of one pass and its single status write.
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/certification.hpp"
#include "certification/reconciler.hpp"
#include "reconcile/pass.hpp"

namespace nvcre::certification::detail {

// Where a pass asked for a category build: the request, and the create it goes on with once it
// is answered (category `index`; `initializing`: the first create, which seeds the list).
struct WantedBuild {
  CategoryBuildRequest request;
  std::size_t index = 0;
  bool initializing = false;
};

struct Pass : reconcile::PassBase {
  const catalog::Catalog& catalog;
  api::Certification certification;                        // the observed object, decoded
  std::optional<WantedBuild> wanted_build = std::nullopt;  // set instead of a plan: ask, resume

  const std::string& ns() const { return certification.metadata.namespace_; }
  std::string workflow_namespace(const api::WorkflowReference& ref) const {
    return ref.namespace_.empty() ? ns() : ref.namespace_;
  }
};

// One status write computed from the observed status, the way Go's mutate-then-write callback is:
// commit() appends nothing when nothing changed, else the conditional MergePatchStatus, followed
// by the transition event when the True condition of the triple changed.
class StatusUpdate {
 public:
  explicit StatusUpdate(const Pass& pass);

  api::CertificationStatus& status() { return status_; }
  void set_condition(std::string_view type, std::string_view reason, std::string_view message);
  void in_progress(std::string_view reason, std::string_view message) {
    set_condition("InProgress", reason, message);
  }
  void failed(std::string_view reason, std::string_view message) {
    set_condition("Failed", reason, message);
  }
  void succeeded(std::string_view reason, std::string_view message) {
    set_condition("Succeeded", reason, message);
  }
  // An independent condition (ValidationFailed), beside the exclusive triple.
  void set_independent_condition(std::string_view type, std::string_view status,
                                 std::string_view reason, std::string_view message);
  // `transition_event` false when the caller records its own event for the change.
  void commit(Pass& pass, bool transition_event = true);

 private:
  api::CertificationStatus observed_;
  api::CertificationStatus status_;
  std::int64_t generation_ = 0;
  std::string now_;
};

}  // namespace nvcre::certification::detail
