#include "actors/blocking_work.hpp"

#include "actors/messages.hpp"
#include "actors/supervisor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <exception>

namespace nvcre::actors {

void run_blocking_loop(caf::actor_system& system, std::string what, caf::actor_addr owner,
                       std::function<void()> loop) {
  auto runner = system.spawn<caf::detached>(
      [what = std::move(what), owner = std::move(owner),
       loop = std::move(loop)](caf::event_based_actor* self) -> caf::behavior {
        // Run as a message, so the loop blocks this actor's own thread, never a scheduler's.
        self->send(self, run_atom::value);
        return {
            [=](run_atom) {
              try {
                loop();
              } catch (const std::exception& error) {
                spdlog::error("{} stopped: {}", what, error.what());
                fail_actor(owner, what + " stopped: " + error.what());
              }
              self->quit();
            },
        };
      });
  static_cast<void>(runner);
}

}  // namespace nvcre::actors
