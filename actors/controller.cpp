#include "actors/controller.hpp"

#include "actors/reconciler.hpp"
#include "k8s/idle_reap.hpp"
#include "k8s/metrics.hpp"

#include <caf/all.hpp>

#include <spdlog/spdlog.h>

namespace nvcre::actors {
namespace {

using self_pointer = controller_actor::stateful_pointer<ControllerState>;
using SteadyClock = std::chrono::steady_clock;

constexpr auto kReapEvery = std::chrono::seconds(1);

k8s::ObjectRef ref_of_key(const ControllerConfig& config, const std::string& key) {
  return k8s::ref_from_key(config.api_version, config.kind, key);
}

// What the exception handler stored as the reconciler's exit reason, as plain text.
std::string crash_text(const caf::error& reason) {
  const auto& context = reason.context();
  if (context.match_elements<std::string>()) return context.get_as<std::string>(0);
  return to_string(reason);
}

void arm_timer(self_pointer self) {
  auto& state = self->state;
  auto next = state.queue.next_ready_at();
  if (!next) return;
  if (state.timer_at && *state.timer_at <= *next) return;
  state.timer_at = *next;
  auto delay = std::max(SteadyClock::duration::zero(), *next - SteadyClock::now());
  self->delayed_send(self, delay, tick_atom::value);
}

void pump(self_pointer self);

void finish_pass(self_pointer self, const std::string& key, PassResult result, bool crashed) {
  auto& state = self->state;
  auto now = SteadyClock::now();
  if (auto it = state.reconcilers.find(key); it != state.reconcilers.end()) {
    it->second.busy = false;
    it->second.last_used = now;
    if (!crashed) it->second.memo = std::move(result.memo);
  }
  --state.in_flight;
  ++state.stats.passes;
  state.queue.done(key);
  if (crashed || !result.error.empty()) {
    ++state.stats.errors;
    state.queue.add_rate_limited(key, now);
  } else {
    state.queue.forget(key);
    if (result.requeue_after) state.queue.add_after(key, *result.requeue_after, now);
  }
  if (state.config.metrics) {
    state.config.metrics->reconcile_finished(state.config.name, crashed                ? "crash"
                                                                : result.error.empty() ? "success"
                                                                                       : "error");
  }
  pump(self);
}

reconciler_actor spawn_reconciler(self_pointer self, const std::string& key,
                                  boost::json::value memo) {
  auto& config = self->state.config;
  ReconcilerConfig rc;
  rc.primary = ref_of_key(config, key);
  rc.reconcile = config.reconcile;
  rc.cache = config.cache;
  rc.api = config.api;
  rc.recorder = config.recorder;
  rc.services = config.services;
  rc.clock = config.clock;
  rc.memo = std::move(memo);
  auto actor = self->spawn(reconciler, std::move(rc));
  self->monitor(actor);
  self->state.key_by_actor[actor.address()] = key;
  if (config.metrics) config.metrics->reconcilers_changed(config.name, +1);
  return actor;
}

void dispatch(self_pointer self, const std::string& key) {
  auto& state = self->state;
  auto& slot = state.reconcilers[key];
  if (!slot.actor) slot.actor = spawn_reconciler(self, key, std::move(slot.memo));
  slot.busy = true;
  slot.pass_id = ++state.next_pass_id;
  ++state.in_flight;
  auto started = SteadyClock::now();
  auto name = state.config.name;
  auto pass_id = slot.pass_id;
  // The pass may already have been settled by the down handler (its actor crashed).
  auto still_open = [=] {
    auto it = self->state.reconcilers.find(key);
    return it != self->state.reconcilers.end() && it->second.busy && it->second.pass_id == pass_id;
  };
  self->request(slot.actor, caf::infinite, reconcile_atom::value)
      .then(
          [=](PassResult& result) {
            if (!still_open()) return;
            if (spdlog::should_log(
                    spdlog::level::debug)) {  // its arguments are built only when logged
              spdlog::debug(
                  "reconcile {} {}: {:.1f} ms{}{}", name, key,
                  std::chrono::duration<double, std::milli>(SteadyClock::now() - started).count(),
                  result.requeue_after
                      ? ", requeue in " + std::to_string(result.requeue_after->count()) + " ms"
                      : "",
                  result.error.empty() ? "" : ", error: " + result.error);
            }
            if (self->state.config.metrics) {
              self->state.config.metrics->observe_reconcile_seconds(
                  name, std::chrono::duration<double>(SteadyClock::now() - started).count());
            }
            finish_pass(self, key, std::move(result), false);
          },
          [=](caf::error&) {
            if (still_open()) finish_pass(self, key, PassResult{}, true);
          });
}

void pump(self_pointer self) {
  auto& state = self->state;
  auto now = SteadyClock::now();
  // Due keys join the ready queue even while every slot is busy (client-go's delaying queue does
  // the same). Left parked, a past-due key re-armed a zero-delay timer on every tick: a busy loop
  // through CAF's clock thread for as long as the controller was saturated.
  state.queue.advance(now);
  if (state.synced && state.config.leading) {
    while (state.in_flight < static_cast<std::size_t>(state.config.max_concurrent)) {
      auto key = state.queue.get(now);
      if (!key) break;
      dispatch(self, *key);
    }
  }
  if (state.config.metrics)
    state.config.metrics->set_queue_depth(state.config.name, state.queue.len());
  arm_timer(self);
}

// Ends idle reconcilers. The slot lets go of the actor at once (the next pass of its key spawns
// a new one, whatever the old one's down message does later) and stays while it keeps a memo.
void reap_idle(self_pointer self) {
  auto& state = self->state;
  auto now = SteadyClock::now();
  for (auto it = state.reconcilers.begin(); it != state.reconcilers.end();) {
    auto& slot = it->second;
    const auto decision = k8s::decide_reap(
        {slot.busy, static_cast<bool>(slot.actor), !slot.memo.is_null(), now - slot.last_used},
        {state.config.idle_reap, state.config.memo_kept});
    if (decision.end_actor) {
      self->send_exit(slot.actor, caf::exit_reason::user_shutdown);
      slot.actor = nullptr;
    }
    if (decision.forget) {
      it = state.reconcilers.erase(it);
    } else {
      ++it;
    }
  }
  self->delayed_send(self, kReapEvery, reap_atom::value);
}

void on_reconciler_down(self_pointer self, const caf::down_msg& down) {
  auto& state = self->state;
  auto found = state.key_by_actor.find(down.source);
  if (found == state.key_by_actor.end()) return;
  std::string key = found->second;
  state.key_by_actor.erase(found);
  if (state.config.metrics) state.config.metrics->reconcilers_changed(state.config.name, -1);
  auto it = state.reconcilers.find(key);
  // A reaped actor's slot let go of it already (and may hold its successor by now).
  if (it == state.reconcilers.end() || !it->second.actor ||
      it->second.actor.address() != down.source) {
    return;
  }
  const bool was_busy = it->second.busy;
  state.reconcilers.erase(it);
  if (was_busy) finish_pass(self, key, PassResult{}, true);
  if (!down.reason || down.reason == caf::exit_reason::user_shutdown) return;  // reaped or normal
  ++state.stats.crashes;
  k8s::EventRecord event;
  event.regarding = ref_of_key(state.config, key);
  event.type = "Warning";
  event.reason = "ReconcileError";
  event.note = "reconcile crashed: " + crash_text(down.reason) +
               "; retrying with backoff (attempt " + std::to_string(state.queue.num_requeues(key)) +
               ")";
  self->send(state.config.recorder, record_atom::value, std::move(event));
}

}  // namespace

std::function<std::vector<std::string>(const ChangeNotice&)> for_and_owns(
    std::string kind, std::vector<std::string> owned_kinds) {
  return [kind = std::move(kind), owned = std::move(owned_kinds)](const ChangeNotice& notice) {
    std::vector<std::string> keys;
    if (notice.ref.kind == kind) keys.push_back(k8s::object_key(notice.ref));
    if (std::find(owned.begin(), owned.end(), notice.ref.kind) != owned.end()) {
      for (const auto& owner : notice.owners) {
        if (owner.controller && owner.kind == kind)
          keys.push_back(k8s::object_key(notice.ref.ns, owner.name));
      }
    }
    return keys;
  };
}

controller_actor::behavior_type controller(controller_actor::stateful_pointer<ControllerState> self,
                                           ControllerConfig config) {
  self->state.config = std::move(config);
  self->state.stats.name = self->state.config.name;
  if (!self->state.config.keys_for)
    self->state.config.keys_for = for_and_owns(self->state.config.kind, {});
  self->set_down_handler([=](caf::down_msg& down) { on_reconciler_down(self, down); });
  // Reconcilers are monitored, not linked (a crash must not take the controller down), so the
  // controller ends them itself when it is told to stop.
  self->set_exit_handler([=](caf::exit_msg& msg) {
    for (auto& [key, slot] : self->state.reconcilers) {
      if (slot.actor) self->send_exit(slot.actor, caf::exit_reason::user_shutdown);
    }
    self->quit(msg.reason);
  });
  self->delayed_send(self, kReapEvery, reap_atom::value);
  return {
      [=](changed_atom, const ChangeNotice& notice) {
        auto& config = self->state.config;
        for (const auto& key : config.keys_for(notice)) self->state.queue.add(key);
        if (config.extra_keys_for) {
          auto extra = config.cache->read(
              [&](const k8s::CacheView& cache) { return config.extra_keys_for(notice, cache); });
          for (const auto& key : extra) self->state.queue.add(key);
        }
        pump(self);
      },
      [=](enqueue_atom, const std::string& key) {
        self->state.queue.add(key);
        pump(self);
      },
      [=](synced_atom) {
        self->state.synced = true;
        pump(self);
      },
      [=](leading_atom, bool leading) {
        self->state.config.leading = leading;
        pump(self);
      },
      [=](tick_atom) {
        auto& state = self->state;
        if (state.timer_at && SteadyClock::now() >= *state.timer_at) state.timer_at.reset();
        pump(self);
      },
      [=](reap_atom) { reap_idle(self); },
      [=](stats_atom) {
        auto stats = self->state.stats;
        stats.queue_depth = self->state.queue.len();
        stats.in_flight = self->state.in_flight;
        stats.live_reconcilers = self->state.key_by_actor.size();
        return stats;
      },
  };
}

}  // namespace nvcre::actors
