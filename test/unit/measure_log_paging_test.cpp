// measure/log_paging.hpp: the full-read state machine driven against a fake kubelet that serves
// sinceTime (whole seconds) and limitBytes the way the real one does, and the incremental anchor.
#include "measure/log_paging.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using nvcre::k8s::Clock;
using nvcre::measure::FullLogReader;
using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kStart = *nvcre::k8s::parse_rfc3339("2026-08-06T16:30:00Z");

struct FakeLine {
  std::optional<Clock::time_point> time;
  std::string text;
};

std::string render(const FakeLine& line) {
  return line.time ? nvcre::k8s::format_rfc3339_nano(*line.time) + " " + line.text : line.text;
}

// Every line at or after `since` (the kubelet compares whole lines' times with the second-precise
// sinceTime), the first `limit` bytes of them.
std::string serve(const std::vector<FakeLine>& log, const nvcre::measure::LogPageRequest& request) {
  std::string body;
  for (const auto& line : log) {
    if (request.since_time && line.time && *line.time < *request.since_time) continue;
    body += render(line) + "\n";
    if (static_cast<std::int64_t>(body.size()) >= request.limit_bytes) break;
  }
  if (static_cast<std::int64_t>(body.size()) > request.limit_bytes)
    body.resize(static_cast<std::size_t>(request.limit_bytes));
  return body;
}

std::string whole_text(const std::vector<FakeLine>& log) {
  std::string text;
  for (const auto& line : log) text += render(line) + "\n";
  return text;
}

// `lines` rows of about 100 bytes, `per_second` in each second.
std::vector<FakeLine> synthesize(int lines, int per_second) {
  std::vector<FakeLine> log;
  for (int i = 0; i < lines; ++i) {
    const auto time = kStart + seconds(i / per_second) + milliseconds(i % per_second);
    char text[160];
    std::snprintf(text, sizeof text,
                  "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f      0  row %05d",
                  8 << (i % 20), 2 << (i % 20), 40.0 + i, 1.5 * (i % 20), 2.8 * (i % 20), i);
    log.push_back({time, text});
  }
  return log;
}

FullLogReader read_all(const std::vector<FakeLine>& log, std::int64_t page_bytes,
                       int max_pages = 64) {
  FullLogReader reader(page_bytes, max_pages);
  while (reader.state() == FullLogReader::State::NeedPage)
    reader.feed(serve(log, reader.next_request()));
  return reader;
}

TEST(MeasureLogPaging, ReadsALogOfManyPagesOnceEach) {
  const auto log = synthesize(2000, 7);  // about 230 KB
  const auto reader = read_all(log, 8192);
  ASSERT_EQ(reader.state(), FullLogReader::State::Done) << reader.error();
  EXPECT_GT(reader.pages_read(), 25);
  EXPECT_EQ(reader.text(), whole_text(log));
}

TEST(MeasureLogPaging, ResumedPagesAskForWholeSecondsAndTheFirstAsksForNone) {
  const auto log = synthesize(300, 7);
  FullLogReader reader(4096);
  EXPECT_FALSE(reader.next_request().since_time.has_value());
  EXPECT_EQ(reader.next_request().limit_bytes, 4096);
  reader.feed(serve(log, reader.next_request()));
  ASSERT_EQ(reader.state(), FullLogReader::State::NeedPage);
  const auto since = reader.next_request().since_time;
  ASSERT_TRUE(since.has_value());
  EXPECT_EQ(*since, std::chrono::floor<seconds>(*since));
  EXPECT_GT(*since, kStart);
}

TEST(MeasureLogPaging, DoublesThePageWhenOneSecondFillsIt) {
  const auto log = synthesize(120, 60);  // 60 rows (about 6 KB) in each second, 4 KiB pages
  const auto reader = read_all(log, 4096);
  ASSERT_EQ(reader.state(), FullLogReader::State::Done) << reader.error();
  EXPECT_EQ(reader.text(), whole_text(log));
}

TEST(MeasureLogPaging, FailsWhenOneSecondOutgrowsFourPages) {
  const auto log = synthesize(400, 400);  // about 40 KB in one second
  const auto reader = read_all(log, 4096);
  ASSERT_EQ(reader.state(), FullLogReader::State::Failed);
  EXPECT_EQ(reader.error(),
            "log cannot be read in full: more than 16384 bytes logged within one second");
  EXPECT_TRUE(reader.text().empty());
}

TEST(MeasureLogPaging, FailsPastTheMaximumNumberOfPages) {
  const auto reader = read_all(synthesize(2000, 7), 4096, 3);
  ASSERT_EQ(reader.state(), FullLogReader::State::Failed);
  EXPECT_EQ(reader.error(), "log cannot be read in full: more than 3 pages");
  EXPECT_EQ(reader.pages_read(), 3);
}

TEST(MeasureLogPaging, FailsOnAnUntimestampedLineInATruncatedPage) {
  auto log = synthesize(200, 7);
  log.insert(log.begin() + 5, {std::nullopt, "an untimestamped line"});
  const auto reader = read_all(log, 4096);
  ASSERT_EQ(reader.state(), FullLogReader::State::Failed);
  EXPECT_EQ(reader.error(),
            "log cannot be read in full: line without a timestamp in a truncated page");
}

TEST(MeasureLogPaging, ASinglePageKeepsUntimestampedLinesAndAnUnterminatedLastLine) {
  FullLogReader reader(4096);
  reader.feed("plain line\n2026-08-06T09:30:29.5-07:00 last write without newline");
  ASSERT_EQ(reader.state(), FullLogReader::State::Done);
  EXPECT_EQ(reader.text(), "plain line\n2026-08-06T09:30:29.5-07:00 last write without newline\n");
  EXPECT_EQ(reader.pages_read(), 1);
}

TEST(MeasureLogPaging, ALineOfSeveralMebibytesIsLeftOutAndTheRestReadInFull) {
  auto log = synthesize(60, 7);
  const auto overlong_time = *log[30].time;
  log.insert(log.begin() + 31, {overlong_time, std::string(3 * 1024 * 1024, 'x')});
  const auto reader = read_all(log, 1024 * 1024);
  ASSERT_EQ(reader.state(), FullLogReader::State::Done) << reader.error();
  EXPECT_EQ(reader.overlong_lines(), 1U);
  auto expected = log;
  expected.erase(expected.begin() + 31);
  EXPECT_EQ(reader.text(), whole_text(expected));
}

TEST(MeasureLogPaging, FeedingAfterTheEndChangesNothing) {
  FullLogReader reader(4096);
  reader.feed("a\n");
  reader.feed("b\n");
  EXPECT_EQ(reader.text(), "a\n");
  EXPECT_EQ(reader.pages_read(), 1);
}

TEST(MeasureSinceTime, StartsOneSecondBeforeTheLastSeenLine) {
  const auto now = kStart + std::chrono::minutes(10);
  const auto last_seen = kStart + seconds(500) + milliseconds(250);
  EXPECT_EQ(nvcre::measure::since_time_for_sample(last_seen, kStart, now), last_seen - seconds(1));
}

TEST(MeasureSinceTime, FirstReadStartsAtThePodStart) {
  const auto now = kStart + std::chrono::minutes(10);
  EXPECT_EQ(nvcre::measure::since_time_for_sample(std::nullopt, kStart, now), kStart);
}

TEST(MeasureSinceTime, NeverLooksBackMoreThanThirtyMinutes) {
  const auto now = kStart + std::chrono::hours(2);
  const auto floor = now - std::chrono::minutes(30);
  EXPECT_EQ(nvcre::measure::since_time_for_sample(std::nullopt, kStart, now), floor);
  EXPECT_EQ(nvcre::measure::since_time_for_sample(kStart + seconds(5), kStart, now), floor);
  EXPECT_EQ(nvcre::measure::since_time_for_sample(std::nullopt, std::nullopt, now), floor);
}

}  // namespace
