#include "test/support/golden.hpp"

#include <gtest/gtest.h>

using nvcre::testing::line_diff;

TEST(GoldenHarness, LineDiffMarksChangedLines) {
  EXPECT_EQ(line_diff("a\nb\nc", "a\nx\nc"), "  a\n- b\n+ x\n  c\n");
  EXPECT_EQ(line_diff("a", "a\nb"), "  a\n+ b\n");
  EXPECT_EQ(line_diff("a\nb", "b"), "- a\n  b\n");
}

TEST(GoldenHarness, LoadsCasesSortedWithInputsAndExpectations) {
  const auto cases = nvcre::testing::load_cases("harness-selftest");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "a-positive");
  EXPECT_EQ(cases[0].input("input.yaml"), "value: 1\n");
  EXPECT_FALSE(cases[0].expected_error.has_value());
  EXPECT_EQ(cases[0].expected_path.filename(), "expected.json");
  EXPECT_EQ(cases[1].name, "b-negative");
  EXPECT_EQ(cases[1].expected_error, "boom");
  EXPECT_THROW(cases[1].input("missing.yaml"), std::runtime_error);
}

TEST(GoldenHarness, MissingSuiteYieldsNoCases) {
  EXPECT_TRUE(nvcre::testing::load_cases("no-such-suite").empty());
}
