#include "k8s/work_queue.hpp"

#include <utility>

namespace nvcre::k8s {

WorkQueue::WorkQueue(std::unique_ptr<RateLimiter> limiter) : limiter_(std::move(limiter)) {
  if (!limiter_) limiter_ = make_controller_rate_limiter();
}

void WorkQueue::add(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;  // already waiting for a worker: dedup
  if (processing_.contains(key)) return;   // held: done() re-queues it
  queue_.push_back(key);
}

void WorkQueue::add_after(const std::string& key, Nanos delay, SteadyTime now) {
  if (shutting_down_) return;
  if (delay <= Nanos::zero()) {
    add(key);
    return;
  }
  const SteadyTime ready_at = now + delay;
  if (const auto existing = waiting_by_key_.find(key); existing != waiting_by_key_.end()) {
    if (std::get<0>(*existing->second) <= ready_at) return;  // the earlier request wins
    waiting_.erase(existing->second);
    waiting_by_key_.erase(existing);
  }
  const auto inserted = waiting_.emplace(ready_at, next_sequence_++, key).first;
  waiting_by_key_.emplace(key, inserted);
}

void WorkQueue::add_rate_limited(const std::string& key, SteadyTime now) {
  add_after(key, limiter_->when(key, now), now);
}

void WorkQueue::forget(const std::string& key) { limiter_->forget(key); }

int WorkQueue::num_requeues(const std::string& key) const { return limiter_->num_requeues(key); }

void WorkQueue::advance(SteadyTime now) {
  while (!waiting_.empty()) {
    const auto earliest = waiting_.begin();
    if (std::get<0>(*earliest) > now) break;
    std::string key = std::get<2>(*earliest);
    waiting_by_key_.erase(key);
    waiting_.erase(earliest);
    add(key);
  }
}

std::optional<SteadyTime> WorkQueue::next_ready_at() const {
  if (waiting_.empty()) return std::nullopt;
  return std::get<0>(*waiting_.begin());
}

std::optional<std::string> WorkQueue::get() {
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  return key;
}

std::optional<std::string> WorkQueue::get(SteadyTime now) {
  advance(now);
  return get();
}

void WorkQueue::done(const std::string& key) {
  if (processing_.erase(key) == 0) return;
  // Dirty while held: it was added during processing and must run once more. client-go does
  // this even after shutdown (the add was accepted before), and so do we.
  if (dirty_.contains(key)) queue_.push_back(key);
}

void WorkQueue::shut_down() {
  shutting_down_ = true;
  // client-go's delaying queue stops its timer loop on shutdown, so parked keys never fire.
  waiting_.clear();
  waiting_by_key_.clear();
}

}  // namespace nvcre::k8s
