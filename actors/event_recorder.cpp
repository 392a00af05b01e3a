#include "actors/event_recorder.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace nvcre::actors {
namespace {

struct EventRecorderState {
  EventRecorderConfig config;
  std::uint64_t sequence = 0;
  std::uint64_t failed = 0;
  static inline const char* name = "event_recorder";
};

event_recorder_actor::behavior_type event_recorder(
    event_recorder_actor::stateful_pointer<EventRecorderState> self, EventRecorderConfig config) {
  self->state.config = std::move(config);
  return {
      [=](record_atom, const k8s::EventRecord& record) {
        auto& state = self->state;
        auto event =
            k8s::build_event(record, state.config.clock(), state.config.source, ++state.sequence);
        k8s::ObjectRef target{"events.k8s.io/v1", "Event",
                              std::string(event.at("metadata").at("namespace").as_string()),
                              std::string(event.at("metadata").at("name").as_string())};
        spdlog::info("event {} {} {}: {}", record.type, k8s::to_string(record.regarding),
                     record.reason, k8s::sanitize_event_note(record.note));
        self->request(state.config.api, caf::infinite, execute_atom::value,
                      k8s::make_action(k8s::ActionVerb::Create, target, std::move(event)))
            .then(
                [=](k8s::ActionResult& result) {
                  if (!result.ok()) {
                    ++self->state.failed;
                    spdlog::warn("recording event on {} failed: {}",
                                 k8s::to_string(record.regarding), result.message);
                  }
                },
                [=](caf::error&) { ++self->state.failed; });
      },
  };
}

}  // namespace

event_recorder_actor spawn_event_recorder(caf::actor_system& system, EventRecorderConfig config) {
  return system.spawn(event_recorder, std::move(config));
}

}  // namespace nvcre::actors
