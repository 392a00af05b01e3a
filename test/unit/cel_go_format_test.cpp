// Go's number and string formatting (cel/go_format.hpp), against what fmt prints.
#include "cel/go_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace {

using nvcre::cel::format_go_fixed;
using nvcre::cel::format_go_float;
using nvcre::cel::format_go_string_list;
using nvcre::cel::quote_go_string;

TEST(CelGoFormat, FloatLikePercentV) {
  const std::vector<std::pair<double, std::string>> cases = {
      {850, "850"},
      {371.9, "371.9"},
      {0.1, "0.1"},
      {0.93, "0.93"},
      {123456, "123456"},
      {999999, "999999"},
      {1e6, "1e+06"},
      {1234567, "1.234567e+06"},
      {1e21, "1e+21"},
      {1.5e300, "1.5e+300"},
      {0.0001, "0.0001"},
      {0.00012345, "0.00012345"},
      {0.00001, "1e-05"},
      {1.5e-7, "1.5e-07"},
      {5e-324, "5e-324"},
      {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {0.1 + 0.2, "0.30000000000000004"},
      {-2.5, "-2.5"},
      {-1e6, "-1e+06"},
      {0.0, "0"},
      {-0.0, "-0"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const auto& [value, expected] : cases)
    EXPECT_EQ(format_go_float(value), expected) << expected;
}

TEST(CelGoFormat, FixedLikePercentF) {
  EXPECT_EQ(format_go_fixed(371.9, 4), "371.9000");
  EXPECT_EQ(format_go_fixed(350, 4), "350.0000");
  EXPECT_EQ(format_go_fixed(0.00005, 4), "0.0001");  // rounds half away as C's printf does here
  EXPECT_EQ(format_go_fixed(371.9, 6), "371.900000");
  EXPECT_EQ(format_go_fixed(-std::numeric_limits<double>::infinity(), 4), "-Inf");
  EXPECT_EQ(format_go_fixed(std::nan(""), 4), "NaN");
}

TEST(CelGoFormat, QuotedLikePercentQ) {
  EXPECT_EQ(quote_go_string("value >= 850"), "\"value >= 850\"");
  EXPECT_EQ(quote_go_string("a \"b\" \\ c"), "\"a \\\"b\\\" \\\\ c\"");
  EXPECT_EQ(quote_go_string("tab\tnew\n\x01"), "\"tab\\tnew\\n\\x01\"");
  EXPECT_EQ(quote_go_string("äöü"), "\"äöü\"");
}

TEST(CelGoFormat, StringListLikePercentV) {
  EXPECT_EQ(format_go_string_list({}), "[]");
  EXPECT_EQ(format_go_string_list({"a"}), "[a]");
  EXPECT_EQ(format_go_string_list({"busBandwidthGBps", "goodputRatio"}),
            "[busBandwidthGBps goodputRatio]");
  EXPECT_EQ(format_go_string_list({"", "b"}), "[ b]");
}

}  // namespace
