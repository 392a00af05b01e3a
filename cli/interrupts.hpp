#pragma once
// SIGINT / SIGTERM as a stop request, for the commands that must clean up what they created:
// while an Interrupts object lives, both signals are blocked in every thread and a watcher thread
// takes them (sigtimedwait), so no code runs in a signal handler. The first one requests a stop
// (the watch loop sees it and ends, then cleanup runs); a second one while cleaning up exits at
// once with status 1, for a user who would rather leave things behind than wait.
//
// Construct it before any other thread is started: threads inherit the blocked mask.
#include <atomic>
#include <stop_token>
#include <thread>

namespace nvcre::cli {

class Interrupts {
 public:
  Interrupts();
  ~Interrupts();
  Interrupts(const Interrupts&) = delete;
  Interrupts& operator=(const Interrupts&) = delete;

  std::stop_token token() const { return source_.get_token(); }
  bool interrupted() const { return source_.stop_requested(); }

 private:
  std::stop_source source_;
  std::jthread watcher_;
};

}  // namespace nvcre::cli
