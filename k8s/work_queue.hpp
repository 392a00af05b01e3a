#pragma once
// The controller work queue with client-go semantics (util/workqueue: Type + delaying +
// rate-limiting layers in one class):
//   - keys, never objects: the reconciler always reads the latest state;
//   - add() de-duplicates: a key waiting in the queue is there once, however often it is added;
//   - at most one holder per key: a key added while a worker holds it (between get and done) is
//     marked dirty and goes back to the queue only at done(), so it is never handed out twice
//     at the same time and any number of events collapse into one more reconcile;
//   - add_after() parks a key until a ready time (the earliest request wins), then add()s it;
//   - add_rate_limited() = add_after(limiter.when(key)); forget()/num_requeues() reach the limiter.
//
// Pure and single-owner: there are no locks, no condition variables and no clock reads. The
// owning actor passes `now`, asks next_ready_at() to schedule its own timer, and treats an empty
// get() as "wait for the next add or timer". Use it from exactly one actor (or test).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>

#include "k8s/rate_limiter.hpp"

namespace nvcre::k8s {

class WorkQueue {
 public:
  // Defaults to client-go's controller limiter: max(5ms*2^n capped at 1000s, 10 qps burst 100).
  explicit WorkQueue(std::unique_ptr<RateLimiter> limiter = make_controller_rate_limiter());

  // Queue `key` for processing now. No-op when it is already waiting (dedup) or after shutdown;
  // deferred to done() when a worker currently holds it.
  void add(const std::string& key);
  // add(key) once `now + delay` is reached. A non-positive delay adds immediately. When the key
  // is already parked, the earlier of the two ready times is kept.
  void add_after(const std::string& key, Nanos delay, SteadyTime now);
  // add_after(key, limiter.when(key, now), now): one more failure for `key`.
  void add_rate_limited(const std::string& key, SteadyTime now);
  // Reset the failure count of `key` (it reconciled successfully). Does not unqueue it.
  void forget(const std::string& key);
  int num_requeues(const std::string& key) const;

  // Move every parked key whose ready time is <= now into the queue, earliest first.
  void advance(SteadyTime now);
  // The earliest ready time of a parked key: when the owner should call advance()/get(now).
  std::optional<SteadyTime> next_ready_at() const;

  // Hand out the oldest ready key and mark it held; nullopt when none is ready. After
  // shut_down() the keys already queued are still handed out (as client-go does), then nullopt.
  std::optional<std::string> get();
  // advance(now), then get().
  std::optional<std::string> get(SteadyTime now);
  // The worker finished `key`: release it, and queue it again if it was added meanwhile.
  // Harmless for a key that is not held.
  void done(const std::string& key);

  // Stop accepting adds and drop every parked (delayed) key; held keys may still call done().
  void shut_down();
  bool shutting_down() const { return shutting_down_; }
  // Shut down and nothing left to hand out nor held: the owner may stop (ShutDownWithDrain).
  bool drained() const { return shutting_down_ && queue_.empty() && processing_.empty(); }

  // Keys ready to be handed out (client-go Len: excludes held and parked keys).
  std::size_t len() const { return queue_.size(); }
  std::size_t num_waiting() const { return waiting_.size(); }
  std::size_t num_processing() const { return processing_.size(); }
  bool is_processing(const std::string& key) const { return processing_.contains(key); }
  bool is_dirty(const std::string& key) const { return dirty_.contains(key); }

 private:
  // A parked key, ordered by ready time then by arrival so equal times stay FIFO.
  using WaitingEntry = std::tuple<SteadyTime, std::uint64_t, std::string>;

  std::unique_ptr<RateLimiter> limiter_;
  std::deque<std::string> queue_;               // ready keys, FIFO; each also in dirty_
  std::unordered_set<std::string> dirty_;       // keys that want (another) processing
  std::unordered_set<std::string> processing_;  // keys held by a worker
  std::set<WaitingEntry> waiting_;  // the ready-time heap (ordered set: cheap re-keying)
  std::map<std::string, std::set<WaitingEntry>::iterator>
      waiting_by_key_;  // at most one entry per key
  std::uint64_t next_sequence_ = 0;
  bool shutting_down_ = false;
};

}  // namespace nvcre::k8s
