#include "certification/reconciler.hpp"
#include "k8s/meta.hpp"

#include <map>
#include <memory>
#include <stdexcept>

#include "api/conditions.hpp"
#include "api/objects.hpp"
#include "reconcile/kit.hpp"
#include "certification/reconcile_pass.hpp"
#include "certification/reconcile_progress.hpp"

namespace nvcre::certification {

namespace {

using detail::Pass;

// The error Go returns when the matching call fails; the work queue retries with backoff.
std::string failed_action_error(const Pass& pass, const k8s::ActionOutcome& outcome) {
  const std::string text = reconcile::outcome_text(outcome);
  const std::string& name = outcome.action.target.name;
  switch (outcome.action.verb) {
    case k8s::ActionVerb::MergePatch:
      return "failed to add finalizer: " + text;
    case k8s::ActionVerb::Update:
      return "failed to remove finalizer: " + text;
    case k8s::ActionVerb::Delete:
      return "failed to delete Workflow " + name + ": " + text;
    case k8s::ActionVerb::LiveGet:
      return pass.certification.metadata.deletionTimestamp.empty()
                 ? "failed to confirm Workflow " + name + ": " + text
                 : "failed to get Workflow " + name + " for deletion: " + text;
    case k8s::ActionVerb::UpdateStatus:
    case k8s::ActionVerb::MergePatchStatus:
    case k8s::ActionVerb::Create:
      break;
  }
  return "failed to update Certification status: " + text;
}

// Drop the finalizer: every Workflow this Certification controls carries its owner reference, so
// garbage collection deletes it once the Certification is gone, and a foreign Workflow (a collision
// or a stale ref) survives either way. Reading each Workflow live and deleting it first would cost
// two requests per category and change nothing, since the finalizer never waits for them.
void handle_deletion(Pass& pass) {
  if (!k8s::has_finalizer(pass.object, kCertificationFinalizer)) return;
  pass.plan.actions.push_back(
      k8s::remove_finalizer_update(pass.self, pass.object, kCertificationFinalizer));
}

}  // namespace

namespace {

// What a pass that asked for a build observed and decoded, owned, for its continuation.
struct Asked {
  boost::json::value object;
  std::optional<k8s::ActionOutcome> outcome;
  std::vector<k8s::ActionOutcome> held;
  k8s::LiveReads live;
  std::map<std::string, reconcile::PodLogAnswer> pod_logs;
  boost::json::value memo;
  k8s::Clock::time_point now;
  const catalog::Catalog* catalog = nullptr;
  api::Certification certification;
  detail::WantedBuild wanted;
};

reconcile::Result result_of(Pass& pass);

// The asking pass's create, from the answers: the ladder that led to the ask depends only on what
// the pass observed, so going on from the ask plans what a whole new pass over the same
// observations would. The empty cache makes sure that nothing after the ask reads one.
reconcile::Result resume(const Asked& asked, const reconcile::BuildAnswers& answers) {
  static const k8s::ObjectCache no_cache;
  const reconcile::Context context{&asked.object,  no_cache, asked.live, asked.outcome, asked.now,
                                   asked.pod_logs, answers,  asked.memo, &asked.held};
  Pass pass{{context, asked.object, k8s::object_ref_of(asked.object), {}},
            *asked.catalog,
            asked.certification};
  const auto& category = asked.certification.spec.categories.at(asked.wanted.index);
  detail::continue_with_create(pass, asked.wanted.index, asked.wanted.initializing,
                               detail::create_from_answer(pass, category, asked.wanted.request));
  return result_of(pass);
}

reconcile::Result result_of(Pass& pass) {
  reconcile::Result result{std::move(pass.plan), {}, {}};
  if (!pass.wanted_build) return result;
  result.wanted_builds.push_back(pass.wanted_build->request);
  const auto& in = pass.in;
  auto asked = std::make_shared<const Asked>(Asked{
      pass.object, in.outcome, in.held == nullptr ? std::vector<k8s::ActionOutcome>{} : *in.held,
      in.live, in.pod_logs, in.memo, in.now, &pass.catalog, std::move(pass.certification),
      std::move(*pass.wanted_build)});
  result.resume = [asked](const reconcile::BuildAnswers& answers) {
    return resume(*asked, answers);
  };
  return result;
}

}  // namespace

reconcile::Result reconcile_certification(const reconcile::Context& input,
                                          const catalog::Catalog& catalog) {
  if (input.object == nullptr) return {};
  api::Certification certification;
  try {
    certification = api::decode_object<api::Certification>(*input.object);
  } catch (const std::exception& error) {
    return {reconcile::error_plan(std::string("decoding Certification: ") + error.what()), {}, {}};
  }
  Pass pass{{input, *input.object, k8s::object_ref_of(*input.object), {}},
            catalog,
            std::move(certification)};

  // A failed Create is judged where it was planned; a stale write carries no decision (the
  // actor re-read the object); any other failure is returned as the error Go would return.
  if (input.outcome && input.outcome->action.verb != k8s::ActionVerb::Create &&
      !reconcile::is_stale_write(*input.outcome)) {
    pass.plan.error = failed_action_error(pass, *input.outcome);
    return result_of(pass);
  }
  if (!pass.certification.metadata.deletionTimestamp.empty()) {
    handle_deletion(pass);
    return result_of(pass);
  }
  if (!k8s::has_finalizer(pass.object, kCertificationFinalizer)) {
    // The patch ends the pass; its watch event drives the next one.
    pass.plan.actions.push_back(
        k8s::add_finalizer_patch(pass.self, pass.object, kCertificationFinalizer));
    return result_of(pass);
  }
  const auto& status = pass.certification.status;
  if (status && api::is_terminal(status->conditions)) {
    detail::recover_if_workflow_still_running(pass);
  } else if (!status || status->categoryStatuses.empty()) {
    detail::initialize_categories(pass);
  } else {
    detail::process_next_category(pass);
  }
  return result_of(pass);
}

k8s::ReconcilePlan reconcile_certification_answering_builds(const reconcile::Context& context,
                                                            const catalog::Catalog& catalog) {
  reconcile::BuildAnswers answers;
  const reconcile::Context answered{context.object,  context.cache, context.live,
                                    context.outcome, context.now,   context.pod_logs,
                                    answers,         context.memo,  context.held};
  auto result = reconcile_certification(answered, catalog);
  while (!result.wanted_builds.empty()) {
    for (const auto& request : result.wanted_builds) {
      const std::string key = build_request_key(request);
      if (answers.contains(key))
        throw std::logic_error("reconcile asked again for an answered build: " + key);
      answers.emplace(key, answer_build_request(request, context.cache, catalog));
    }
    // As the actor shell does: go on from the ask when the pass says how, else plan again.
    result = result.resume ? result.resume(answers) : reconcile_certification(answered, catalog);
  }
  return std::move(result.plan);
}

}  // namespace nvcre::certification
