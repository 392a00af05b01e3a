#include "cli/interrupts.hpp"

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <pthread.h>
#include <unistd.h>

namespace nvcre::cli {
namespace {

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

Interrupts::Interrupts() {
  const sigset_t set = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  watcher_ = std::jthread([this](std::stop_token stop) {
    const sigset_t signals = interrupt_signals();
    const timespec tick{0, 100'000'000};  // how soon the watcher notices its own end
    while (!stop.stop_requested()) {
      if (sigtimedwait(&signals, nullptr, &tick) < 0) continue;
      if (!source_.stop_requested()) {
        source_.request_stop();
        continue;
      }
      static constexpr char kMessage[] =
          "Error: interrupted again during cleanup; what was not yet deleted stays behind\n";
      [[maybe_unused]] auto written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
      std::_Exit(1);
    }
  });
}

Interrupts::~Interrupts() {
  watcher_.request_stop();
  watcher_.join();
  // A signal that arrived after the watcher's last look stays pending; it is the user's Ctrl-C,
  // and unblocking delivers it with its default action, as it would have been without us.
  const sigset_t set = interrupt_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace nvcre::cli
