#include "k8s/duration.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace nvcre::k8s {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

void expect_parse(const std::string& text, nanoseconds expected) {
  const auto parsed = parse_go_duration(text);
  ASSERT_TRUE(parsed.has_value()) << text;
  EXPECT_EQ(parsed->count(), expected.count()) << text;
}

TEST(K8sDuration, ParseBasics) {
  expect_parse("0", nanoseconds(0));
  expect_parse("-0", nanoseconds(0));
  expect_parse("+0", nanoseconds(0));
  expect_parse("0s", nanoseconds(0));
  expect_parse("5s", seconds(5));
  expect_parse("1478s", seconds(1478));
  expect_parse("-5s", seconds(-5));
  expect_parse("+5s", seconds(5));
  expect_parse("90s", seconds(90));
  expect_parse("60s", seconds(60));
  expect_parse("45m", minutes(45));
  expect_parse("168h", hours(168));
}

TEST(K8sDuration, ParseUnits) {
  expect_parse("10ns", nanoseconds(10));
  expect_parse("11us", microseconds(11));
  expect_parse("12\xC2\xB5s", microseconds(12));  // U+00B5 micro sign
  expect_parse("12\xCE\xBCs", microseconds(12));  // U+03BC Greek mu
  expect_parse("13ms", milliseconds(13));
  expect_parse("14s", seconds(14));
  expect_parse("15m", minutes(15));
  expect_parse("16h", hours(16));
}

TEST(K8sDuration, ParseFractions) {
  expect_parse("5.0s", seconds(5));
  expect_parse("5.6s", milliseconds(5600));
  expect_parse("5.s", seconds(5));
  expect_parse(".5s", milliseconds(500));
  expect_parse("1.004s", milliseconds(1004));
  expect_parse("1.0040s", milliseconds(1004));
  expect_parse("100.00100s", milliseconds(100001));
  expect_parse("1.5h", minutes(90));
  expect_parse("0.5m", seconds(30));
  expect_parse("1.5ns", nanoseconds(1));  // fractional nanoseconds truncate
  // More digits than float64 holds; Go converts through float64 and so do we.
  expect_parse("0.3333333333333333333h", minutes(20));
  expect_parse("0.100000000000000000000h", minutes(6));
  expect_parse("0.830103483285477580700h", minutes(49) + seconds(48) + nanoseconds(372539827));
  // f * (unit / scale), in that order: f * unit / scale would give ...627999ns here.
  expect_parse("0.20584073h", nanoseconds(741026628000));
}

TEST(K8sDuration, ParseSequences) {
  expect_parse("1h30m", minutes(90));
  expect_parse("3h30m", minutes(210));
  expect_parse("10.5s4m", minutes(4) + milliseconds(10500));
  expect_parse("-2m3.4s", -(minutes(2) + milliseconds(3400)));
  expect_parse("1h2m3s4ms5us6ns", hours(1) + minutes(2) + seconds(3) + milliseconds(4) +
                                      microseconds(5) + nanoseconds(6));
  expect_parse("39h9m14.425s", hours(39) + minutes(9) + milliseconds(14425));
  expect_parse("1s1s", seconds(2));  // units may repeat and come in any order
}

TEST(K8sDuration, ParseLimits) {
  expect_parse("52763797000ns", nanoseconds(52763797000));
  expect_parse("9007199254740993ns", nanoseconds(9007199254740993));  // 2^53+1, no float loss
  expect_parse("9223372036854775807ns", nanoseconds(kMax));
  expect_parse("9223372036854775.807us", nanoseconds(kMax));
  expect_parse("9223372036s854ms775us807ns", nanoseconds(kMax));
  expect_parse("-9223372036854775808ns", nanoseconds(kMin));
  expect_parse("-9223372036854775.808us", nanoseconds(kMin));
  expect_parse("-9223372036s854ms775us808ns", nanoseconds(kMin));
  expect_parse("2562047h47m16.854775807s", nanoseconds(kMax));
}

TEST(K8sDuration, ParseRejects) {
  for (const char* bad : {"",
                          "3",
                          "-",
                          "+",
                          "s",
                          ".",
                          "-.",
                          ".s",
                          "+.s",
                          "1d",
                          "1 s",
                          " 1s",
                          "1s ",
                          "1S",
                          "1H",
                          "1hh",
                          "1sec",
                          "1h-30m",
                          "--1s",
                          "+-1s",
                          "1.2.3s",
                          "\x85\x85",
                          "\xff\xff",
                          "hello",
                          "1h30",
                          "00",
                          "-00",
                          "9223372036854775808ns",
                          "9223372036854775.808us",
                          "9223372036854ms775us808ns",
                          "-9223372036854775809ns",
                          "2562048h",
                          "106751d",
                          "99999999999999999999s"}) {
    EXPECT_FALSE(parse_go_duration(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(K8sDuration, Format) {
  EXPECT_EQ(format_go_duration(nanoseconds(0)), "0s");
  EXPECT_EQ(format_go_duration(nanoseconds(1)), "1ns");
  EXPECT_EQ(format_go_duration(nanoseconds(999)), "999ns");
  EXPECT_EQ(format_go_duration(nanoseconds(1000)), "1\xC2\xB5s");
  EXPECT_EQ(format_go_duration(nanoseconds(1100)), "1.1\xC2\xB5s");
  EXPECT_EQ(format_go_duration(microseconds(2200)), "2.2ms");
  EXPECT_EQ(format_go_duration(milliseconds(500)), "500ms");
  EXPECT_EQ(format_go_duration(nanoseconds(999999999)), "999.999999ms");
  EXPECT_EQ(format_go_duration(seconds(1)), "1s");
  EXPECT_EQ(format_go_duration(milliseconds(3300)), "3.3s");
  EXPECT_EQ(format_go_duration(seconds(90)), "1m30s");
  EXPECT_EQ(format_go_duration(seconds(60)), "1m0s");
  EXPECT_EQ(format_go_duration(minutes(90)), "1h30m0s");
  EXPECT_EQ(format_go_duration(hours(1)), "1h0m0s");
  EXPECT_EQ(format_go_duration(hours(168)), "168h0m0s");
  EXPECT_EQ(format_go_duration(minutes(4) + seconds(5)), "4m5s");
  EXPECT_EQ(format_go_duration(minutes(4) + milliseconds(5001)), "4m5.001s");
  EXPECT_EQ(format_go_duration(hours(5) + minutes(6) + milliseconds(7001)), "5h6m7.001s");
  EXPECT_EQ(format_go_duration(minutes(8) + nanoseconds(1)), "8m0.000000001s");
  EXPECT_EQ(format_go_duration(nanoseconds(kMax)), "2562047h47m16.854775807s");
  EXPECT_EQ(format_go_duration(nanoseconds(kMin)), "-2562047h47m16.854775808s");
  EXPECT_EQ(format_go_duration(seconds(-2)), "-2s");
  EXPECT_EQ(format_go_duration(nanoseconds(-1500)), "-1.5\xC2\xB5s");
}

TEST(K8sDuration, FormatThenParseRoundTrips) {
  for (const std::int64_t ns :
       {std::int64_t(0), std::int64_t(1), std::int64_t(1100), std::int64_t(2200000),
        std::int64_t(-90000000000), std::int64_t(5400000000000), std::int64_t(480000000001), kMax,
        kMin}) {
    const auto parsed = parse_go_duration(format_go_duration(nanoseconds(ns)));
    ASSERT_TRUE(parsed.has_value()) << ns;
    EXPECT_EQ(parsed->count(), ns);
  }
}

TEST(K8sDuration, CategoryPattern) {
  for (const char* good : {"1h", "30m", "90s", "500ms", "0s", "1h30m", "1h30m10s500ms", "10ms5s",
                           "1m1s", "15m", "45m", "0ms", "007h", "1s1s", "1ms1m"}) {
    EXPECT_TRUE(matches_category_duration_pattern(good)) << good;
  }
  for (const char* bad :
       {"",    "h",  "1",   "1.5h", "1d",  "-1h", "+1h", "1h ",    " 1h",   "1us",
        "1ns", "1H", "1hm", "1mss", "1m5", "5sm", "ms",  "1h 30m", "1msms", "0"}) {
    EXPECT_FALSE(matches_category_duration_pattern(bad)) << '"' << bad << '"';
  }
}

TEST(K8sDuration, CategoryPatternIsNarrowerThanGo) {
  // Everything the pattern accepts is a Go duration; not the other way round.
  EXPECT_TRUE(parse_go_duration("1h30m10s500ms").has_value());
  EXPECT_TRUE(parse_go_duration("1.5h").has_value());
  EXPECT_FALSE(matches_category_duration_pattern("1.5h"));
}

}  // namespace
}  // namespace nvcre::k8s
