#include "certification/reconcile_create.hpp"
#include "k8s/meta.hpp"
#include "jsonkit/paths.hpp"

#include <algorithm>

#include "api/objects.hpp"
#include "certification/naming.hpp"
#include "platform/resource_slices.hpp"
#include "reconcile/kit.hpp"
#include "reconcile/resource_slices.hpp"
#include "workflow/node_discovery.hpp"
#include "workflow/workflow_document.hpp"

namespace nvcre::certification::detail {

namespace reason = api::certification_reason;
using Result = CategoryCreate::Result;

namespace {

CategoryCreate failure(CategoryCreate&& out, std::string_view condition_reason, std::string message,
                       bool returns_error) {
  out.result = Result::Failed;
  out.reason = std::string(condition_reason);
  out.message = std::move(message);
  if (returns_error) out.error = out.message;
  return std::move(out);
}

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// waitingForNodesMessage: which selector matched nothing and how much of the window is left.
std::string waiting_for_nodes_message(const Pass& pass, k8s::Clock::time_point created) {
  const auto& target = pass.certification.spec.target;
  const std::string remaining =
      reconcile::format_whole_seconds(kNodeDiscoveryTimeout - (pass.in.now - created));
  std::string selector = "any node";
  if (!target.nodeSelector.empty()) {
    std::vector<std::string> parts;
    for (const auto& [key, value] : target.nodeSelector) parts.push_back(key + "=" + value);
    std::sort(parts.begin(), parts.end());  // Go sorts the "k=v" strings, not the keys
    selector.clear();
    for (const auto& part : parts) selector += (selector.empty() ? "" : ",") + part;
  }
  if (workflow::targets_cordoned_nodes(target)) {
    return "No nodes (including unschedulable) match " + selector + "; retrying for up to " +
           remaining + " more.";
  }
  return "No schedulable nodes match " + selector + "; retrying for up to " + remaining +
         " more. Nodes that are cordoned or unschedulable do not count.";
}

// A Create that failed: adopt, retry, collide, or reject.
CategoryCreate decide_failed_create(const Pass& pass, CategoryCreate out,
                                    const k8s::ActionOutcome& outcome) {
  const auto& meta = pass.certification.metadata;
  if (reconcile::is_already_exists(outcome)) {
    // No holder (the live read failed, or it vanished since): the name may be free next time.
    if (!outcome.live_holder || outcome.live_holder->is_null()) {
      out.result = Result::Retry;
      return out;
    }
    if (k8s::is_controlled_by(*outcome.live_holder, meta.uid)) {
      out.result = Result::Adopted;
      return out;
    }
    if (k8s::is_being_deleted(*outcome.live_holder)) {
      out.result = Result::Retry;
      return out;
    }
    // Never recorded, so the deletion cascade can never touch the foreign object.
    return failure(std::move(out), reason::kWorkflowNameCollision,
                   "Workflow " + quoted(out.workflow_name) + " already exists in namespace " +
                       quoted(meta.namespace_) + " and is not controlled by Certification " +
                       quoted(meta.name) + "; refusing to adopt it",
                   false);
  }
  const std::string text = reconcile::outcome_text(outcome);
  // A fault a retry can cure is no verdict: say so and try again after the error's backoff.
  if (reconcile::is_transient(outcome)) {
    out.result = Result::Retry;
    out.message = "Failed to create Workflow " + out.workflow_name + ": " + text + "; retrying";
    out.events.push_back(
        pass.event("Warning", api::certification_event::kWorkflowCreationError, out.message));
    out.error = "failed to create Workflow " + out.workflow_name + ": " + text;
    return out;
  }
  // Rejected: one Warning per failed attempt, the specific WorkflowFailed verdict, and the error.
  const std::string message = "Failed to create Workflow " + out.workflow_name + ": " + text;
  out.events.push_back(
      pass.event("Warning", api::certification_event::kWorkflowCreationError, message));
  out.error = "failed to create Workflow " + out.workflow_name + ": " + text;
  return failure(std::move(out), reason::kWorkflowFailed, message, false);
}

}  // namespace

CategoryCreate create_category_workflow(const Pass& pass,
                                        const api::CertificateCategory& category) {
  const api::Certification& certification = pass.certification;
  const std::string key = category.domain + "/" + category.variant;
  CategoryCreate out;
  out.workflow_name = workflow_name(certification.metadata.name, category);

  const auto discovered =
      workflow::discover_target_node_views(pass.in.cache, certification.spec.target);
  if (discovered.nodes.empty()) {
    const auto created = k8s::parse_rfc3339(certification.metadata.creationTimestamp);
    if (created && pass.in.now - *created < kNodeDiscoveryTimeout) {
      out.result = Result::WaitingForNodes;
      out.message = waiting_for_nodes_message(pass, *created);
      return out;
    }
    return failure(std::move(out), reason::kWorkflowValidationFailed,
                   key + ": no nodes match target", true);
  }
  // Nodes without a product label get the one their ResourceSlices report (DRA-only platforms).
  const bool unlabelled =
      std::any_of(discovered.nodes.begin(), discovered.nodes.end(),
                  [](const auto* node) { return platform::lacks_gpu_product(*node); });
  k8s::ReconcilePlan reads;
  const auto slices = reconcile::resource_slice_products(pass.in, reads, unlabelled);
  if (slices.waiting) {
    out.result = Result::NeedsRead;
    out.create = std::move(reads.actions.front());
    return out;
  }
  // Detection, resolution and the gang transforms are the build services' (build_request.hpp).
  std::vector<platform::NodeRef> nodes;
  nodes.reserve(discovered.nodes.size());
  for (const auto* node : discovered.nodes) {
    platform::NodeRef ref{workflow::node_name(*node),
                          jsonkit::string_at(*node, {"metadata", "resourceVersion"})};
    if (auto product = slices.products.find(ref.name);
        product != slices.products.end() && platform::lacks_gpu_product(*node))
      ref.resource_slice_product = product->second;
    nodes.push_back(std::move(ref));
  }
  return create_from_answer(pass, category,
                            CategoryBuildRequest{certification, category, std::move(nodes)});
}

CategoryCreate create_from_answer(const Pass& pass, const api::CertificateCategory& category,
                                  CategoryBuildRequest request) {
  const api::Certification& certification = pass.certification;
  CategoryCreate out;
  out.workflow_name = workflow_name(certification.metadata.name, category);
  const auto answered = pass.in.build_answers.find(build_request_key(request));
  if (answered == pass.in.build_answers.end()) {
    out.result = Result::NeedsBuild;
    out.build_request = std::move(request);
    return out;
  }
  const CategoryBuildAnswer* answer = &answered->second;
  if (const auto* refused = std::get_if<BuildFailure>(answer)) {
    // A category the catalog lost after initialization is a build failure like any other here.
    const bool unknown = refused->reason == reason::kCategoryNotFound;
    return failure(std::move(out),
                   unknown ? std::string(reason::kWorkflowValidationFailed) : refused->reason,
                   refused->message, true);
  }
  const CategoryBuild& build = std::get<CategoryBuild>(*answer);

  const auto target =
      reconcile::workflow_object_ref(certification.metadata.namespace_, out.workflow_name);
  if (const auto* outcome = pass.outcome_for(k8s::ActionVerb::Create, target)) {
    return decide_failed_create(pass, std::move(out), *outcome);
  }
  out.result = Result::Created;
  boost::json::value workflow = api::encode_object(build.workflow);
  k8s::add_finalizer(workflow, workflow::kWorkflowFinalizer);
  out.create = k8s::make_action(k8s::ActionVerb::Create, target, std::move(workflow));
  // Only the pass whose Create succeeds reports the build's notices (events follow all actions).
  for (const auto& notice : build.events)
    out.events.push_back(pass.event(notice.type, notice.reason, notice.message));
  return out;
}

void apply_create_failure(Pass& pass, const CategoryCreate& create) {
  switch (create.result) {
    case Result::Created:
    case Result::Adopted:
      return;
    case Result::WaitingForNodes: {
      StatusUpdate update(pass);
      update.in_progress(reason::kWaitingForNodes, create.message);
      update.commit(pass);
      pass.plan.requeue_after = k8s::kDefaultRequeue;
      return;
    }
    case Result::Retry: {
      if (create.message.empty()) {  // the name's holder is going or unreadable: look again later
        pass.plan.requeue_after = k8s::kDefaultRequeue;
        return;
      }
      pass.plan.events.insert(pass.plan.events.end(), create.events.begin(), create.events.end());
      StatusUpdate update(pass);
      update.in_progress(api::certification_event::kWorkflowCreationError, create.message);
      update.commit(pass, false);  // the Warning above says it
      pass.plan.error = create.error;
      return;
    }
    case Result::NeedsBuild:  // the caller records where the pass asked (WantedBuild)
      return;
    case Result::NeedsRead:
      pass.plan.actions.push_back(*create.create);
      return;
    case Result::Failed: {
      pass.plan.events.insert(pass.plan.events.end(), create.events.begin(), create.events.end());
      StatusUpdate update(pass);
      update.failed(create.reason, create.message);
      update.commit(pass);
      pass.plan.error = create.error;
      return;
    }
  }
}

}  // namespace nvcre::certification::detail
