// jsonkit/numbers.hpp: double -> int64 conversions that never cast out of range, and the whole-text
// integer parse the label, log and cgroup readers share.
#include "jsonkit/numbers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using nvcre::jsonkit::clamped_int64;
using nvcre::jsonkit::exact_int64;
using nvcre::jsonkit::whole_number;

TEST(JsonkitNumbers, WholeNumberTakesOnlyTextThatIsAllOneInteger) {
  EXPECT_EQ(whole_number<int>("42"), 42);
  EXPECT_EQ(whole_number<std::int64_t>("-7"), -7);
  EXPECT_EQ(whole_number<int>(""), std::nullopt);
  EXPECT_EQ(whole_number<int>(" 4"), std::nullopt);
  EXPECT_EQ(whole_number<int>("4x"), std::nullopt);
  EXPECT_EQ(whole_number<int>("+4"), std::nullopt);
  EXPECT_EQ(whole_number<int>("1.5"), std::nullopt);
  EXPECT_EQ(whole_number<std::uint64_t>("-1"), std::nullopt);
  EXPECT_EQ(whole_number<int>("99999999999"), std::nullopt);  // out of int's range
  EXPECT_EQ(whole_number<std::uint64_t>("18446744073709551615"),
            std::numeric_limits<std::uint64_t>::max());
}

TEST(JsonkitNumbers, ExactInt64OnlyForWholeDoublesInRange) {
  EXPECT_EQ(exact_int64(2.0), 2);
  EXPECT_EQ(exact_int64(-7.0), -7);
  EXPECT_EQ(exact_int64(0.5), std::nullopt);
  EXPECT_EQ(exact_int64(1e19), std::nullopt);
  EXPECT_EQ(exact_int64(std::nan("")), std::nullopt);
}

TEST(JsonkitNumbers, ClampedInt64TruncatesAndClamps) {
  EXPECT_EQ(clamped_int64(2.9), 2);
  EXPECT_EQ(clamped_int64(-2.9), -2);
  EXPECT_EQ(clamped_int64(1e30), INT64_MAX);
  EXPECT_EQ(clamped_int64(-1e30), INT64_MIN);
  EXPECT_EQ(clamped_int64(std::nan("")), 0);
}

}  // namespace
