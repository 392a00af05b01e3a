#include "actors/supervisor.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {
namespace {

// An exit reason as an operator reads it: CAF's rendering, e.g. exit_reason(kill, ...) or
// system_error(runtime_error, "what()") for an exception that escaped a handler.
std::string exit_reason_text(const caf::actor_system& system, const caf::error& reason) {
  if (!reason) return "exited normally";
  return system.render(reason);
}

}  // namespace

supervisor_actor::behavior_type supervisor(supervisor_actor::stateful_pointer<SupervisorState> self,
                                           SupervisorConfig config) {
  self->state.config = std::move(config);
  self->set_down_handler([=](caf::down_msg& down) {
    auto& state = self->state;
    auto found = state.names.find(down.source);
    if (found == state.names.end()) return;
    std::string name = std::move(found->second);
    state.names.erase(found);
    if (state.stopping) {
      if (state.names.empty()) self->quit();
      return;
    }
    if (state.config.on_down)
      state.config.on_down(name, exit_reason_text(self->system(), down.reason));
  });
  return {
      [=](supervise_atom, std::string& name, const caf::actor& actor) {
        if (!actor) return;
        self->monitor(actor);
        self->state.names.emplace(actor.address(), std::move(name));
      },
      [=](stopping_atom) {
        // Ends once every supervised actor has: each DOWN of the stop passes through here first.
        self->state.stopping = true;
        if (self->state.names.empty()) self->quit();
        return true;
      },
  };
}

supervisor_actor spawn_supervisor(caf::actor_system& system, SupervisorConfig config) {
  return system.spawn(supervisor, std::move(config));
}

void fail_actor(const caf::actor_addr& actor, std::string reason) {
  auto target = caf::actor_cast<caf::strong_actor_ptr>(actor);
  if (!target) return;  // already gone
  auto error = caf::make_error(caf::sec::runtime_error, std::move(reason));
  target->enqueue(nullptr, caf::make_message_id(),
                  caf::make_message(caf::exit_msg{target->address(), std::move(error)}), nullptr);
}

}  // namespace nvcre::actors
