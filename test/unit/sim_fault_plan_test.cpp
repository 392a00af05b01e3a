// kube-sim's fault plan: parsing, request classification, seeded decisions and counters, and the
// request log's ring and counters.
#include "sim/fault_plan.hpp"
#include "sim/request_log.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::sim {
namespace {

namespace json = boost::json;

RequestTarget create_cm() { return RequestTarget{Verb::Create, "", "configmaps", "ns1", "", ""}; }

TEST(SimFaultPlan, ParsesYamlAndRoundTripsAsJson) {
  auto plan = parse_fault_plan(R"(seed: 42
verbs:
  create:
    errors:
    - {code: 503, rate: 0.25}
    - {code: 429, rate: 0.5, retryAfterSeconds: 3}
    latency: {fixedMs: 10, jitterMs: 5}
  watch:
    forceGoneRate: 1
    dropEverySeconds: 4
)");
  EXPECT_EQ(plan.seed, 42u);
  ASSERT_EQ(plan.verbs.at("create").errors.size(), 2u);
  EXPECT_EQ(plan.verbs.at("create").errors[1].retry_after_seconds, 3);
  EXPECT_EQ(plan.verbs.at("watch").watch_drop_seconds, 4);
  auto again = parse_fault_plan(json::serialize(to_json(plan)));  // JSON is accepted too
  EXPECT_EQ(json::serialize(to_json(again)), json::serialize(to_json(plan)));
}

TEST(SimFaultPlan, RejectsBadPlans) {
  auto error_of = [](const std::string& text) {
    try {
      parse_fault_plan(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("verbs: {create: {errors: [{code: 302, rate: 1}]}}").find("4xx or 5xx"),
            std::string::npos);
  EXPECT_NE(error_of("verbs: {create: {errors: [{code: 403, rate: 1, resource: 7}]}}")
                .find("verbs.create.errors[0].resource: must be a non-empty string"),
            std::string::npos);
  EXPECT_NE(error_of("verbs: {create: {errors: [{code: 503, rate: 0.7}, {code: 500, rate: 0.7}]}}")
                .find("more than 1"),
            std::string::npos);
  EXPECT_NE(error_of("verbs: {frobnicate: {}}").find("unknown verb"), std::string::npos);
  EXPECT_NE(error_of("verbs: {get: {forceGoneRate: 1}}").find("verbs.get.forceGoneRate"),
            std::string::npos);
  EXPECT_NE(error_of("verbs: {get: {errors: [{code: 500, rate: 2}]}}").find("between 0 and 1"),
            std::string::npos);
  EXPECT_NE(error_of("seed: -1").find("seed"), std::string::npos);
}

// Rules by resource, namespace and name, with any 4xx / 5xx: only matching requests draw on them.
TEST(SimFaultPlan, RulesForOneResourceOrObjectLeaveTheOthersAlone) {
  FaultInjector injector;
  injector.set_plan(parse_fault_plan(R"(seed: 7
verbs:
  create:
    errors:
    - {code: 403, rate: 1, resource: workflows}
    - {code: 422, rate: 1, resource: configmaps, namespace: team, name: settings}
)"));
  RequestTarget workflow{Verb::Create, "nvcre.nvidia.com", "workflows", "team", "w", ""};
  auto refused = injector.decide(workflow);
  ASSERT_TRUE(refused.error);
  EXPECT_EQ(refused.error->code, 403);
  EXPECT_EQ(refused.error->reason, "Forbidden");
  EXPECT_EQ(refused.error->name, "w");
  RequestTarget settings{Verb::Create, "", "configmaps", "team", "settings", ""};
  EXPECT_EQ(injector.decide(settings).error->reason, "Invalid");
  for (RequestTarget other :
       {RequestTarget{Verb::Create, "", "configmaps", "team", "other", ""},
        RequestTarget{Verb::Create, "", "configmaps", "prod", "settings", ""},
        RequestTarget{Verb::Create, "batch", "jobs", "team", "w", ""},
        RequestTarget{Verb::Get, "nvcre.nvidia.com", "workflows", "team", "w", ""}})
    EXPECT_FALSE(injector.decide(other).error) << other.resource << "/" << other.name;
  EXPECT_EQ(injector.counter("Forbidden", Verb::Create), 1u);
  EXPECT_EQ(injector.counter("Invalid", Verb::Create), 1u);
  // The filters survive the JSON round trip that GET / PUT /sim/faults use.
  EXPECT_EQ(to_json(parse_fault_plan(json::serialize(to_json(injector.plan())))),
            to_json(injector.plan()));
}

// Latency for one object: only its requests wait, and the filter survives the JSON round trip.
TEST(SimFaultPlan, LatencyForOneObjectDelaysOnlyItsRequests) {
  FaultInjector injector;
  injector.set_plan(parse_fault_plan(R"(seed: 3
verbs:
  patch:
    latency: {fixedMs: 500, resource: workflows, namespace: team, name: slow}
)"));
  RequestTarget slow{Verb::Patch, "nvcre.nvidia.com", "workflows", "team", "slow", "status"};
  EXPECT_EQ(injector.decide(slow).delay, std::chrono::milliseconds(500));
  for (RequestTarget other :
       {RequestTarget{Verb::Patch, "nvcre.nvidia.com", "workflows", "team", "fast", "status"},
        RequestTarget{Verb::Patch, "nvcre.nvidia.com", "jobs", "team", "slow", ""},
        RequestTarget{Verb::Patch, "nvcre.nvidia.com", "workflows", "prod", "slow", ""},
        RequestTarget{Verb::Update, "nvcre.nvidia.com", "workflows", "team", "slow", ""}})
    EXPECT_EQ(injector.decide(other).delay, std::chrono::milliseconds(0))
        << other.resource << "/" << other.ns << "/" << other.name;
  EXPECT_EQ(injector.counter("Latency", Verb::Patch), 1u);
  EXPECT_EQ(to_json(parse_fault_plan(json::serialize(to_json(injector.plan())))),
            to_json(injector.plan()));
  EXPECT_EQ(
      json::serialize(to_json(injector.plan()).at("verbs").at("patch").at("latency")),
      R"({"fixedMs":500,"jitterMs":0,"resource":"workflows","namespace":"team","name":"slow"})");
  try {
    parse_fault_plan("verbs: {get: {latency: {fixedMs: 1, name: ''}}}");
    FAIL() << "an empty name was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("verbs.get.latency.name: must be a non-empty string"),
              std::string::npos)
        << error.what();
  }
}

TEST(SimFaultPlan, ClassifiesRequests) {
  std::map<std::string, std::string> none, watch{{"watch", "1"}};
  auto get = classify_request("GET", "/api/v1/namespaces/ns1/configmaps/a", none);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->verb, Verb::Get);
  EXPECT_EQ(get->ns, "ns1");
  EXPECT_EQ(get->name, "a");
  EXPECT_EQ(classify_request("GET", "/apis/nvcre.nvidia.com/v1alpha1/certifications", none)->verb,
            Verb::List);
  EXPECT_EQ(classify_request("GET", "/apis/nvcre.nvidia.com/v1alpha1/certifications", watch)->verb,
            Verb::Watch);
  auto ns = classify_request("DELETE", "/api/v1/namespaces/ns1", none);
  EXPECT_EQ(ns->resource, "namespaces");
  EXPECT_EQ(ns->name, "ns1");
  EXPECT_EQ(ns->verb, Verb::Delete);
  auto status = classify_request("PATCH", "/apis/g/v1/namespaces/n/things/x/status", none);
  EXPECT_EQ(status->verb, Verb::Patch);
  EXPECT_EQ(status->subresource, "status");
  EXPECT_EQ(classify_request("POST", "/api/v1/namespaces/n/configmaps", none)->verb, Verb::Create);
  EXPECT_EQ(classify_request("PUT", "/api/v1/namespaces/n/configmaps/a", none)->verb, Verb::Update);
  EXPECT_FALSE(classify_request("GET", "/api/v1", none));  // discovery
  EXPECT_FALSE(classify_request("GET", "/apis/nvcre.nvidia.com/v1alpha1", none));
  EXPECT_FALSE(classify_request("GET", "/version", none));
  EXPECT_FALSE(classify_request("GET", "/sim/faults", none));
}

TEST(SimFaultPlan, AlwaysFailingCreateIsAServiceUnavailableStatus) {
  FaultInjector faults;
  faults.set_plan(parse_fault_plan("seed: 1\nverbs: {create: {errors: [{code: 503, rate: 1}]}}"));
  for (int i = 0; i < 5; ++i) {
    auto decision = faults.decide(create_cm());
    ASSERT_TRUE(decision.error);
    EXPECT_EQ(decision.error->code, 503);
    EXPECT_EQ(decision.error->reason, "ServiceUnavailable");
  }
  EXPECT_FALSE(faults.decide(RequestTarget{Verb::Get, "", "configmaps", "ns1", "a", ""}).error);
  EXPECT_EQ(faults.counter("ServiceUnavailable", Verb::Create), 5u);
  EXPECT_EQ(faults.counter("ServiceUnavailable", Verb::Get), 0u);
  EXPECT_EQ(faults.total(), 5u);
  auto report = faults.report();
  EXPECT_EQ(report.at("counters").at("ServiceUnavailable").at("create"), 5);
  EXPECT_EQ(report.at("plan").at("seed"), 1);
}

TEST(SimFaultPlan, TooManyRequestsCarriesRetryAfter) {
  FaultInjector faults;
  faults.set_plan(
      parse_fault_plan("verbs: {'*': {errors: [{code: 429, rate: 1, retryAfterSeconds: 7}]}}"));
  auto decision = faults.decide(RequestTarget{Verb::List, "nvcre.nvidia.com", "jobs", "", "", ""});
  ASSERT_TRUE(decision.error);
  EXPECT_EQ(decision.error->code, 429);
  auto status = decision.error->to_status();
  EXPECT_EQ(status.at("reason"), "TooManyRequests");
  EXPECT_EQ(status.at("details").at("retryAfterSeconds"), 7);
  // 429 without retryAfterSeconds defaults to 1 s.
  EXPECT_EQ(parse_fault_plan("verbs: {get: {errors: [{code: 429, rate: 1}]}}")
                .verbs.at("get")
                .errors[0]
                .retry_after_seconds,
            1);
}

TEST(SimFaultPlan, ConflictNamesTheObject) {
  auto error = injected_error(
      ErrorRule{409, 1, 0}, RequestTarget{Verb::Update, "nvcre.nvidia.com", "jobs", "n", "j1", ""});
  EXPECT_EQ(error.code, 409);
  EXPECT_EQ(error.reason, "Conflict");
  EXPECT_NE(std::string(error.what())
                .find("Operation cannot be fulfilled on jobs.nvcre.nvidia.com \"j1\""),
            std::string::npos);
  EXPECT_EQ(injected_error(ErrorRule{500, 1, 0}, create_cm()).reason, "InternalError");
}

TEST(SimFaultPlan, AFixedSeedRepeatsTheSameDecisions) {
  const auto plan = parse_fault_plan(
      "seed: 1234\nverbs: {'*': {errors: [{code: 500, rate: 0.2}, {code: 409, rate: 0.1}], "
      "latency: {fixedMs: 5, jitterMs: 10}}}");
  auto sequence = [&] {
    FaultInjector faults;
    faults.set_plan(plan);
    std::vector<std::pair<int, long long>> out;
    for (int i = 0; i < 200; ++i) {
      auto d = faults.decide(create_cm());
      out.emplace_back(d.error ? d.error->code : 0, d.delay.count());
    }
    return out;
  };
  auto first = sequence();
  EXPECT_EQ(first, sequence());
  int errors500 = 0, errors409 = 0;
  for (const auto& [code, delay] : first) {
    errors500 += code == 500;
    errors409 += code == 409;
    EXPECT_GE(delay, 5);
    EXPECT_LE(delay, 15);
  }
  // Rates hold roughly (200 draws): 20% and 10%.
  EXPECT_GT(errors500, 20);
  EXPECT_LT(errors500, 65);
  EXPECT_GT(errors409, 5);
  EXPECT_LT(errors409, 40);
  // Setting the plan again reseeds: the same sequence once more.
  FaultInjector again;
  again.set_plan(plan);
  again.decide(create_cm());
  again.set_plan(plan);
  auto d = again.decide(create_cm());
  EXPECT_EQ(d.error ? d.error->code : 0, first[0].first);
}

TEST(SimFaultPlan, WatchFaults) {
  FaultInjector faults;
  faults.set_plan(
      parse_fault_plan("seed: 3\nverbs: {watch: {forceGoneRate: 1, dropEverySeconds: 9}}"));
  auto decision = faults.decide(RequestTarget{Verb::Watch, "", "configmaps", "", "", ""});
  EXPECT_FALSE(decision.error);
  EXPECT_TRUE(decision.watch_gone);
  EXPECT_EQ(decision.watch_drop_after, std::chrono::seconds(9));
  faults.count("WatchDrop", Verb::Watch);
  EXPECT_EQ(faults.counter("WatchGone", Verb::Watch), 1u);
  EXPECT_EQ(faults.counter("WatchDrop", Verb::Watch), 1u);
  EXPECT_FALSE(faults.decide(create_cm()).watch_gone);  // not a watch
}

TEST(SimFaultPlan, EmptyPlanInjectsNothing) {
  FaultInjector faults;
  auto d = faults.decide(create_cm());
  EXPECT_FALSE(d.error);
  EXPECT_EQ(d.delay.count(), 0);
  EXPECT_EQ(faults.total(), 0u);
}

TEST(SimRequestLog, RingIsBoundedAndCountersAreNot) {
  RequestLog log(3);
  for (int i = 0; i < 5; ++i)
    log.record(RequestRecord{"GET", "/api/v1/namespaces/n/configmaps/c" + std::to_string(i), "get",
                             i < 4 ? 200 : 404, std::chrono::microseconds(1500), false});
  EXPECT_EQ(log.requests("get", 200), 4u);
  EXPECT_EQ(log.requests("get", 404), 1u);
  auto stats = log.stats();
  EXPECT_EQ(stats.at("total"), 5);
  ASSERT_EQ(stats.at("log").as_array().size(), 3u);
  EXPECT_EQ(stats.at("log").at(2).at("path"), "/api/v1/namespaces/n/configmaps/c4");
  EXPECT_EQ(stats.at("log").at(2).at("latencyMs"), 1.5);
  EXPECT_EQ(stats.at("requests").at("get").at("404"), 1);
  EXPECT_EQ(log.stats(1).at("log").as_array().size(), 1u);
}

TEST(SimRequestLog, CountsCreatesPerName) {
  RequestLog log;
  log.record_create("jobs.nvcre.nvidia.com", "n", "a", true);
  log.record_create("jobs.nvcre.nvidia.com", "n", "a", false);
  log.record_create("jobs.nvcre.nvidia.com", "n", "b", true);
  EXPECT_EQ(log.create_attempts("jobs.nvcre.nvidia.com", "n", "a"), 2u);
  auto stats = log.stats();
  ASSERT_EQ(stats.at("duplicateCreates").as_array().size(), 1u);
  EXPECT_EQ(stats.at("duplicateCreates").at(0).at("name"), "a");
  EXPECT_EQ(stats.at("duplicateCreates").at(0).at("created"), 1);
  EXPECT_EQ(stats.at("creates").as_array().size(), 2u);
  log.reset();
  EXPECT_EQ(log.create_attempts("jobs.nvcre.nvidia.com", "n", "a"), 0u);
}

}  // namespace
}  // namespace nvcre::sim
