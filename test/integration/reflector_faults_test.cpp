// The reflector runner against kube-sim's fault plan: while a writer thread creates, updates and
// deletes ConfigMaps, a store built only from the runner's deltas must come back EQUAL to the
// server's truth (read straight from kube-sim's store, past the faults) after dropped watches,
// forced 410s, 5xx bursts and 429 bursts with Retry-After; pages are small so every relist
// paginates.
#include "k8s/reflector_runner.hpp"

#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const ResourceRef kConfigMaps{"", "v1", "configmaps", true};
const ResourceRef kNamespaces{"", "v1", "namespaces", false};
const sim::ResourceType kConfigMapType{"", "v1", "configmaps", "ConfigMap", true};
const std::string kNs = "rf";
constexpr auto kDeadline = 60s;  // generous: the machine is shared

bool wait_until(const std::function<bool()>& done, std::chrono::nanoseconds deadline = kDeadline) {
  const auto give_up = std::chrono::steady_clock::now() + deadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// The store a controller would build from the deltas (key -> object).
struct Mirror {
  std::mutex mutex;
  std::map<std::string, json::value> objects;
  std::uint64_t replaced = 0;
  std::uint64_t inferred_deletes = 0;  // final state unknown: deleted while not watching

  void apply(std::vector<Delta> batch) {
    std::lock_guard lock(mutex);
    for (auto& delta : batch) {
      switch (delta.type) {
        case DeltaType::Added:
        case DeltaType::Updated:
          objects[delta.key] = std::move(delta.object);
          break;
        case DeltaType::Deleted:
          objects.erase(delta.key);
          if (delta.final_state_unknown) ++inferred_deletes;
          break;
        case DeltaType::Replaced:
          ++replaced;
          break;
      }
    }
  }
  std::map<std::string, json::value> snapshot() {
    std::lock_guard lock(mutex);
    return objects;
  }
  std::uint64_t inferred() {
    std::lock_guard lock(mutex);
    return inferred_deletes;
  }
};

// Creates, updates (merge patch) and deletes ConfigMaps over HTTP, keeping 10..25 alive.
struct Writer {
  explicit Writer(const std::string& url) {
    ClientConfig config;
    config.server = url;
    config.rate_limit.qps = -1;
    client = std::make_unique<RestClient>(config);
  }

  void run(const std::atomic<bool>& quit) {
    while (!quit) {
      const int dice = static_cast<int>(rng() % 100);
      if (live.size() < 10 || (live.size() < 25 && dice < 40)) {
        create();
      } else if (live.size() > 25 || dice >= 75) {
        remove();
      } else {
        update();
      }
      ++ops;
      std::this_thread::sleep_for(2ms);  // a steady stream, not a flood of the single sim thread
    }
  }

  void create() {
    const std::string name = "cm-" + std::to_string(next_id++);
    try {
      client->create(kConfigMaps, kNs,
                     json::object{{"metadata", json::object{{"name", name}}},
                                  {"data", json::object{{"v", "0"}}}});
      live.push_back(name);
    } catch (const ApiError& e) {
      if (is_already_exists(e)) live.push_back(name);
    } catch (const TransportError&) {
    }
  }
  void update() {
    const std::string& name = live[rng() % live.size()];
    try {
      const json::value patch =
          json::object{{"data", json::object{{"v", std::to_string(ops.load())}}}};
      client->merge_patch(kConfigMaps, kNs, name, patch);
    } catch (const std::runtime_error&) {
    }
  }
  void remove() {
    const std::size_t index = rng() % live.size();
    try {
      client->remove(kConfigMaps, kNs, live[index]);
    } catch (const ApiError& e) {
      if (!is_not_found(e)) return;
    } catch (const TransportError&) {
      return;
    }
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(index));
  }

  std::unique_ptr<RestClient> client;
  std::vector<std::string> live;
  std::uint64_t next_id = 0;
  std::atomic<std::uint64_t> ops{0};
  std::mt19937_64 rng{7};
};

class ReflectorFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::KubeSimOptions options;
    options.api.bookmark_interval = 200ms;  // stop() is noticed at the next bookmark
    sim_ = std::make_unique<sim::KubeSim>(options);
    sim_->start();
    writer_ = std::make_unique<Writer>(sim_->url());
    writer_->client->create(kNamespaces, "",
                            json::object{{"metadata", json::object{{"name", kNs}}}});
    for (int i = 0; i < 25; ++i) writer_->create();  // cm-0 .. cm-24

    ClientConfig config;
    config.server = sim_->url();
    config.rate_limit.qps = -1;
    RestClientOptions client_options;
    client_options.max_retries = 0;  // let 429/5xx reach the reflector
    client_options.timeout = 10s;
    client_ = std::make_unique<RestClient>(config, client_options);
  }

  void TearDown() override {
    stop_runner();
    sim_->stop();
  }

  ReflectorRunnerOptions runner_options() const {
    ReflectorRunnerOptions options;
    options.resource = kConfigMaps;
    options.ns = kNs;
    options.seed = 17;
    options.reflector.page_size = 4;           // 10..25 objects: 3..7 pages per list
    options.reflector.min_watch_timeout = 1s;  // normal watch ends are exercised too
    options.reflector.backoff.initial = 20ms;
    options.reflector.backoff.cap = 300ms;
    return options;
  }

  void start_runner(ReflectorRunnerOptions options) {
    runner_ = std::make_unique<ReflectorRunner>(
        *client_, std::move(options),
        [this](std::vector<Delta> batch) { mirror_.apply(std::move(batch)); });
    runner_thread_ = std::thread([this] {
      try {
        runner_->run();
      } catch (const std::exception& e) {
        runner_error_ = e.what();
      }
      runner_done_ = true;
    });
  }

  void stop_runner() {
    if (!runner_thread_.joinable()) return;
    runner_->stop();
    runner_thread_.join();
    EXPECT_EQ(runner_error_, "");
  }

  std::map<std::string, json::value> truth() const {
    std::map<std::string, json::value> out;
    for (auto& item : sim_->api().store().list(kConfigMapType, kNs).items)
      out[kNs + "/" + sim::meta_string(item, "name")] = std::move(item);
    return out;
  }

  bool converged() { return mirror_.snapshot() == truth(); }

  // Keys missing on one side or with different objects (shown with their resourceVersion).
  std::string difference() {
    auto mirror = mirror_.snapshot();
    auto server = truth();
    std::ostringstream out;
    for (const auto& [key, object] : server)
      if (!mirror.contains(key) || mirror[key] != object)
        out << " server:" << key << "@" << sim::meta_string(object, "resourceVersion");
    for (const auto& [key, object] : mirror)
      if (!server.contains(key) || server[key] != object)
        out << " mirror:" << key << "@" << sim::meta_string(object, "resourceVersion");
    return out.str();
  }

  void set_faults(const std::string& plan) {
    sim_->api().faults().set_plan(plan.empty() ? sim::FaultPlan{} : sim::parse_fault_plan(plan));
  }
  std::uint64_t fired(const std::string& kind, sim::Verb verb) const {
    return sim_->api().faults().counter(kind, verb);
  }

  // Runs the writer under `plan` until `done` (and at least 100 writes), then stops the writer and
  // waits, faults still on, for the mirror to catch up with the server.
  void phase(const std::string& name, const std::string& plan, const std::function<bool()>& done) {
    SCOPED_TRACE(name);
    set_faults(plan);
    std::atomic<bool> quit{false};
    const std::uint64_t ops_before = writer_->ops;
    std::thread writing([&] { writer_->run(quit); });
    const bool fired_enough =
        wait_until([&] { return writer_->ops >= ops_before + 100 && done(); });
    quit = true;
    writing.join();
    EXPECT_TRUE(fired_enough) << name << ": the faults did not fire as expected; "
                              << sim_->api().faults().report();
    EXPECT_TRUE(wait_until([&] { return converged(); })) << name << ":" << difference();
    std::cout << "[ reflector ] " << name << ": " << writer_->ops - ops_before
              << " writes, converged" << std::endl;
  }

  std::unique_ptr<sim::KubeSim> sim_;
  std::unique_ptr<Writer> writer_;
  std::unique_ptr<RestClient> client_;
  Mirror mirror_;
  std::unique_ptr<ReflectorRunner> runner_;
  std::thread runner_thread_;
  std::atomic<bool> runner_done_{false};
  std::string runner_error_;
};

TEST_F(ReflectorFaults, StoreConvergesToTheServerThroughDropsGonesAndErrorBursts) {
  using sim::Verb;
  start_runner(runner_options());
  ASSERT_TRUE(wait_until([&] { return runner_->has_synced() && converged(); })) << difference();

  phase("dropped watches", "seed: 11\nverbs:\n  watch: {dropEverySeconds: 1}\n",
        [&] { return fired("WatchDrop", Verb::Watch) >= 1; });
  // Every watch answers 410: changes are only seen through relists, so deletes made in between
  // must surface as final-state-unknown deletes.
  const std::uint64_t inferred_before = mirror_.inferred();
  phase("forced 410", "seed: 12\nverbs:\n  watch: {forceGoneRate: 1}\n", [&] {
    return fired("WatchGone", Verb::Watch) >= 3 && mirror_.inferred() > inferred_before;
  });
  // Some 410s keep relists (and so paginated lists) coming while the 5xx rules fire.
  phase("5xx burst",
        "seed: 13\nverbs:\n"
        "  list: {errors: [{code: 500, rate: 0.1}, {code: 503, rate: 0.1}]}\n"
        "  watch: {errors: [{code: 500, rate: 0.3}, {code: 503, rate: 0.3}], forceGoneRate: 0.5}\n",
        [&] {
          return fired("InternalError", Verb::List) + fired("ServiceUnavailable", Verb::List) >=
                     1 &&
                 fired("InternalError", Verb::Watch) >= 1 &&
                 fired("ServiceUnavailable", Verb::Watch) >= 1;
        });
  phase("429 burst",
        "seed: 14\nverbs:\n"
        "  list: {errors: [{code: 429, rate: 0.1, retryAfterSeconds: 1}]}\n"
        "  watch: {errors: [{code: 429, rate: 0.5, retryAfterSeconds: 1}], forceGoneRate: 0.6}\n",
        [&] {
          return fired("TooManyRequests", Verb::List) >= 1 &&
                 fired("TooManyRequests", Verb::Watch) >= 1;
        });
  const std::uint64_t total_before_mix = sim_->api().faults().total();
  phase(
      "all at once",
      "seed: 15\nverbs:\n"
      "  list: {errors: [{code: 503, rate: 0.05}, {code: 429, rate: 0.05, retryAfterSeconds: 1}]}\n"
      "  watch: {errors: [{code: 500, rate: 0.2}, {code: 429, rate: 0.2, retryAfterSeconds: 1}],"
      " forceGoneRate: 0.2, dropEverySeconds: 1}\n",
      [&] { return sim_->api().faults().total() >= total_before_mix + 3; });

  // Writer stopped, faults cleared: the mirror must equal a fresh read of the server.
  set_faults("");
  ASSERT_TRUE(wait_until([&] { return converged(); })) << difference();
  EXPECT_FALSE(mirror_.snapshot().empty());

  const auto stats = runner_->stats();
  EXPECT_GT(stats.list_pages, stats.lists) << "relists were paginated";
  EXPECT_GE(stats.lists, 5u);
  EXPECT_GT(stats.failures, 0u);
  EXPECT_GT(stats.waits, 0u);
  EXPECT_GT(mirror_.inferred(), 0u) << "deletes made while disconnected surfaced through a relist";
  EXPECT_GE(fired("WatchDrop", Verb::Watch), 1u);
  EXPECT_GE(fired("WatchGone", Verb::Watch), 3u);
  EXPECT_GE(fired("InternalError", Verb::Watch), 1u);
  EXPECT_GE(fired("ServiceUnavailable", Verb::Watch), 1u);
  EXPECT_GE(fired("InternalError", Verb::List) + fired("ServiceUnavailable", Verb::List), 1u);
  EXPECT_GE(fired("TooManyRequests", Verb::List), 1u);
  EXPECT_GE(fired("TooManyRequests", Verb::Watch), 1u);
  std::cout << "[ reflector ] lists=" << stats.lists << " pages=" << stats.list_pages
            << " watches=" << stats.watches << " events=" << stats.watch_events
            << " failures=" << stats.failures << " waits=" << stats.waits
            << " inferred_deletes=" << mirror_.inferred() << " writes=" << writer_->ops << "\n";
}

TEST_F(ReflectorFaults, StopEndsAnIdleWatchAtTheNextBookmark) {
  auto options = runner_options();
  options.reflector.min_watch_timeout = 120s;  // the server would keep the watch open for minutes
  start_runner(std::move(options));
  // Synced and inside a watch that has delivered a bookmark: idle, no writes.
  ASSERT_TRUE(
      wait_until([&] { return runner_->has_synced() && runner_->stats().watch_events >= 1; }));
  const auto stop_at = std::chrono::steady_clock::now();
  runner_->stop();
  // Well before the watch's server-side end (>= 120 s): the stop came from the bookmark check.
  ASSERT_TRUE(wait_until([&] { return runner_done_.load(); }, 30s));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - stop_at);
  std::cout << "[ reflector ] stop() of an idle watch returned after " << took.count() << " ms\n";
  EXPECT_EQ(runner_->stats().watches, 1u);
}

TEST_F(ReflectorFaults, StopInterruptsABackoffWait) {
  set_faults("seed: 16\nverbs:\n  list: {errors: [{code: 503, rate: 1}]}\n");
  auto options = runner_options();
  options.reflector.backoff.initial = 10min;  // a wait that would outlast the test by far
  options.reflector.backoff.cap = 10min;
  start_runner(std::move(options));
  ASSERT_TRUE(wait_until([&] { return runner_->stats().waits >= 1; }));
  runner_->stop();
  ASSERT_TRUE(wait_until([&] { return runner_done_.load(); }, 30s));
  EXPECT_FALSE(runner_->has_synced());
  EXPECT_EQ(runner_->stats().lists, 1u);
}

// A standby's watch can be blind (here: every watch refused, the next try 10 minutes away) while
// objects change; a relist must still give a view no older than the request when it reports done.
TEST_F(ReflectorFaults, RelistGivesAViewNoOlderThanTheRequestWhileTheWatchIsBlind) {
  set_faults("seed: 18\nverbs:\n  watch: {errors: [{code: 503, rate: 1}]}\n");
  auto options = runner_options();
  options.reflector.backoff.initial = 10min;
  options.reflector.backoff.cap = 10min;
  start_runner(std::move(options));
  ASSERT_TRUE(wait_until([&] { return runner_->has_synced() && runner_->stats().waits >= 1; }));
  writer_->remove();
  writer_->update();
  writer_->create();
  ASSERT_FALSE(converged()) << "the changes must not have reached the mirror without the relist";

  std::atomic<int> done{0};
  std::atomic<bool> fresh_when_done{false};
  runner_->request_relist([&] {
    fresh_when_done = converged();  // on the runner's thread, right after the list's deltas
    ++done;
  });
  ASSERT_TRUE(wait_until([&] { return done.load() == 1; }, 30s));
  EXPECT_TRUE(fresh_when_done.load()) << difference();
  EXPECT_EQ(runner_->stats().lists, 2u);
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(done.load(), 1) << "each request is answered once";
}

TEST_F(ReflectorFaults, RelistClosesAnOpenWatchAndWatchingResumesAfterIt) {
  auto options = runner_options();
  options.reflector.min_watch_timeout = 120s;
  start_runner(std::move(options));
  ASSERT_TRUE(
      wait_until([&] { return runner_->has_synced() && runner_->stats().watch_events >= 1; }));
  std::atomic<int> done{0};
  runner_->request_relist([&] { ++done; });
  runner_->request_relist([&] { ++done; });  // two callers, one list may serve both
  ASSERT_TRUE(wait_until([&] { return done.load() == 2; }, 30s));
  EXPECT_GE(runner_->stats().lists, 2u);
  EXPECT_LE(runner_->stats().lists, 3u);
  writer_->create();
  writer_->remove();
  EXPECT_TRUE(wait_until([&] { return converged(); })) << difference();
  EXPECT_EQ(runner_error_, "");
}

TEST_F(ReflectorFaults, ContinuationPagesShowTheFirstPagesSnapshot) {
  // kube-apiserver serves every page of a list at the first page's revision; the reflector relies
  // on it (it watches from that revision afterwards).
  ListOptions first_page;
  first_page.limit = 5;
  auto page = client_->list(kConfigMaps, kNs, first_page);
  const std::string snapshot_rv(page.at("metadata").at("resourceVersion").as_string());
  std::map<std::string, std::string> listed;  // name -> resourceVersion
  for (const auto& item : page.at("items").as_array())
    listed[sim::meta_string(item, "name")] = sim::meta_string(item, "resourceVersion");
  // Change what the next pages cover (names sort as strings: cm-0, cm-1, cm-10, ... cm-9): delete
  // one, update two, add one.
  ASSERT_FALSE(listed.contains("cm-9"));
  writer_->client->remove(kConfigMaps, kNs, "cm-9");
  for (const auto& name : {"cm-20", "cm-24"})
    writer_->client->merge_patch(kConfigMaps, kNs, name,
                                 json::object{{"data", json::object{{"v", "changed"}}}});
  writer_->client->create(kConfigMaps, kNs,
                          json::object{{"metadata", json::object{{"name", "cm-zz"}}}});
  std::string token(page.at("metadata").at("continue").as_string());
  while (!token.empty()) {
    ListOptions next;
    next.limit = 5;
    next.continue_token = token;
    page = client_->list(kConfigMaps, kNs, next);
    EXPECT_EQ(page.at("metadata").at("resourceVersion").as_string(), snapshot_rv);
    for (const auto& item : page.at("items").as_array())
      listed[sim::meta_string(item, "name")] = sim::meta_string(item, "resourceVersion");
    const auto* more = page.at("metadata").as_object().if_contains("continue");
    token = more ? std::string(more->as_string()) : "";
  }
  EXPECT_EQ(listed.size(), 25u);
  EXPECT_TRUE(listed.contains("cm-9"));
  EXPECT_FALSE(listed.contains("cm-zz"));
  for (const auto& [name, rv] : listed)
    EXPECT_LE(std::stoull(rv), std::stoull(snapshot_rv)) << name;

  // Once the log no longer covers the snapshot, a continuation is 410 Expired (compaction).
  auto again = client_->list(kConfigMaps, kNs, first_page);
  writer_->client->merge_patch(kConfigMaps, kNs, "cm-21",
                               json::object{{"data", json::object{{"v", "again"}}}});
  sim_->api().store().compact();
  ListOptions stale;
  stale.limit = 5;
  stale.continue_token = std::string(again.at("metadata").at("continue").as_string());
  try {
    client_->list(kConfigMaps, kNs, stale);
    ADD_FAILURE() << "a continuation behind a compaction must fail";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 410);
    EXPECT_EQ(e.reason, "Expired");
  }
}

}  // namespace
}  // namespace nvcre::k8s
