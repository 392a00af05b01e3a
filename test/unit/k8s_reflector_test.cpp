#include "k8s/reflector.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <set>
#include <string>
#include <vector>

namespace nvcre::k8s {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using TimePoint = std::chrono::steady_clock::time_point;

const TimePoint kT0{};

ReflectedObject object(const std::string& key, const std::string& rv) {
  return {key, rv, boost::json::object{{"key", key}, {"resourceVersion", rv}}};
}

ReflectedEvent event(WatchEventType type, const std::string& key, const std::string& rv) {
  return {type, object(key, rv), {}};
}

ReflectedEvent bookmark(const std::string& rv) {
  return {WatchEventType::Bookmark, {"", rv, nullptr}, {}};
}

ReflectedEvent error_event(int code, const std::string& reason, const std::string& message = "") {
  return {WatchEventType::Error, {}, RequestFailure{code, reason, message, std::nullopt}};
}

// "type:key@rv" per delta, for compact exact comparisons.
std::vector<std::string> describe(const std::vector<Delta>& deltas) {
  std::vector<std::string> out;
  for (const auto& d : deltas) {
    const char* type = d.type == DeltaType::Added     ? "added"
                       : d.type == DeltaType::Updated ? "updated"
                       : d.type == DeltaType::Deleted ? (d.final_state_unknown ? "gone" : "deleted")
                                                      : "replaced";
    out.push_back(std::string(type) + ":" + d.key + "@" + d.resource_version);
  }
  return out;
}

template <typename T>
const T& action_as(const ReflectorStep& step) {
  EXPECT_TRUE(step.action.has_value());
  static const T empty{};
  if (!step.action || !std::holds_alternative<T>(*step.action)) {
    ADD_FAILURE() << "unexpected action kind";
    return empty;
  }
  return std::get<T>(*step.action);
}

void expect_watch_from(const ReflectorStep& step, const std::string& rv) {
  const auto& watch = action_as<WatchRequest>(step);
  EXPECT_EQ(watch.resource_version, rv);
  EXPECT_TRUE(watch.allow_watch_bookmarks);
  EXPECT_GE(watch.timeout_seconds, 300);
  EXPECT_LT(watch.timeout_seconds, 600);
}

// A reflector that has listed {ns/a@1, ns/b@2} at list rv "10" and is watching.
Reflector synced_reflector(std::uint64_t seed = 1) {
  Reflector reflector({}, seed);
  reflector.start(kT0);
  const auto step =
      reflector.on_list_page({{object("ns/a", "1"), object("ns/b", "2")}, "10", ""}, kT0);
  expect_watch_from(step, "10");
  return reflector;
}

TEST(K8sReflector, PaginatedListOfThreePagesThenWatchFromListVersion) {
  Reflector reflector({}, 7);
  EXPECT_FALSE(reflector.has_synced());
  auto step = reflector.start(kT0);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""}));
  EXPECT_TRUE(reflector.start(kT0).deltas.empty());
  EXPECT_FALSE(reflector.start(kT0).action) << "start is one-shot";

  step = reflector.on_list_page({{object("ns/a", "5"), object("ns/b", "6")}, "40", "tok1"}, kT0);
  EXPECT_TRUE(step.deltas.empty()) << "pages are applied only when the list is complete";
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "tok1", ""}));
  step = reflector.on_list_page({{object("ns/c", "7")}, "40", "tok2"}, kT0);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "tok2", ""}));
  EXPECT_FALSE(reflector.has_synced());
  step = reflector.on_list_page({{object("ns/d", "8")}, "42", ""}, kT0);
  EXPECT_EQ(describe(step.deltas),
            (std::vector<std::string>{"added:ns/a@5", "added:ns/b@6", "added:ns/c@7",
                                      "added:ns/d@8", "replaced:@42"}));
  EXPECT_EQ(step.deltas[0].object.as_object().at("key").as_string(), "ns/a");
  expect_watch_from(step, "42");  // the list's resourceVersion, not the newest item's
  EXPECT_TRUE(reflector.has_synced());
  EXPECT_EQ(reflector.phase(), Reflector::Phase::Watching);
  EXPECT_EQ(reflector.known_objects().size(), 4u);
}

TEST(K8sReflector, WatchEventsBecomeDeltasAndAdvanceResourceVersion) {
  Reflector reflector = synced_reflector();
  auto step = reflector.on_watch_event(event(WatchEventType::Added, "ns/c", "11"), kT0);
  EXPECT_EQ(describe(step.deltas), std::vector<std::string>{"added:ns/c@11"});
  EXPECT_FALSE(step.action) << "keep reading the open watch";
  step = reflector.on_watch_event(event(WatchEventType::Modified, "ns/a", "12"), kT0);
  EXPECT_EQ(describe(step.deltas), std::vector<std::string>{"updated:ns/a@12"});
  step = reflector.on_watch_event(event(WatchEventType::Deleted, "ns/b", "13"), kT0);
  EXPECT_EQ(describe(step.deltas), std::vector<std::string>{"deleted:ns/b@13"});
  // A watch delete carries the object's final state.
  EXPECT_EQ(step.deltas[0].object.as_object().at("key").as_string(), "ns/b");
  // ADDED for a key the store has (e.g. replayed after a re-watch) is an update of it.
  step = reflector.on_watch_event(event(WatchEventType::Added, "ns/a", "14"), kT0);
  EXPECT_EQ(describe(step.deltas), std::vector<std::string>{"updated:ns/a@14"});
  EXPECT_EQ(reflector.last_sync_resource_version(), "14");
  EXPECT_EQ(reflector.known_objects(),
            (std::map<std::string, std::string>{{"ns/a", "14"}, {"ns/c", "11"}}));
}

TEST(K8sReflector, BookmarkAdvancesResourceVersionWithoutDelta) {
  Reflector reflector = synced_reflector();
  const auto step = reflector.on_watch_event(bookmark("77"), kT0);
  EXPECT_TRUE(step.deltas.empty());
  EXPECT_FALSE(step.action);
  EXPECT_EQ(reflector.last_sync_resource_version(), "77");
  // Opaque versions: a "smaller-looking" one is still taken as is.
  reflector.on_watch_event(bookmark("9"), kT0);
  EXPECT_EQ(reflector.last_sync_resource_version(), "9");
}

TEST(K8sReflector, NormalCloseRewatchesFromLastVersionWithoutRelist) {
  Reflector reflector = synced_reflector();
  reflector.on_watch_event(event(WatchEventType::Modified, "ns/a", "20"), kT0 + seconds(1));
  reflector.on_watch_event(bookmark("25"), kT0 + minutes(4));
  const auto step = reflector.on_watch_closed(kT0 + minutes(6));
  EXPECT_TRUE(step.deltas.empty());
  expect_watch_from(step, "25");
  EXPECT_EQ(reflector.phase(), Reflector::Phase::Watching);
}

TEST(K8sReflector, VeryShortEmptyWatchBacksOffInsteadOfSpinning) {
  Reflector reflector = synced_reflector();
  auto step = reflector.on_watch_closed(kT0 + milliseconds(10));
  const auto wait = action_as<WaitRequest>(step).duration;
  EXPECT_GE(wait, milliseconds(800));
  EXPECT_LT(wait, milliseconds(1600));
  step = reflector.on_timer(kT0 + milliseconds(10) + wait);
  expect_watch_from(step, "10");
}

TEST(K8sReflector, GoneDuringWatchRelistsAndSurfacesDeletedKeys) {
  Reflector reflector = synced_reflector();
  reflector.on_watch_event(event(WatchEventType::Added, "ns/c", "11"), kT0);
  auto step = reflector.on_watch_event(
      error_event(410, "Expired", "too old resource version: 11 (50)"), kT0 + minutes(1));
  EXPECT_TRUE(step.deltas.empty());
  const auto wait = action_as<WaitRequest>(step).duration;
  EXPECT_EQ(reflector.phase(), Reflector::Phase::WaitingToList);
  EXPECT_EQ(reflector.next_deadline(), kT0 + minutes(1) + wait);

  step = reflector.on_timer(kT0 + minutes(1) + wait);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""})) << "full relist from \"\"";
  // ns/a changed, ns/b and ns/c vanished while we could not watch, ns/d is new.
  step = reflector.on_list_page({{object("ns/a", "60"), object("ns/d", "61")}, "70", ""},
                                kT0 + minutes(2));
  EXPECT_EQ(describe(step.deltas),
            (std::vector<std::string>{"updated:ns/a@60", "added:ns/d@61", "gone:ns/b@2",
                                      "gone:ns/c@11", "replaced:@70"}));
  EXPECT_TRUE(step.deltas[2].object.is_null()) << "tombstone: final state unknown";
  expect_watch_from(step, "70");
  EXPECT_EQ(reflector.known_objects(),
            (std::map<std::string, std::string>{{"ns/a", "60"}, {"ns/d", "61"}}));
}

TEST(K8sReflector, GoneAsWatchRequestErrorAlsoRelists) {
  for (const RequestFailure& gone :
       {RequestFailure{410, "", "", std::nullopt}, RequestFailure{0, "Gone", "", std::nullopt},
        RequestFailure{500, "", "watch: too old resource version: 5 (9)", std::nullopt}}) {
    Reflector reflector = synced_reflector();
    auto step = reflector.on_watch_error(gone, kT0);
    const auto wait = action_as<WaitRequest>(step).duration;
    step = reflector.on_timer(kT0 + wait);
    EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""}));
  }
}

// A stream cut after the watch was healthy (no HTTP status: the connection broke) is re-opened at
// once: with every watch cut after 2 s, backing off each time grew the wait to 30-60 s, and the
// informer missed every change for that long after each cut.
TEST(K8sReflector, AStreamCutAfterAHealthyWatchRewatchesAtOnce) {
  Reflector reflector = synced_reflector();
  reflector.on_watch_event(bookmark("30"), kT0);
  for (int cut = 0; cut < 8; ++cut) {
    const auto step = reflector.on_watch_error({0, "", "connection reset by peer", std::nullopt},
                                               kT0 + seconds(2 * (cut + 1)));
    expect_watch_from(step, "30");
  }
  // Open for 2 s without any event is healthy too (min_healthy_watch is 1 s).
  expect_watch_from(
      reflector.on_watch_error({0, "", "unexpected EOF", std::nullopt}, kT0 + seconds(20)), "30");
}

TEST(K8sReflector, OtherWatchErrorBacksOffThenRewatchesFromLastVersion) {
  Reflector reflector = synced_reflector();
  reflector.on_watch_event(bookmark("30"), kT0);
  auto step =
      reflector.on_watch_error({503, "ServiceUnavailable", "", std::nullopt}, kT0 + seconds(5));
  const auto wait = action_as<WaitRequest>(step).duration;
  EXPECT_GE(wait, milliseconds(800));
  EXPECT_LT(wait, milliseconds(1600));
  EXPECT_EQ(reflector.phase(), Reflector::Phase::WaitingToWatch);
  // An early tick only reports what is left.
  step = reflector.on_timer(kT0 + seconds(5) + milliseconds(100));
  EXPECT_EQ(action_as<WaitRequest>(step).duration, wait - milliseconds(100));
  step = reflector.on_timer(kT0 + seconds(5) + wait);
  EXPECT_TRUE(step.deltas.empty());
  expect_watch_from(step, "30");
  // An ERROR event that is not 410 takes the same path.
  step = reflector.on_watch_event(error_event(500, "InternalError"), kT0 + minutes(1));
  EXPECT_EQ(reflector.phase(), Reflector::Phase::WaitingToWatch);
  step = reflector.on_timer(kT0 + minutes(1) + action_as<WaitRequest>(step).duration);
  expect_watch_from(step, "30");
}

TEST(K8sReflector, BackoffGrowsOnRepeatedFailuresAndResetsAfterTwoHealthyMinutes) {
  Reflector reflector = synced_reflector(3);
  const RequestFailure refused{0, "", "connection refused", std::nullopt};
  TimePoint now = kT0;
  const std::vector<nanoseconds> bases = {milliseconds(800), milliseconds(1600),
                                          milliseconds(3200)};
  for (const nanoseconds base : bases) {
    const auto wait = action_as<WaitRequest>(reflector.on_watch_error(refused, now)).duration;
    EXPECT_GE(wait, base);
    EXPECT_LT(wait, 2 * base);
    now += wait;
    expect_watch_from(reflector.on_timer(now), "10");
  }
  // Healthy for more than 2 minutes (the watch then ends normally and is re-opened), then the new
  // watch is refused: back to the initial 800 ms range.
  now += minutes(2) + seconds(1);
  expect_watch_from(reflector.on_watch_closed(now), "10");
  const auto wait = action_as<WaitRequest>(reflector.on_watch_error(refused, now)).duration;
  EXPECT_GE(wait, milliseconds(800));
  EXPECT_LT(wait, milliseconds(1600));
}

TEST(K8sReflector, RetryAfterLengthensTheBackoff) {
  Reflector reflector = synced_reflector();
  const auto step = reflector.on_watch_error({429, "TooManyRequests", "", seconds(10)}, kT0);
  EXPECT_EQ(action_as<WaitRequest>(step).duration, seconds(10));
}

TEST(K8sReflector, FailedListBacksOffAndNeverAppliesPartialPages) {
  Reflector reflector({}, 4);
  reflector.start(kT0);
  reflector.on_list_page({{object("ns/a", "1")}, "10", "tok"}, kT0);
  auto step = reflector.on_list_error({503, "ServiceUnavailable", "", std::nullopt}, kT0);
  EXPECT_TRUE(step.deltas.empty());
  const auto wait = action_as<WaitRequest>(step).duration;
  EXPECT_EQ(reflector.phase(), Reflector::Phase::WaitingToList);
  step = reflector.on_timer(kT0 + wait);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""}))
      << "restart from the first page";
  step = reflector.on_list_page({{object("ns/b", "2")}, "11", ""}, kT0 + wait);
  EXPECT_EQ(describe(step.deltas), (std::vector<std::string>{"added:ns/b@2", "replaced:@11"}));
}

TEST(K8sReflector, ExpiredContinueTokenRestartsTheListImmediately) {
  Reflector reflector({}, 4);
  reflector.start(kT0);
  reflector.on_list_page({{object("ns/a", "1")}, "10", "tok"}, kT0);
  auto step =
      reflector.on_list_error({410, "Expired", "continue token expired", std::nullopt}, kT0);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""}));
  step = reflector.on_list_page({{object("ns/c", "3")}, "12", ""}, kT0);
  EXPECT_EQ(describe(step.deltas), (std::vector<std::string>{"added:ns/c@3", "replaced:@12"}));
}

TEST(K8sReflector, RelistAbandonsTheOpenWatchAndReplacesTheStoreFromAFreshList) {
  Reflector reflector = synced_reflector();
  auto step = reflector.relist(kT0);
  EXPECT_TRUE(step.deltas.empty());
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""}));
  EXPECT_EQ(reflector.phase(), Reflector::Phase::Listing);
  EXPECT_TRUE(
      reflector.on_watch_event(event(WatchEventType::Added, "ns/x", "11"), kT0).deltas.empty())
      << "events of the abandoned watch are ignored";
  // ns/b was deleted while the watch lagged: only the fresh list tells.
  step = reflector.on_list_page({{object("ns/a", "3"), object("ns/c", "4")}, "20", ""}, kT0);
  EXPECT_EQ(describe(step.deltas), (std::vector<std::string>{"updated:ns/a@3", "added:ns/c@4",
                                                             "gone:ns/b@2", "replaced:@20"}));
  expect_watch_from(step, "20");
}

TEST(K8sReflector, RelistEndsABackoffWaitAndRestartsAListUnderWay) {
  Reflector reflector = synced_reflector();
  auto step = reflector.on_watch_error({503, "ServiceUnavailable", "", std::nullopt}, kT0);
  action_as<WaitRequest>(step);
  step = reflector.relist(kT0);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""}))
      << "no wait: the caller needs the view now";
  step = reflector.on_list_page({{object("ns/a", "5")}, "30", "tok"}, kT0);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "tok", ""}));
  step = reflector.relist(kT0);
  EXPECT_EQ(action_as<ListRequest>(step), (ListRequest{500, "", ""}))
      << "the list under way predates the request: start over from the first page";
  step = reflector.on_list_page({{object("ns/b", "6")}, "31", ""}, kT0);
  EXPECT_EQ(describe(step.deltas),
            (std::vector<std::string>{"updated:ns/b@6", "gone:ns/a@1", "replaced:@31"}))
      << "pages of the abandoned list are never applied";
}

TEST(K8sReflector, WatchTimeoutsAreRandomisedWithinFiveToTenMinutesAndSeeded) {
  auto timeouts = [](std::uint64_t seed) {
    Reflector reflector = synced_reflector(seed);
    std::vector<std::int64_t> out;
    TimePoint now = kT0;
    for (int i = 0; i < 50; ++i) {
      reflector.on_watch_event(bookmark(std::to_string(100 + i)), now);
      now += minutes(5);
      out.push_back(action_as<WatchRequest>(reflector.on_watch_closed(now)).timeout_seconds);
    }
    return out;
  };
  const auto first = timeouts(11);
  EXPECT_EQ(first, timeouts(11)) << "same seed, same timeouts";
  EXPECT_NE(first, timeouts(12));
  const std::set<std::int64_t> distinct(first.begin(), first.end());
  EXPECT_GT(distinct.size(), 10u);
  for (const auto timeout : first) {
    EXPECT_GE(timeout, 300);
    EXPECT_LT(timeout, 600);
  }
}

TEST(K8sReflector, HungWatchIsReopenedAfterTimeoutPlusGrace) {
  Reflector reflector({}, 5);
  reflector.start(kT0);
  const auto step = reflector.on_list_page({{}, "10", ""}, kT0);
  const auto timeout = seconds(action_as<WatchRequest>(step).timeout_seconds);
  ASSERT_EQ(reflector.next_deadline(), kT0 + timeout + seconds(30));
  EXPECT_FALSE(reflector.on_timer(kT0 + timeout).action) << "the server may still close it on time";
  expect_watch_from(reflector.on_timer(kT0 + timeout + seconds(30)), "10");
}

TEST(K8sReflector, InputsForAnAbandonedRequestAreIgnored) {
  Reflector reflector({}, 6);
  EXPECT_FALSE(reflector.on_list_page({{object("ns/x", "1")}, "1", ""}, kT0).action)
      << "not started";
  reflector.start(kT0);
  auto step = reflector.on_watch_event(event(WatchEventType::Added, "ns/x", "2"), kT0);
  EXPECT_TRUE(step.deltas.empty());
  EXPECT_FALSE(step.action);
  EXPECT_FALSE(reflector.on_watch_closed(kT0).action);
  EXPECT_FALSE(reflector.on_timer(kT0).action);
  reflector.on_list_page({{}, "3", ""}, kT0);
  reflector.on_watch_error({500, "", "", std::nullopt}, kT0);
  EXPECT_TRUE(
      reflector.on_watch_event(event(WatchEventType::Added, "ns/y", "4"), kT0).deltas.empty());
  EXPECT_FALSE(reflector.on_list_page({{object("ns/z", "5")}, "5", ""}, kT0).action);
  EXPECT_TRUE(reflector.known_objects().empty());
}

TEST(K8sReflector, ExpiredDetection) {
  EXPECT_TRUE(is_resource_expired({410, "", "", std::nullopt}));
  EXPECT_TRUE(is_resource_expired({0, "Expired", "", std::nullopt}));
  EXPECT_TRUE(is_resource_expired({200, "", "too old resource version: 1 (2)", std::nullopt}));
  EXPECT_FALSE(is_resource_expired({409, "Conflict", "", std::nullopt}));
  EXPECT_FALSE(is_resource_expired({0, "", "connection refused", std::nullopt}));
}

}  // namespace
}  // namespace nvcre::k8s
