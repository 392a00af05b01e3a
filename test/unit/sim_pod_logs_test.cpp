// kube-sim's pod logs: kept per pod, uid and container with the time of each line, forgotten with
// the pod; and GET pods/<name>/log's options (sim/log_query.hpp) as the API server and kubelet
// apply them.
#include "sim/api_error.hpp"
#include "sim/log_query.hpp"
#include "sim/pod_logs.hpp"

#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::sim {
namespace {

using Clock = std::chrono::system_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

Clock::time_point at(const char* text) { return *k8s::parse_rfc3339(text); }

std::vector<LogLine> lines_at(const char* time, const char* text) {
  return split_log_lines(text, at(time));
}

TEST(SimPodLogs, ALogIsReadByItsPodUidAndContainerAndForgottenWithThePod) {
  PodLogs logs;
  logs.append("ns", "worker-0", "uid-1", "node", lines_at("2026-12-03T12:00:00Z", "line one\n"));
  logs.append("ns", "worker-1", "uid-2", "node", lines_at("2026-12-03T12:00:00Z", "line two\n"));
  logs.append("ns", "worker-0", "uid-1", "sidecar", lines_at("2026-12-03T12:00:00Z", "side\n"));
  ASSERT_EQ(logs.lines("ns", "worker-0", "uid-1", "node").size(), 1u);
  EXPECT_EQ(logs.lines("ns", "worker-0", "uid-1", "node")[0].text, "line one");
  EXPECT_EQ(logs.lines("ns", "worker-0", "uid-1", "sidecar")[0].text, "side");
  EXPECT_TRUE(logs.lines("other", "worker-0", "uid-1", "node").empty());
  EXPECT_TRUE(logs.lines("ns", "worker-0", "uid-9", "node").empty())
      << "a pod created again under the same name";

  // The container writes more later: the log grows, each line with its own time.
  logs.append("ns", "worker-0", "uid-1", "node", lines_at("2026-12-03T12:00:05Z", "line three\n"));
  const auto grown = logs.lines("ns", "worker-0", "uid-1", "node");
  ASSERT_EQ(grown.size(), 2u);
  EXPECT_EQ(grown[1].text, "line three");
  EXPECT_EQ(grown[1].time, at("2026-12-03T12:00:05Z"));

  logs.keep_only({"uid-2"});  // worker-0 was deleted
  EXPECT_EQ(logs.size(), 1u);
  EXPECT_TRUE(logs.lines("ns", "worker-0", "uid-1", "node").empty());
  EXPECT_EQ(logs.lines("ns", "worker-1", "uid-2", "node")[0].text, "line two");
}

TEST(SimPodLogs, AReplacedLogTakesNoMoreSimulatedLines) {
  PodLogs logs;
  logs.append("ns", "p", "uid", "node", lines_at("2026-12-03T12:00:00Z", "simulated\n"));
  logs.replace("ns", "p", "uid", "node", lines_at("2026-12-03T12:00:01Z", "captured\n"));
  EXPECT_FALSE(logs.append("ns", "p", "uid", "node", lines_at("2026-12-03T12:00:02Z", "later\n")));
  const auto lines = logs.lines("ns", "p", "uid", "node");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "captured");
}

TEST(SimPodLogs, SplitKeepsALastLineWithoutNewline) {
  const auto lines = split_log_lines("a\n\nb", Clock::time_point{});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].text, "");
  EXPECT_EQ(lines[2].text, "b");
}

// Three lines a second apart, the second with a fraction.
std::vector<LogLine> sample() {
  return {{at("2026-12-03T12:00:01Z"), "first"},
          {at("2026-12-03T12:00:02.5Z"), "second"},
          {at("2026-12-03T12:00:03Z"), "third"}};
}

PodLogOptions options_of(std::map<std::string, std::string> query) {
  return parse_pod_log_options(query, "p");
}

TEST(SimPodLogQuery, TimestampsAreTheKubeletsNineDigitUtcPrefix) {
  EXPECT_EQ(kubelet_timestamp(at("2026-12-03T12:00:01.123456789Z")),
            "2026-12-03T12:00:01.123456789Z");
  EXPECT_EQ(kubelet_timestamp(at("2026-12-03T13:00:01+01:00")), "2026-12-03T12:00:01.000000000Z");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"timestamps", "true"}}), Clock::time_point{}),
            "2026-12-03T12:00:01.000000000Z first\n2026-12-03T12:00:02.500000000Z second\n"
            "2026-12-03T12:00:03.000000000Z third\n");
  EXPECT_EQ(render_pod_log(sample(), options_of({}), Clock::time_point{}),
            "first\nsecond\nthird\n");
}

TEST(SimPodLogQuery, SinceTimeKeepsLinesAtOrAfterItsSecond) {
  // The kubelet gets sinceTime with second precision: 12:00:02.9 reads as 12:00:02.
  EXPECT_EQ(render_pod_log(sample(), options_of({{"sinceTime", "2026-12-03T12:00:02.9Z"}}), {}),
            "second\nthird\n");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"sinceTime", "2026-12-03T12:00:03Z"}}), {}),
            "third\n");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"sinceTime", "2026-12-03T12:00:04Z"}}), {}), "");
}

TEST(SimPodLogQuery, SinceSecondsCountsBackFromNow) {
  const auto now = at("2026-12-03T12:00:04Z");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"sinceSeconds", "2"}}), now), "second\nthird\n");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"sinceSeconds", "1"}}), now), "third\n");
}

TEST(SimPodLogQuery, TailThenSinceThenLimitBytesMidLine) {
  EXPECT_EQ(render_pod_log(sample(), options_of({{"tailLines", "2"}}), {}), "second\nthird\n");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"tailLines", "0"}}), {}), "");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"tailLines", "9"}}), {}),
            "first\nsecond\nthird\n");
  // Tail picks the last lines first; since then filters them, as the kubelet reads its file.
  EXPECT_EQ(
      render_pod_log(sample(),
                     options_of({{"tailLines", "2"}, {"sinceTime", "2026-12-03T12:00:03Z"}}), {}),
      "third\n");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"limitBytes", "9"}}), {}), "first\nsec");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"limitBytes", "6"}}), {}), "first\n");
  EXPECT_EQ(render_pod_log(sample(), options_of({{"limitBytes", "34"}, {"timestamps", "1"}}), {}),
            "2026-12-03T12:00:01.000000000Z fir");
}

int error_code(std::map<std::string, std::string> query, std::string* message = nullptr) {
  try {
    parse_pod_log_options(query, "p");
  } catch (const ApiError& error) {
    if (message) *message = error.what();
    return error.code;
  }
  return 0;
}

TEST(SimPodLogQuery, BadOptionsAnswerAsTheApiServer) {
  std::string message;
  EXPECT_EQ(error_code({{"sinceTime", "yesterday"}}, &message), 400);
  EXPECT_NE(message.find("parsing time \"yesterday\""), std::string::npos) << message;
  EXPECT_EQ(error_code({{"tailLines", "ten"}}, &message), 400);
  EXPECT_EQ(message, "strconv.ParseInt: parsing \"ten\": invalid syntax");
  EXPECT_EQ(error_code({{"timestamps", "yes"}}), 0) << "any boolean but 0/false is true";
  EXPECT_EQ(error_code({{"tailLines", "-1"}}, &message), 422);
  EXPECT_EQ(message,
            "PodLogOptions \"p\" is invalid: tailLines: Invalid value: -1: must be greater than or "
            "equal to 0");
  EXPECT_EQ(error_code({{"limitBytes", "0"}}), 422);
  EXPECT_EQ(error_code({{"sinceSeconds", "0"}}), 422);
  EXPECT_EQ(error_code({{"sinceSeconds", "5"}, {"sinceTime", "2026-12-03T12:00:00Z"}}, &message),
            422);
  EXPECT_NE(message.find("at most one of `sinceTime` or `sinceSeconds` may be specified"),
            std::string::npos)
      << message;
  EXPECT_EQ(error_code({{"sinceTime", ""}, {"tailLines", ""}}), 0) << "empty values are unset";
}

TEST(SimPodLogQuery, TheContainerIsTheNamedOneOrTheOnlyOne) {
  const auto pod = boost::json::parse(R"({"metadata": {"name": "p"}, "spec": {
      "initContainers": [{"name": "init"}],
      "containers": [{"name": "node"}, {"name": "sidecar"}]}})");
  EXPECT_EQ(resolve_log_container(pod, "sidecar"), "sidecar");
  EXPECT_EQ(resolve_log_container(pod, "init"), "init");
  try {
    resolve_log_container(pod, "");
    FAIL() << "two containers and none named";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 400);
    EXPECT_EQ(std::string(error.what()),
              "a container name must be specified for pod p, choose one of: [node sidecar] or one "
              "of the init containers: [init]");
  }
  try {
    resolve_log_container(pod, "ghost");
    FAIL() << "no such container";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 400);
    EXPECT_EQ(std::string(error.what()), "container ghost is not valid for pod p");
  }
  const auto single = boost::json::parse(R"({"spec": {"containers": [{"name": "only"}]}})");
  EXPECT_EQ(resolve_log_container(single, ""), "only");
}

TEST(SimPodLogQuery, AReplayedLogKeepsItsTimestampsAndStampsTheRest) {
  const auto now = at("2026-12-03T12:00:00Z");
  const auto lines = parse_replayed_log(
      "Defaulted container \"node\" out of: node\r\n"
      "2026-08-06T14:10:20.194667376-07:00 # nccl-tests version 2.17.8\n"
      "2026-08-06T21:10:21Z      8       2     float\n",
      now);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].time, now);
  EXPECT_EQ(lines[0].text, "Defaulted container \"node\" out of: node");
  EXPECT_EQ(kubelet_timestamp(lines[1].time), "2026-08-06T21:10:20.194667376Z");
  EXPECT_EQ(lines[1].text, "# nccl-tests version 2.17.8");
  EXPECT_EQ(lines[2].text, "     8       2     float");
}

}  // namespace
}  // namespace nvcre::sim
