// nvcre::k8s::RestClient against an in-process kube-sim: CRUD (ConfigMaps and, after creating the
// CRDs through the client, Certifications), decoded API errors (404, AlreadyExists, 409, 422 with
// causes, 401), list selectors + pagination, status subresource, dry-run, delete preconditions,
// watch (ADDED/MODIFIED/DELETED/BOOKMARK, 410 after compaction), keep-alive reuse, 429 retries,
// shutdown() against a server that does not answer.
#include "k8s/rest_client.hpp"

#include "jsonkit/yaml.hpp"
#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"
#include "test/support/eventually.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <thread>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

const ResourceRef kConfigMaps{"", "v1", "configmaps", true};
const ResourceRef kNamespaces{"", "v1", "namespaces", false};
const ResourceRef kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};
const ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications", true};
const std::string kToken = "it-token-9b2e";

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(NVCRE_SOURCE_DIR) + "/" + relative);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

json::value config_map(const std::string& name, json::object labels = {},
                       const std::string& value = "v") {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}},
                      {"data", json::object{{"key", value}}}};
}

std::string rv_of(const json::value& v) {
  return std::string(v.at("metadata").at("resourceVersion").as_string());
}

template <class Fn>
ApiError expect_api_error(Fn&& fn) {
  try {
    fn();
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "no ApiError";
  return ApiError(0, "", "");
}

class K8sClient : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::KubeSimOptions options;
    options.token = kToken;
    options.api.bookmark_interval = std::chrono::milliseconds(200);
    sim_ = std::make_unique<sim::KubeSim>(options);
    sim_->start();
    ClientConfig config;
    config.server = sim_->url();
    config.bearer_token = kToken;
    config.rate_limit.qps = -1;  // no client-side limit in tests
    client_ = std::make_unique<RestClient>(config);
    client_->create(kNamespaces, "",
                    json::object{{"apiVersion", "v1"},
                                 {"kind", "Namespace"},
                                 {"metadata", json::object{{"name", "it"}}}});
  }
  void TearDown() override {
    client_.reset();
    sim_->stop();
  }

  void create_crds() {
    for (const char* file : {"deploy/crds/nvcre.nvidia.com_certifications.yaml"}) {
      for (auto& doc : nvcre::jsonkit::parse_yaml_documents(read_source(file)))
        client_->create(kCrds, "", doc);
    }
  }

  std::unique_ptr<sim::KubeSim> sim_;
  std::unique_ptr<RestClient> client_;
};

TEST_F(K8sClient, ConfigMapCrudAndDecodedErrors) {
  auto created = client_->create(kConfigMaps, "it", config_map("cm1"));
  EXPECT_EQ(created.at("metadata").at("namespace").as_string(), "it");
  EXPECT_FALSE(created.at("metadata").at("uid").as_string().empty());

  auto got = client_->get(kConfigMaps, "it", "cm1");
  EXPECT_EQ(got.at("data").at("key").as_string(), "v");

  auto exists = expect_api_error([&] { client_->create(kConfigMaps, "it", config_map("cm1")); });
  EXPECT_EQ(exists.code, 409);
  EXPECT_EQ(exists.reason, "AlreadyExists");
  EXPECT_TRUE(is_already_exists(exists));
  EXPECT_FALSE(is_conflict(exists));
  EXPECT_NE(exists.message.find("\"cm1\" already exists"), std::string::npos) << exists.message;

  auto updated_input = got;
  updated_input.at("data").as_object()["key"] = "v2";
  auto updated = client_->update(kConfigMaps, "it", updated_input);
  EXPECT_EQ(updated.at("data").at("key").as_string(), "v2");
  EXPECT_NE(rv_of(updated), rv_of(got));

  // PUT with the stale resourceVersion: 409 Conflict.
  auto stale = got;
  stale.at("data").as_object()["key"] = "v3";
  auto conflict = expect_api_error([&] { client_->update(kConfigMaps, "it", stale); });
  EXPECT_EQ(conflict.code, 409);
  EXPECT_EQ(conflict.reason, "Conflict");
  EXPECT_TRUE(is_conflict(conflict));

  auto merged =
      client_->merge_patch(kConfigMaps, "it", "cm1", json::parse(R"({"data":{"extra":"x"}})"));
  EXPECT_EQ(merged.at("data").at("extra").as_string(), "x");
  EXPECT_EQ(merged.at("data").at("key").as_string(), "v2");
  auto patched =
      client_->json_patch(kConfigMaps, "it", "cm1",
                          json::parse(R"([{"op":"replace","path":"/data/key","value":"jp"}])"));
  EXPECT_EQ(patched.at("data").at("key").as_string(), "jp");

  // Delete with a wrong uid precondition is refused; with the right one it succeeds.
  auto refused = expect_api_error([&] {
    DeleteOptions o;
    o.precondition_resource_version =
        rv_of(got);  // stale (kube-sim checks RV preconditions, not uid)
    client_->remove(kConfigMaps, "it", "cm1", o);
  });
  EXPECT_EQ(refused.code, 409) << refused.what();
  DeleteOptions o;
  o.precondition_resource_version = rv_of(patched);
  o.propagation = PropagationPolicy::Foreground;
  client_->remove(kConfigMaps, "it", "cm1", o);

  auto missing = expect_api_error([&] { client_->get(kConfigMaps, "it", "cm1"); });
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.reason, "NotFound");
  EXPECT_TRUE(is_not_found(missing));
  EXPECT_NE(std::string(missing.what()).find("NotFound"), std::string::npos);

  // Keep-alive: every request above went over the first connection.
  EXPECT_EQ(client_->connections_opened(), 1u);
}

TEST_F(K8sClient, DryRunPersistsNothing) {
  WriteOptions dry;
  dry.dry_run = true;
  auto answer = client_->create(kConfigMaps, "it", config_map("ghost"), dry);
  EXPECT_EQ(answer.at("metadata").at("name").as_string(), "ghost");
  EXPECT_TRUE(is_not_found(expect_api_error([&] { client_->get(kConfigMaps, "it", "ghost"); })));
  client_->create(kConfigMaps, "it", config_map("real"));
  DeleteOptions del;
  del.dry_run = true;
  client_->remove(kConfigMaps, "it", "real", del);
  EXPECT_NO_THROW(client_->get(kConfigMaps, "it", "real"));
  client_->merge_patch(kConfigMaps, "it", "real", json::parse(R"({"data":{"key":"dry"}})"), dry);
  EXPECT_EQ(client_->get(kConfigMaps, "it", "real").at("data").at("key").as_string(), "v");
}

TEST_F(K8sClient, WrongTokenIsUnauthorized) {
  ClientConfig config;
  config.server = sim_->url();
  config.bearer_token = "wrong";
  RestClient other(config);
  auto e = expect_api_error([&] { other.get(kConfigMaps, "it", "x"); });
  EXPECT_EQ(e.code, 401);
  EXPECT_EQ(std::string(e.what()).find("wrong"), std::string::npos);
}

TEST_F(K8sClient, ListWithSelectorsAndPagination) {
  for (int i = 0; i < 5; ++i)
    client_->create(kConfigMaps, "it",
                    config_map("cm" + std::to_string(i), {{"tier", i % 2 ? "odd" : "even"}}));
  auto all = client_->list(kConfigMaps, "it");
  EXPECT_EQ(all.at("items").as_array().size(), 5u);
  EXPECT_FALSE(all.at("metadata").at("resourceVersion").as_string().empty());

  ListOptions even;
  even.label_selector = "tier=even";
  EXPECT_EQ(client_->list(kConfigMaps, "it", even).at("items").as_array().size(), 3u);
  ListOptions set;
  set.label_selector = "tier in (odd),tier!=even";
  EXPECT_EQ(client_->list(kConfigMaps, "it", set).at("items").as_array().size(), 2u);
  ListOptions field;
  field.field_selector = "metadata.name=cm3";
  auto one = client_->list(kConfigMaps, "it", field);
  ASSERT_EQ(one.at("items").as_array().size(), 1u);
  EXPECT_EQ(one.at("items").at(0).at("metadata").at("name").as_string(), "cm3");

  std::vector<std::string> names;
  ListOptions page;
  page.limit = 2;
  int pages = 0;
  do {
    auto result = client_->list(kConfigMaps, "it", page);
    ++pages;
    for (const auto& item : result.at("items").as_array())
      names.emplace_back(item.at("metadata").at("name").as_string());
    const auto* cont = result.at("metadata").as_object().if_contains("continue");
    page.continue_token = cont && cont->is_string() ? std::string(cont->as_string()) : "";
  } while (!page.continue_token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"cm0", "cm1", "cm2", "cm3", "cm4"}));

  // All namespaces.
  EXPECT_EQ(client_->list(kConfigMaps, "").at("items").as_array().size(), 5u);
}

TEST_F(K8sClient, CertificationCrudStatusAndInvalid) {
  create_crds();
  auto crd = client_->get(kCrds, "", "certifications.nvcre.nvidia.com");
  EXPECT_EQ(crd.at("spec").at("group").as_string(), "nvcre.nvidia.com");

  auto cert = nvcre::jsonkit::parse_yaml(read_source("examples/certification.yaml"));
  cert.at("metadata").as_object()["namespace"] = "it";
  auto created = client_->create(kCertifications, "it", cert);
  EXPECT_EQ(created.at("metadata").at("generation").as_int64(), 1);
  auto got = client_->get(kCertifications, "it", "rack7-burnin");
  EXPECT_EQ(got.at("spec").at("gangScheduler").at("queue").as_string(), "burnin");

  // Status subresource: merge patch, then read it back through /status and the object.
  auto status_patch = json::parse(
      R"({"status":{"conditions":[{"type":"Running","status":"True","reason":"Started",)"
      R"("message":"started","lastTransitionTime":"2024-01-01T00:00:00Z"}]}})");
  auto patched = client_->merge_patch_status(kCertifications, "it", "rack7-burnin", status_patch);
  EXPECT_EQ(patched.at("status").at("conditions").at(0).at("type").as_string(), "Running");
  EXPECT_EQ(patched.at("metadata").at("generation").as_int64(),
            1);  // status writes keep generation
  auto via_status = client_->get_status(kCertifications, "it", "rack7-burnin");
  EXPECT_EQ(via_status.at("status").at("conditions").at(0).at("reason").as_string(), "Started");
  // PUT /status ignores spec changes; a stale RV is a conflict there too.
  auto put = via_status;
  put.at("spec").as_object()["testScale"] = "ignored-by-status-put";
  put.at("status").at("conditions").at(0).as_object()["reason"] = "Put";
  auto after_put = client_->update_status(kCertifications, "it", put);
  EXPECT_EQ(after_put.at("spec").at("testScale").as_string(), "intra-rack");
  EXPECT_EQ(after_put.at("status").at("conditions").at(0).at("reason").as_string(), "Put");
  auto stale = expect_api_error([&] { client_->update_status(kCertifications, "it", put); });
  EXPECT_EQ(stale.code, 409);
  EXPECT_EQ(stale.reason, "Conflict");
  // Spec is immutable after creation (a CRD rule): 422, decoded. A label patch keeps generation
  // and status.
  auto immutable = expect_api_error([&] {
    client_->merge_patch(kCertifications, "it", "rack7-burnin",
                         json::parse(R"({"spec":{"timeoutPerJob":"30m"}})"));
  });
  EXPECT_EQ(immutable.code, 422);
  EXPECT_NE(immutable.message.find("spec is immutable"), std::string::npos) << immutable.what();
  auto labelled = client_->merge_patch(kCertifications, "it", "rack7-burnin",
                                       json::parse(R"({"metadata":{"labels":{"x":"y"}}})"));
  EXPECT_EQ(labelled.at("metadata").at("generation").as_int64(), 1);
  EXPECT_EQ(labelled.at("status").at("conditions").at(0).at("reason").as_string(), "Put");

  // 422 Invalid with causes.
  auto bad = cert;
  bad.at("metadata").as_object()["name"] = "bad";
  bad.at("spec").as_object()["categories"] = "not-a-list";
  bad.at("spec").as_object()["timeoutPerJob"] = json::array{1};
  auto invalid = expect_api_error([&] { client_->create(kCertifications, "it", bad); });
  EXPECT_EQ(invalid.code, 422) << invalid.what();
  EXPECT_EQ(invalid.reason, "Invalid");
  EXPECT_TRUE(is_invalid(invalid));
  ASSERT_FALSE(invalid.causes.empty()) << invalid.what();
  bool categories = false;
  for (const auto& c : invalid.causes) {
    EXPECT_FALSE(c.reason.empty());
    EXPECT_FALSE(c.message.empty());
    if (c.field.find("spec.categories") != std::string::npos) categories = true;
  }
  EXPECT_TRUE(categories) << invalid.what();

  client_->remove(kCertifications, "it", "rack7-burnin");
  EXPECT_EQ(client_->list(kCertifications, "it").at("items").as_array().size(), 0u);
}

TEST_F(K8sClient, WatchFromResourceVersionSeesChangesAndBookmark) {
  client_->create(kConfigMaps, "it", config_map("before"));
  auto listed = client_->list(kConfigMaps, "it");
  const std::string from = std::string(listed.at("metadata").at("resourceVersion").as_string());

  std::thread writer([&] {
    ClientConfig config = client_->config();
    RestClient other(config);  // its own client: the watch holds a connection of the first
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    other.create(kConfigMaps, "it", config_map("w1"));
    other.merge_patch(kConfigMaps, "it", "w1", json::parse(R"({"data":{"key":"changed"}})"));
    other.remove(kConfigMaps, "it", "w1");
  });
  std::vector<std::pair<WatchEventType, std::string>> seen;
  std::string last_rv;
  WatchOptions options;
  options.resource_version = from;
  options.timeout_seconds = 20;
  bool bookmark = false;
  client_->watch(kConfigMaps, "it", options, [&](const WatchEvent& e) {
    last_rv = e.resource_version();
    if (e.type == WatchEventType::Bookmark) {
      bookmark = true;
    } else {
      seen.emplace_back(e.type, std::string(e.object.at("metadata").at("name").as_string()));
    }
    const bool deleted = !seen.empty() && seen.back().first == WatchEventType::Deleted;
    return bookmark && deleted ? WatchControl::Stop : WatchControl::Continue;
  });
  writer.join();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(WatchEventType::Added, std::string("w1")));
  EXPECT_EQ(seen[1], std::make_pair(WatchEventType::Modified, std::string("w1")));
  EXPECT_EQ(seen[2], std::make_pair(WatchEventType::Deleted, std::string("w1")));
  EXPECT_TRUE(bookmark);
  EXPECT_FALSE(last_rv.empty());
}

// kube-sim pushes each event to the watches of its type at once, as kube-apiserver does. With the
// watch's own poll an hour away, only that wake-up can deliver these events: writes of another type
// come first, and the second ConfigMap lands within the first's burst gap, so it also needs the gap
// timer. A wake-up routed to the wrong watches leaves this watch silent until the client gives up.
TEST(KubeSimWatch, AWriteWakesTheWatchesOfItsTypeWithoutWaitingForAPoll) {
  sim::KubeSimOptions options;
  options.watch_poll = std::chrono::hours(1);
  sim::KubeSim sim(options);
  sim.start();
  ClientConfig config;
  config.server = sim.url();
  config.rate_limit.qps = -1;
  RestClientOptions bounded;
  bounded.timeout =
      std::chrono::seconds(10);  // the server ends a watch only on a poll: bound it here
  bounded.max_retries = 0;
  RestClient client(config, bounded);
  client.create(
      kNamespaces, "",
      json::object{
          {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", "it"}}}});
  const std::string from = rv_of(client.list(kConfigMaps, "it"));

  std::thread writer([&] {
    RestClient other(config);  // the watch holds the first client's connection
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const ResourceRef secrets{"", "v1", "secrets", true};
    for (const char* name : {"s1", "s2", "s3"}) {
      other.create(secrets, "it",
                   json::object{{"apiVersion", "v1"},
                                {"kind", "Secret"},
                                {"metadata", json::object{{"name", name}}}});
    }
    other.create(kConfigMaps, "it", config_map("first"));
    other.create(kConfigMaps, "it", config_map("second"));
  });
  std::vector<std::string> seen;
  WatchOptions watch;
  watch.resource_version = from;
  watch.timeout_seconds = 20;
  watch.allow_watch_bookmarks = false;
  try {
    client.watch(kConfigMaps, "it", watch, [&](const WatchEvent& e) {
      seen.emplace_back(e.object.at("metadata").at("name").as_string());
      return seen.size() == 2 ? WatchControl::Stop : WatchControl::Continue;
    });
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the watch ended without its events: " << e.what();
  }
  writer.join();
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "second"}));
}

TEST_F(K8sClient, WatchEndsWhenTheServerTimesOut) {
  WatchOptions options;
  options.timeout_seconds = 1;
  options.allow_watch_bookmarks = false;
  int events = 0;
  client_->watch(kConfigMaps, "it", options, [&](const WatchEvent&) {
    ++events;
    return WatchControl::Continue;
  });
  EXPECT_EQ(events, 0);  // nothing in the namespace: no synthetic ADDED, and a clean end
}

TEST_F(K8sClient, WatchAfterCompactionGets410) {
  client_->create(kConfigMaps, "it", config_map("a"));
  const std::string old_rv = rv_of(client_->get(kConfigMaps, "it", "a"));
  client_->merge_patch(kConfigMaps, "it", "a", json::parse(R"({"data":{"key":"b"}})"));
  sim_->api().store().compact();
  WatchOptions options;
  options.resource_version = old_rv;
  options.timeout_seconds = 10;
  std::optional<WatchEvent> error;
  client_->watch(kConfigMaps, "it", options, [&](const WatchEvent& e) {
    if (e.type == WatchEventType::Error) error = e;
    return WatchControl::Continue;  // the server closes the stream after the ERROR
  });
  ASSERT_TRUE(error);
  ASSERT_TRUE(error->error);
  EXPECT_EQ(error->error->code, 410);
  EXPECT_TRUE(error->expired());
}

// DELETE /sim/watches: an open watch ends cleanly at once (its client would resume), and a resume
// from the last resourceVersion it saw, the server's latest, gets 410; a list made afterwards
// gives a version that can be watched again.
TEST_F(K8sClient, ResetWatchesEndsOpenWatchesAndTheirResumeGets410) {
  RestClient watcher(client_->config());
  std::atomic<int> events = 0;
  std::string last_rv;  // written by the watch thread; read after it ended
  auto watching = std::async(std::launch::async, [&] {
    WatchOptions options;
    options.timeout_seconds = 600;  // far beyond the test: only the reset can end it in time
    options.allow_watch_bookmarks = false;
    watcher.watch(kConfigMaps, "it", options, [&](const WatchEvent& e) {
      last_rv = e.resource_version();
      ++events;
      return WatchControl::Continue;
    });
  });
  int written = 0;  // until the watch shows one: it may open after the first writes
  ASSERT_TRUE(test::eventually([&] {
    client_->create(kConfigMaps, "it", config_map("w" + std::to_string(written++)));
    return events.load() > 0;
  }));
  const RestResponse reset = client_->request({"DELETE", "/sim/watches", {}, "", ""});
  ASSERT_EQ(reset.status, 200) << reset.body;
  ASSERT_EQ(watching.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the open watch did not end";
  watching.get();  // a clean end, not an error
  const json::value list = client_->list(kConfigMaps, "it");
  const std::string latest = list.at("metadata").at("resourceVersion").as_string().c_str();
  EXPECT_EQ(latest, json::parse(reset.body).at("resourceVersion").as_string());

  // The resume from the newest version the watch saw (with no write since: plain compaction would
  // still serve it) and from the version the server listed just before the reset.
  for (const std::string& from : {last_rv, std::to_string(std::stoull(latest) - 1)}) {
    WatchOptions options;
    options.resource_version = from;
    options.timeout_seconds = 10;
    std::optional<WatchEvent> error;
    watcher.watch(kConfigMaps, "it", options, [&](const WatchEvent& e) {
      if (e.type == WatchEventType::Error) error = e;
      return WatchControl::Continue;
    });
    ASSERT_TRUE(error) << "resume from " << from;
    EXPECT_TRUE(error->expired()) << "resume from " << from;
  }
  // Relisted: the list's version is watchable (nothing new: a clean end at the timeout).
  WatchOptions options;
  options.resource_version = latest;
  options.timeout_seconds = 1;
  options.allow_watch_bookmarks = false;
  int after = 0;
  watcher.watch(kConfigMaps, "it", options, [&](const WatchEvent&) {
    ++after;
    return WatchControl::Continue;
  });
  EXPECT_EQ(after, 0);
}

TEST_F(K8sClient, WatchRequestErrorsAreApiErrors) {
  const ResourceRef unknown{"nope.example.com", "v1", "widgets", true};
  auto e = expect_api_error([&] {
    client_->watch(unknown, "it", {}, [](const WatchEvent&) { return WatchControl::Continue; });
  });
  EXPECT_EQ(e.code, 404);
}

// Callers that ran at once (the manager's API workers) find their connections again in the next
// burst: the idle pool holds every one of them instead of closing the surplus.
TEST_F(K8sClient, ConcurrentCallersReuseTheirConnectionsInTheNextBurst) {
  client_->create(kConfigMaps, "it", config_map("shared"));
  sim::FaultPlan plan;
  sim::VerbFaults held;
  held.latency_fixed = std::chrono::milliseconds(300);  // keeps every call of a burst open at once
  plan.verbs["get"] = held;
  sim_->api().faults().set_plan(plan);
  RestClient client(client_->config());
  constexpr std::size_t kCallers = 8;
  auto burst = [&] {
    std::vector<std::jthread> callers;
    for (std::size_t i = 0; i < kCallers; ++i)
      callers.emplace_back([&] { client.get(kConfigMaps, "it", "shared"); });
  };
  burst();
  const auto first = client.connections_opened();
  EXPECT_EQ(first, kCallers);
  burst();
  EXPECT_EQ(client.connections_opened(), first);
  EXPECT_EQ(sim_->api().faults().counter("Latency", sim::Verb::Get), 2 * kCallers);
  sim_->api().faults().set_plan({});
}

TEST_F(K8sClient, TooManyRequestsIsRetriedThenReported) {
  sim::FaultPlan plan;
  plan.seed = 1;
  sim::VerbFaults faults;
  faults.errors.push_back(sim::ErrorRule{429, 1.0, 1});
  plan.verbs["get"] = faults;
  sim_->api().faults().set_plan(plan);
  RestClientOptions options;
  options.max_retries = 2;
  RestClient limited(client_->config(), options);
  auto e = expect_api_error([&] { limited.get(kConfigMaps, "it", "x"); });
  EXPECT_EQ(e.code, 429);
  EXPECT_EQ(e.reason, "TooManyRequests");
  EXPECT_EQ(e.retry_after_seconds, 1);
  // One try + two retries, each after the server's Retry-After.
  EXPECT_EQ(sim_->api().faults().counter("TooManyRequests", sim::Verb::Get), 3u);
  sim_->api().faults().set_plan({});
}

// A server that holds its answers (injected latency far beyond the test) must not hold a caller
// once the client shuts down: the request in flight ends at once; a call after a shutdown that
// leaves room for one last write (a Lease release) is bounded by the short timeout given, not the
// client's 30 s; after a plain shutdown, calls fail without sending anything.
TEST_F(K8sClient, ShutdownEndsTheCallInFlightAndBoundsLaterOnes) {
  sim::FaultPlan plan;
  sim::VerbFaults unanswered;
  unanswered.latency_fixed = std::chrono::minutes(10);
  plan.verbs["*"] = unanswered;
  sim_->api().faults().set_plan(plan);
  auto held = [&] { return sim_->api().faults().counter("Latency", sim::Verb::Get); };
  auto failure_of = [](const std::function<void()>& call) -> std::string {
    try {
      call();
      return "answered";
    } catch (const TransportError& e) {
      return e.what();
    }
  };

  RestClient client(client_->config());
  std::promise<std::string> in_flight;
  auto in_flight_failure = in_flight.get_future();
  std::jthread caller(
      [&] { in_flight.set_value(failure_of([&] { client.get(kConfigMaps, "it", "x"); })); });
  ASSERT_TRUE(test::eventually([&] { return held() == 1; }));
  client.shutdown(std::chrono::milliseconds(300));
  // A liveness bound: without shutdown() the call would wait out its 30 s timeout.
  ASSERT_EQ(in_flight_failure.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_NE(in_flight_failure.get().find("GET " + sim_->url() +
                                         "/api/v1/namespaces/it/configmaps/x: cancelled"),
            std::string::npos);

  EXPECT_NE(failure_of([&] { client.get(kConfigMaps, "it", "y"); }).find("timed out after 300ms"),
            std::string::npos);
  EXPECT_EQ(held(), 2u);
  client.shutdown();
  EXPECT_NE(failure_of([&] { client.get(kConfigMaps, "it", "z"); }).find("cancelled"),
            std::string::npos);
  EXPECT_EQ(held(), 2u);
  sim_->api().faults().set_plan({});
}

TEST(RestClientPaths, CoreGroupsNamespacesSubresources) {
  EXPECT_EQ(RestClient::path_for(kConfigMaps, "ns", "n"), "/api/v1/namespaces/ns/configmaps/n");
  EXPECT_EQ(RestClient::path_for(kConfigMaps, ""), "/api/v1/configmaps");
  EXPECT_EQ(RestClient::path_for(kCrds, "ignored", "x"),
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x");
  EXPECT_EQ(RestClient::path_for(kCertifications, "a", "b", "status"),
            "/apis/nvcre.nvidia.com/v1alpha1/namespaces/a/certifications/b/status");
}

TEST(RestClientConfig, BadServerUrlIsAConfigError) {
  ClientConfig config;
  config.server = "ftp://x";
  EXPECT_THROW(RestClient{config}, ConfigError);
}

TEST(RestClientTransport, ConnectionRefusedIsATransportError) {
  ClientConfig config;
  config.server = "http://127.0.0.1:1";
  config.bearer_token = kToken;
  RestClient client(config);
  try {
    client.get(kConfigMaps, "a", "b");
    FAIL();
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("GET http://127.0.0.1:1/api/v1/namespaces/a/configmaps/b"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find(kToken), std::string::npos);
  }
}

}  // namespace
}  // namespace nvcre::k8s

namespace nvcre::k8s {
namespace {

// TLS configuration errors (handshakes against a TLS kube-sim are in tls_test.cpp).
TEST(RestClientTls, BadPemIsAConfigErrorWithoutSecrets) {
  ClientConfig config;
  config.server = "https://127.0.0.1:6443";
  config.ca_data = "not a certificate";
  EXPECT_THROW(RestClient{config}, ConfigError);
  config.ca_data.clear();
  config.insecure_skip_tls_verify = true;
  config.client_cert_data = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
  config.client_key_data = "S3CR3T-KEY-BYTES";
  try {
    RestClient client(config);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).find("S3CR3T"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nvcre::k8s
