#include "actors/reconciler.hpp"

#include "actors/build_services.hpp"
#include "reconcile/reads.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

namespace nvcre::actors {
namespace {

using self_pointer = reconciler_actor::stateful_pointer<ReconcilerState>;

void plan_and_run(self_pointer self);

void finish(self_pointer self, PassResult result) {
  auto& state = self->state;
  result.memo = state.memo;
  state.pass->promise.deliver(std::move(result));
  state.pass.reset();
}

bool is_write_on_primary(const ReconcilerConfig& config, const k8s::Action& action) {
  return action.target == config.primary && action.verb != k8s::ActionVerb::Create &&
         action.verb != k8s::ActionVerb::Delete && action.verb != k8s::ActionVerb::LiveGet;
}

void run_action(self_pointer self, std::size_t index);

// The plan's action as sent: its body moves into the message and the rest is copied. Nothing
// reads the body once it is sent: the answer, the verb and the target decide what comes next.
k8s::Action take_for_sending(k8s::Action& planned) {
  boost::json::value body = std::move(planned.body);
  k8s::Action sent = planned;
  sent.body = std::move(body);
  return sent;
}

// Keeps a create's holder (met as AlreadyExists, or made by the create itself) for the rest of the
// pass (the newest per target).
void remember_holder(std::vector<k8s::ActionOutcome>& held, k8s::ActionOutcome outcome) {
  std::erase_if(
      held, [&](const k8s::ActionOutcome& h) { return h.action.target == outcome.action.target; });
  held.push_back(std::move(outcome));
}

// A successful Create holds its name for the rest of the pass, as an AlreadyExists would: a later
// plan of the pass (after a later action failed) adopts it instead of creating it again. Takes
// the created object: a successful answer is not read again.
void remember_created(self_pointer self, std::size_t index, k8s::ActionResult& answer) {
  const k8s::Action& action = self->state.pass->result.plan.actions[index];
  if (action.verb == k8s::ActionVerb::Create && answer.ok() && answer.object.is_object()) {
    remember_holder(self->state.pass->held,
                    k8s::created_by_this_pass(action, std::move(answer.object)));
  }
}

// What to do with the answer to actions[index]: go on with actions[next], or re-plan from the
// failure (a conflict on the primary re-reads it; an AlreadyExists reads the holder).
void on_answer(self_pointer self, std::size_t index, std::size_t next, k8s::ActionResult answer) {
  if (answer.ok()) {
    remember_created(self, index, answer);
    run_action(self, next);
    return;
  }
  const k8s::Action action = self->state.pass->result.plan.actions[index];
  if (answer.code == 409 && answer.reason != "AlreadyExists" &&
      is_write_on_primary(self->state.config, action)) {
    // Stale object: re-read it live and re-plan from the fresh copy.
    self->request(self->state.config.api, caf::infinite, execute_atom::value,
                  k8s::live_get(self->state.config.primary))
        .then(
            [=](k8s::ActionResult& fresh) {
              auto& p = *self->state.pass;
              if (!fresh.ok()) {
                finish(
                    self,
                    PassResult{std::nullopt, "re-reading after a conflict: " + fresh.message, {}});
                return;
              }
              p.fresh_primary = std::move(fresh.object);
              p.primary_refreshed = true;
              p.outcome.reset();
              plan_and_run(self);
            },
            [=](caf::error& error) {
              finish(self, PassResult{std::nullopt, to_string(error), {}});
            });
    return;
  }
  k8s::ActionOutcome outcome;
  outcome.action = action;
  outcome.code = answer.code;
  outcome.reason = answer.reason;
  outcome.message = answer.message;
  if (action.verb == k8s::ActionVerb::Create && answer.reason == "AlreadyExists") {
    self->request(self->state.config.api, caf::infinite, execute_atom::value,
                  k8s::live_get(action.target))
        .then(
            [=](k8s::ActionResult& holder) mutable {
              if (holder.ok()) outcome.live_holder = std::move(holder.object);
              if (outcome.live_holder && !outcome.live_holder->is_null())
                remember_holder(self->state.pass->held, outcome);
              self->state.pass->outcome = std::move(outcome);
              plan_and_run(self);
            },
            [=](caf::error& error) {
              finish(self, PassResult{std::nullopt, to_string(error), {}});
            });
    return;
  }
  self->state.pass->outcome = std::move(outcome);
  plan_and_run(self);
}

// Sends actions[index, end) at once; when all have answered, goes on as on_answer does for the
// first failure in plan order (or for the last action when none failed).
void run_together(self_pointer self, std::size_t index, std::size_t end) {
  struct Wave {
    std::vector<std::optional<k8s::ActionResult>> answers;
    std::size_t outstanding = 0;
    bool failed = false;
  };
  auto wave = std::make_shared<Wave>();
  wave->answers.resize(end - index);
  wave->outstanding = end - index;
  auto& config = self->state.config;
  for (std::size_t i = index; i < end; ++i) {
    self->request(config.api, caf::infinite, execute_atom::value,
                  take_for_sending(self->state.pass->result.plan.actions[i]))
        .then(
            [=](k8s::ActionResult& answer) {
              if (wave->failed) return;
              wave->answers[i - index] = std::move(answer);
              if (--wave->outstanding > 0) return;
              for (std::size_t j = index; j < end; ++j) {
                if (!wave->answers[j - index]->ok()) {
                  on_answer(self, j, end, std::move(*wave->answers[j - index]));
                  return;
                }
                // on_answer remembers the last one.
                if (j + 1 < end) remember_created(self, j, *wave->answers[j - index]);
              }
              on_answer(self, end - 1, end, std::move(*wave->answers.back()));
            },
            [=](caf::error& error) {
              if (wave->failed) return;
              wave->failed = true;
              finish(self, PassResult{std::nullopt, "API call failed: " + to_string(error), {}});
            });
  }
}

// Performs actions[index..] of the current plan; every LiveGet answer lands in pass.live.
void run_action(self_pointer self, std::size_t index) {
  auto& pass = *self->state.pass;
  const auto& actions = pass.result.plan.actions;
  if (index == actions.size()) {
    for (auto& event : pass.result.plan.events)
      self->send(self->state.config.recorder, record_atom::value, std::move(event));
    if (pass.result.memo && pass.result.plan.error.empty())
      self->state.memo = std::move(*pass.result.memo);
    PassResult result{pass.result.plan.requeue_after, pass.result.plan.error, {}};
    finish(self, std::move(result));
    return;
  }
  std::size_t end = index + 1;
  while (end < actions.size() && actions[end].joins_previous) ++end;
  if (end - index > 1) {
    run_together(self, index, end);
    return;
  }
  self->request(self->state.config.api, caf::infinite, execute_atom::value,
                take_for_sending(pass.result.plan.actions[index]))
      .then(
          [=](k8s::ActionResult& answer) { on_answer(self, index, index + 1, std::move(answer)); },
          [=](caf::error& error) {
            finish(self, PassResult{std::nullopt, "API call failed: " + to_string(error), {}});
          });
}

// Reads everything the plan asked for (LiveGets, pod logs) at once, then re-plans when the last
// answer is in: they are independent, and one after the other each added a round trip to the
// pass. The first failed read ends the pass; later answers are dropped.
void run_reads(self_pointer self, std::vector<k8s::Action> gets,
               std::vector<reconcile::PodLogWant> logs) {
  struct Batch {
    std::size_t outstanding = 0;
    bool failed = false;
  };
  auto batch = std::make_shared<Batch>(Batch{gets.size() + logs.size()});
  auto answered = [=] {
    if (!batch->failed && --batch->outstanding == 0) plan_and_run(self);
  };
  auto failed = [=](std::string message) {
    if (batch->failed) return;
    batch->failed = true;
    finish(self, PassResult{std::nullopt, std::move(message), {}});
  };
  auto& config = self->state.config;
  for (const auto& get : gets) {
    self->request(config.api, caf::infinite, execute_atom::value, get)
        .then(
            [=](k8s::ActionResult& answer) {
              if (batch->failed) return;
              if (!answer.ok() && get.target.name.empty()) {
                // A refused collection read is an answer: the reconcile does without it.
                self->state.pass->live[get.target] =
                    reconcile::refused_collection(answer.code, answer.message);
                answered();
                return;
              }
              if (!answer.ok()) {
                failed("live read of " + k8s::to_string(get.target) + ": " + answer.message);
                return;
              }
              self->state.pass->live[get.target] = std::move(answer.object);
              answered();
            },
            [=](caf::error& error) { failed(to_string(error)); });
  }
  for (auto& want : logs) {
    if (want.ns.empty()) want.ns = config.primary.ns;
    self->request(config.api, caf::infinite, pod_log_atom::value, want)
        .then(
            [=](reconcile::PodLogAnswer& answer) {
              if (batch->failed) return;
              self->state.pass->pod_logs[reconcile::pod_log_key(want)] = std::move(answer);
              answered();
            },
            [=](caf::error& error) { failed(to_string(error)); });
  }
}

void resume_or_replan(self_pointer self);

// Gets every category build answered one after the other, then goes on with the answers. A service
// that cannot answer ends the pass in an error: the work queue retries it with backoff.
void ask_builds(self_pointer self, std::vector<reconcile::CategoryBuildRequest> requests) {
  if (requests.empty()) {
    resume_or_replan(self);
    return;
  }
  auto& config = self->state.config;
  reconcile::CategoryBuildRequest request = std::move(requests.back());
  requests.pop_back();
  auto key = reconcile::build_request_key(request);
  ask_category_build(
      self, config.services, std::move(request), config.build_timeout,
      [=](BuildReply reply) mutable {
        if (!reply.answer) {
          finish(self, PassResult{std::nullopt, "asking services: " + reply.error, {}});
          return;
        }
        self->state.pass->build_answers.insert_or_assign(key, std::move(*reply.answer));
        ask_builds(self, std::move(requests));
      });
}

// Counts one more plan of this pass; false (and the pass ended) past max_plans_per_pass.
bool count_plan(self_pointer self) {
  auto& state = self->state;
  auto& pass = *state.pass;
  if (++pass.plans <= state.config.max_plans_per_pass) return true;
  std::string last = pass.outcome ? pass.outcome->reason + ": " + pass.outcome->message
                                  : std::string("no failure");
  finish(self, PassResult{std::nullopt,
                          "reconcile did not settle after " +
                              std::to_string(state.config.max_plans_per_pass) +
                              " plans (last: " + last + ")",
                          {}});
  return false;
}

// Carries out pass.result: its reads and builds first (then it is planned or resumed again), or,
// once it needs nothing more, its actions.
void carry_out(self_pointer self) {
  auto& pass = *self->state.pass;
  std::vector<k8s::Action> gets;
  for (const auto& action : pass.result.plan.actions) {
    if (action.verb == k8s::ActionVerb::LiveGet && !pass.live.contains(action.target))
      gets.push_back(action);
  }
  std::vector<reconcile::PodLogWant> logs;
  for (const auto& want : pass.result.wanted_pod_logs) {
    if (!pass.pod_logs.contains(reconcile::pod_log_key(want))) logs.push_back(want);
  }
  std::vector<reconcile::CategoryBuildRequest> builds;
  for (const auto& request : pass.result.wanted_builds) {
    if (!pass.build_answers.contains(reconcile::build_request_key(request)))
      builds.push_back(request);
  }
  bool asks_reads =
      std::any_of(pass.result.plan.actions.begin(), pass.result.plan.actions.end(),
                  [](const k8s::Action& a) { return a.verb == k8s::ActionVerb::LiveGet; });
  if (!gets.empty() || !logs.empty()) {
    run_reads(self, std::move(gets), std::move(logs));
    return;
  }
  if (!builds.empty()) {
    ask_builds(self, std::move(builds));
    return;
  }
  if (asks_reads) {
    // Every read it asks for is already answered: a pure function must not ask again.
    finish(self,
           PassResult{std::nullopt, "reconcile asked again for live reads it already has", {}});
    return;
  }
  if (!pass.result.wanted_builds.empty()) {
    finish(self, PassResult{
                     std::nullopt, "reconcile asked again for category builds it already has", {}});
    return;
  }
  run_action(self, 0);
}

void plan_and_run(self_pointer self) {
  if (!count_plan(self)) return;
  auto& state = self->state;
  auto& pass = *state.pass;
  const auto now = state.config.clock();
  pass.result = state.config.cache->read([&](const k8s::CacheView& cache) {
    const boost::json::value* object = nullptr;
    if (pass.primary_refreshed) {
      object = pass.fresh_primary->is_null() ? nullptr : &*pass.fresh_primary;
    } else {
      object = cache.get(state.config.primary);
    }
    reconcile::Context context{object,    cache,         pass.live,          pass.outcome,
                               now,       pass.pod_logs, pass.build_answers, state.memo,
                               &pass.held};
    return state.config.reconcile(context);
  });
  carry_out(self);
}

// Every build the result wanted is answered: its continuation goes on from where it asked (no
// cache read, decode or discovery again); a result without one is planned again as a whole.
void resume_or_replan(self_pointer self) {
  auto& pass = *self->state.pass;
  if (!pass.result.resume) {
    plan_and_run(self);
    return;
  }
  if (!count_plan(self)) return;
  auto resume = std::move(pass.result.resume);
  pass.result = resume(pass.build_answers);
  carry_out(self);
}

}  // namespace

reconciler_actor::behavior_type reconciler(reconciler_actor::stateful_pointer<ReconcilerState> self,
                                           ReconcilerConfig config) {
  self->state.memo = std::move(config.memo);
  self->state.config = std::move(config);
  // The exit reason carries the exception's text, so the controller can report it on the object.
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& failure) -> caf::error {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& error) {
      return caf::make_error(caf::sec::runtime_error, std::string(error.what()));
    } catch (...) {
      return caf::make_error(caf::sec::runtime_error, std::string("unknown exception"));
    }
  });
  return {
      [=](reconcile_atom) -> caf::result<PassResult> {
        auto& state = self->state;
        state.pass.emplace();
        state.pass->promise = self->make_response_promise<PassResult>();
        auto promise = state.pass->promise;
        plan_and_run(self);
        return promise;
      },
  };
}

}  // namespace nvcre::actors
