// The watch body decoder: events split at every possible byte boundary, CRLF, blank lines,
// ERROR/410 mapping, malformed lines with clear messages.
#include "k8s/watch_stream.hpp"

#include <gtest/gtest.h>

#include <string>

namespace nvcre::k8s {
namespace {

const std::string kBody =
    R"({"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"11"}}})"
    "\n"
    R"({"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"12"},"data":{"k":"v\nw"}}})"
    "\r\n"
    "\n"
    R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"13"}}})"
    "\n"
    R"({"type":"DELETED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"14"}}})"
    "\n"
    R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (14)","reason":"Expired","code":410}})j"
    "\n";

void check(const std::vector<WatchEvent>& events) {
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].type, WatchEventType::Added);
  EXPECT_EQ(events[0].resource_version(), "11");
  EXPECT_EQ(events[1].type, WatchEventType::Modified);
  EXPECT_EQ(events[1].object.at("data").at("k").as_string(), "v\nw");
  EXPECT_EQ(events[2].type, WatchEventType::Bookmark);
  EXPECT_EQ(events[2].resource_version(), "13");
  EXPECT_EQ(events[3].type, WatchEventType::Deleted);
  EXPECT_EQ(events[4].type, WatchEventType::Error);
  ASSERT_TRUE(events[4].error.has_value());
  EXPECT_EQ(events[4].error->code, 410);
  EXPECT_EQ(events[4].error->reason, "Expired");
  EXPECT_TRUE(events[4].expired());
  EXPECT_FALSE(events[0].expired());
}

TEST(WatchDecoder, WholeBody) {
  WatchDecoder d;
  auto events = d.feed(kBody);
  EXPECT_TRUE(d.finish().empty());
  check(events);
}

TEST(WatchDecoder, ByteByByte) {
  WatchDecoder d;
  std::vector<WatchEvent> events;
  for (char c : kBody) {
    for (auto& e : d.feed(std::string_view(&c, 1))) events.push_back(std::move(e));
  }
  EXPECT_EQ(d.buffered(), 0u);
  check(events);
}

TEST(WatchDecoder, EveryTwoChunkSplit) {
  for (std::size_t cut = 0; cut <= kBody.size(); ++cut) {
    WatchDecoder d;
    auto events = d.feed(std::string_view(kBody).substr(0, cut));
    for (auto& e : d.feed(std::string_view(kBody).substr(cut))) events.push_back(std::move(e));
    check(events);
  }
}

TEST(WatchDecoder, FinalLineWithoutNewlineIsDecodedAtFinish) {
  WatchDecoder d;
  EXPECT_TRUE(d.feed(R"({"type":"ADDED","object":{"metadata":{"name":"x"}}})").empty());
  auto events = d.finish();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].object.at("metadata").at("name").as_string(), "x");
}

TEST(WatchDecoder, ErrorWithoutExpiredIsNotGone) {
  auto e = decode_watch_event(
      R"({"type":"ERROR","object":{"kind":"Status","status":"Failure","message":"boom","reason":"InternalError","code":500}})");
  ASSERT_TRUE(e.error);
  EXPECT_EQ(e.error->code, 500);
  EXPECT_EQ(e.error->message, "boom");
  EXPECT_FALSE(e.expired());
}

// An ERROR object that is not a Status still gives its code (and the event keeps the object).
TEST(WatchDecoder, ErrorThatIsNotAStatusKeepsItsCode) {
  auto e = decode_watch_event(R"({"type":"ERROR","object":{"code":410,"message":"gone"}})");
  ASSERT_TRUE(e.error);
  EXPECT_EQ(e.error->code, 410);
  EXPECT_EQ(e.object.at("message").as_string(), "gone");
}

void expect_error(const std::string& body, const std::string& needle) {
  WatchDecoder d;
  try {
    d.feed(body);
    d.finish();
    FAIL() << "no error for " << body;
  } catch (const WatchDecodeError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(WatchDecoder, MalformedLinesNameTheProblem) {
  expect_error("{\"type\":\"ADDED\",\"object\":{}}\nnot json at all\n",
               "line 2 (byte 29): not JSON");
  expect_error("[1,2]\n", "not a JSON object");
  expect_error("{\"object\":{}}\n", "no string \"type\"");
  expect_error("{\"type\":\"RENAMED\",\"object\":{}}\n", "unknown event type \"RENAMED\"");
  expect_error("{\"type\":\"ADDED\"}\n", "ADDED event has no \"object\" object");
  expect_error("{\"type\":\"ADDED\",\"object\":{", "not JSON");  // truncated at end of stream
}

TEST(WatchDecoder, MalformedLineMessageShowsOnlyAShortPrefix) {
  std::string secret(200, 'S');
  WatchDecoder d;
  try {
    d.feed("{\"type\":\"ADDED\",\"object\":{\"data\":\"" + secret + "\"\n");
    FAIL();
  } catch (const WatchDecodeError& e) {
    EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos) << e.what();
  }
}

TEST(WatchDecoder, OverlongLineIsRejected) {
  WatchDecoder d(16);
  EXPECT_THROW(d.feed(std::string(17, 'x')), WatchDecodeError);
}

}  // namespace
}  // namespace nvcre::k8s
