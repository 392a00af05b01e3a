#pragma once
// Blocking work in the actor shell has one home: detached actors, each with a thread of its own
// that the actor system owns and waits for when it shuts down. The API client's workers block in
// one REST call per message; the reflectors' list/watch loops and the leader election's Lease loop
// block for as long as they run, each in one message of a detached actor spawned here. Their owning
// actor tells a loop to stop when it exits; the loop's actor then ends, and the actor system's end
// waits for it, so no loop outlives the actors it messages.
#include <caf/actor_addr.hpp>
#include <caf/fwd.hpp>

#include <functional>
#include <string>

namespace nvcre::actors {

// Runs `loop` on a detached actor that ends when the loop returns. A loop that throws makes
// `owner` fail with "<what> stopped: <the exception's text>" (logged too), so the owner's
// supervisor sees the failure.
void run_blocking_loop(caf::actor_system& system, std::string what, caf::actor_addr owner,
                       std::function<void()> loop);

}  // namespace nvcre::actors
