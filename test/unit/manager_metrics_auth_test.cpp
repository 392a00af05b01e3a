// The secure metrics endpoint's decision (manager/metrics_auth): the reviews it sends, and 401 /
// 403 / 500 / 200 from the API server's answers, with a recording sender instead of a server. And
// the flags that select it (--metrics-secure default true, --metrics-secure=false, --enable-http2).
#include "manager/flags.hpp"
#include "manager/metrics_auth.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::manager {
namespace {

namespace json = boost::json;

struct Recorder {
  json::value token_answer;
  json::value access_answer;
  bool fail_token = false;
  bool fail_access = false;
  std::vector<json::value> sent;

  ReviewSender sender() {
    return [this](Review review, const json::value& body) {
      sent.push_back(body);
      if (review == Review::Token) {
        if (fail_token) throw std::runtime_error("connection refused");
        return token_answer;
      }
      if (fail_access) throw std::runtime_error("503 Service Unavailable");
      return access_answer;
    };
  }
};

const json::value kAuthenticated = json::parse(R"({"status": {"authenticated": true,
  "user": {"username": "system:serviceaccount:monitoring:prometheus", "uid": "u-1",
           "groups": ["system:serviceaccounts", "system:authenticated"],
           "extra": {"authentication.kubernetes.io/pod-name": ["prom-0"]}}}})");

TEST(MetricsAuth, NoBearerTokenIsUnauthorizedWithoutAskingTheServer) {
  Recorder recorder;
  for (const char* header : {"", "Basic dXNlcjpwYXNz", "Bearer ", "Bearer"}) {
    const auto verdict = authorize_scrape({"GET", "/metrics", header}, recorder.sender());
    EXPECT_EQ(verdict.status, 401) << header;
    EXPECT_EQ(verdict.body, "Unauthorized");
  }
  EXPECT_TRUE(recorder.sent.empty());
}

TEST(MetricsAuth, ARejectedTokenIsUnauthorized) {
  Recorder recorder;
  recorder.token_answer = json::parse(R"({"status": {"authenticated": false}})");
  const auto verdict = authorize_scrape({"GET", "/metrics", "Bearer abc.def"}, recorder.sender());
  EXPECT_EQ(verdict.status, 401);
  ASSERT_EQ(recorder.sent.size(), 1u);
  EXPECT_EQ(recorder.sent[0], json::parse(R"({"apiVersion": "authentication.k8s.io/v1",
    "kind": "TokenReview", "spec": {"token": "abc.def"}})"));
  EXPECT_EQ(verdict.log.find("abc.def"), std::string::npos) << "the token leaked into the log";
}

TEST(MetricsAuth, AUserWithoutGetMetricsIsForbidden) {
  Recorder recorder;
  recorder.token_answer = kAuthenticated;
  recorder.access_answer = json::parse(R"({"status": {"allowed": false}})");
  const auto verdict = authorize_scrape({"GET", "/metrics", "bearer t"}, recorder.sender());
  EXPECT_EQ(verdict.status, 403);
  EXPECT_EQ(verdict.body,
            "Authorization denied for user system:serviceaccount:monitoring:prometheus");
  ASSERT_EQ(recorder.sent.size(), 2u);
  EXPECT_EQ(recorder.sent[1], json::parse(R"({"apiVersion": "authorization.k8s.io/v1",
    "kind": "SubjectAccessReview", "spec": {
      "user": "system:serviceaccount:monitoring:prometheus",
      "groups": ["system:serviceaccounts", "system:authenticated"],
      "nonResourceAttributes": {"path": "/metrics", "verb": "get"}, "uid": "u-1",
      "extra": {"authentication.kubernetes.io/pod-name": ["prom-0"]}}})"));
}

TEST(MetricsAuth, AnAllowedUserGetsTheMetricsAndDeniedWins) {
  Recorder recorder;
  recorder.token_answer = kAuthenticated;
  recorder.access_answer = json::parse(R"({"status": {"allowed": true}})");
  EXPECT_EQ(authorize_scrape({"GET", "/metrics", "Bearer t"}, recorder.sender()).status, 200);
  recorder.access_answer = json::parse(R"({"status": {"allowed": true, "denied": true}})");
  EXPECT_EQ(authorize_scrape({"GET", "/metrics", "Bearer t"}, recorder.sender()).status, 403);
}

TEST(MetricsAuth, FailedReviewsAreNotAllowed) {
  Recorder recorder;
  recorder.fail_token = true;
  EXPECT_EQ(authorize_scrape({"GET", "/metrics", "Bearer t"}, recorder.sender()).status, 401);
  recorder.fail_token = false;
  recorder.token_answer = kAuthenticated;
  recorder.fail_access = true;
  const auto verdict = authorize_scrape({"GET", "/metrics", "Bearer t"}, recorder.sender());
  EXPECT_EQ(verdict.status, 500);
  EXPECT_NE(verdict.log.find("503 Service Unavailable"), std::string::npos);
}

ManagerFlags parse(std::vector<std::string> words) {
  words.insert(words.begin(), "nvcre-manager");
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  ManagerFlags flags;
  EXPECT_EQ(parse_manager_flags(static_cast<int>(argv.size()), argv.data(), flags), -1);
  return flags;
}

TEST(MetricsFlags, SecureByDefaultOffByDefaultAndHttp2Accepted) {
  const auto defaults = parse({});
  EXPECT_EQ(defaults.metrics_bind_address, "0");
  EXPECT_TRUE(defaults.metrics_secure);
  EXPECT_FALSE(defaults.enable_http2);
  EXPECT_EQ(defaults.metrics_cert_name, "tls.crt");
  EXPECT_EQ(defaults.metrics_cert_key, "tls.key");
  const auto insecure = parse({"--metrics-secure=false", "--enable-http2",
                               "--metrics-bind-address=:8080", "--metrics-cert-path", "/certs"});
  EXPECT_FALSE(insecure.metrics_secure);
  EXPECT_TRUE(insecure.enable_http2);
  EXPECT_EQ(insecure.metrics_cert_path, "/certs");
  EXPECT_TRUE(parse({"--metrics-secure"}).metrics_secure);
  EXPECT_TRUE(parse({"--metrics-secure=true"}).metrics_secure);
}

TEST(MetricsFlags, UnknownFlagsStillFail) {
  std::vector<std::string> words{"nvcre-manager", "--metrics-insecure"};
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  ManagerFlags flags;
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse_manager_flags(static_cast<int>(argv.size()), argv.data(), flags), 1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Error: "), std::string::npos) << err;
  EXPECT_NE(err.find("--metrics-insecure"), std::string::npos) << err;
}

}  // namespace
}  // namespace nvcre::manager
