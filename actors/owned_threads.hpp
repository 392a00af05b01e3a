#pragma once
// The threads the manager's blocking loops run on (reflectors, leader election). Their actors ask
// them to end when they exit; the manager then joins them all before it destroys the actor system,
// so no loop outlives the actors and handles it still holds.
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nvcre::actors {

class OwnedThreads {
 public:
  void start(std::function<void()> body) {
    std::lock_guard lock(mutex_);
    threads_.emplace_back(std::move(body));
  }
  // Waits for every thread started so far. Call only once their loops have been told to stop.
  void join_all() {
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mutex_);
      threads.swap(threads_);
    }
    for (auto& thread : threads) {
      if (thread.joinable()) thread.join();
    }
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

}  // namespace nvcre::actors
