// The reflector runner's JSON -> reflector conversions (the I/O loop itself is exercised against
// kube-sim in test/integration/reflector_faults_test.cpp).
#include "k8s/reflector_runner.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

json::value config_map(const std::string& ns, const std::string& name, const std::string& rv) {
  json::object meta{{"name", name}, {"resourceVersion", rv}};
  if (!ns.empty()) meta["namespace"] = ns;
  return json::object{{"kind", "ConfigMap"}, {"metadata", std::move(meta)}};
}

TEST(K8sReflectorRunner, ObjectKeyIsNamespaceSlashNameOrJustTheName) {
  auto namespaced = to_reflected_object(config_map("team", "a", "7"));
  EXPECT_EQ(namespaced.key, "team/a");
  EXPECT_EQ(namespaced.resource_version, "7");
  EXPECT_EQ(namespaced.object, config_map("team", "a", "7"));

  auto cluster_scoped = to_reflected_object(config_map("", "node-1", "8"));
  EXPECT_EQ(cluster_scoped.key, "node-1");
}

TEST(K8sReflectorRunner, MalformedObjectsGiveEmptyFieldsInsteadOfThrowing) {
  auto no_metadata = to_reflected_object(json::object{{"kind", "ConfigMap"}});
  EXPECT_EQ(no_metadata.key, "");
  EXPECT_EQ(no_metadata.resource_version, "");
  auto not_an_object = to_reflected_object(json::value(42));
  EXPECT_EQ(not_an_object.key, "");
  auto wrong_types = to_reflected_object(
      json::object{{"metadata", json::object{{"name", 3}, {"resourceVersion", 4}}}});
  EXPECT_EQ(wrong_types.key, "");
  EXPECT_EQ(wrong_types.resource_version, "");
}

TEST(K8sReflectorRunner, ListPageCarriesItemsTheListVersionAndTheContinueToken) {
  json::value list =
      json::object{{"kind", "ConfigMapList"},
                   {"metadata", json::object{{"resourceVersion", "42"}, {"continue", "tok"}}},
                   {"items", json::array{config_map("ns", "a", "5"), config_map("ns", "b", "9")}}};
  ListPage page = to_list_page(std::move(list));
  EXPECT_EQ(page.resource_version, "42");
  EXPECT_EQ(page.continue_token, "tok");
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.items[0].key, "ns/a");
  EXPECT_EQ(page.items[1].resource_version, "9");

  ListPage last = to_list_page(json::object{{"metadata", json::object{{"resourceVersion", "43"}}}});
  EXPECT_EQ(last.continue_token, "");
  EXPECT_TRUE(last.items.empty());
}

TEST(K8sReflectorRunner, WatchEventsConvertWithTheirObjectOrStatus) {
  auto modified = to_reflected_event(decode_watch_event(
      R"({"type":"MODIFIED","object":{"metadata":{"namespace":"ns","name":"a","resourceVersion":"11"}}})"));
  EXPECT_EQ(modified.type, WatchEventType::Modified);
  EXPECT_EQ(modified.object.key, "ns/a");
  EXPECT_EQ(modified.object.resource_version, "11");

  auto bookmark = to_reflected_event(decode_watch_event(
      R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"12"}}})"));
  EXPECT_EQ(bookmark.type, WatchEventType::Bookmark);
  EXPECT_EQ(bookmark.object.resource_version, "12");

  auto gone = to_reflected_event(decode_watch_event(
      R"json({"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","code":410,)json"
      R"json("message":"too old resource version: 3 (9)"}})json"));
  EXPECT_EQ(gone.type, WatchEventType::Error);
  EXPECT_EQ(gone.error.code, 410);
  EXPECT_EQ(gone.error.reason, "Expired");
  EXPECT_TRUE(is_resource_expired(gone.error));
}

TEST(K8sReflectorRunner, RetryAfterSecondsBecomesTheFailuresMinimumWait) {
  ApiError throttled(429, "TooManyRequests", "slow down");
  throttled.retry_after_seconds = 3;
  RequestFailure failure = to_request_failure(throttled);
  EXPECT_EQ(failure.code, 429);
  EXPECT_EQ(failure.reason, "TooManyRequests");
  ASSERT_TRUE(failure.retry_after.has_value());
  EXPECT_EQ(*failure.retry_after, std::chrono::seconds(3));

  EXPECT_FALSE(to_request_failure(ApiError(500, "InternalError", "boom")).retry_after.has_value());

  RequestFailure refused =
      to_request_failure(TransportError("GET http://x/api: connection refused"));
  EXPECT_EQ(refused.code, 0);
  EXPECT_EQ(refused.message, "GET http://x/api: connection refused");
}

}  // namespace
}  // namespace nvcre::k8s
