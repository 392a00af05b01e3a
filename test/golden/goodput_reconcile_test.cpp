// Golden suite `goodput-reconcile` for measurement/goodput_reconciler.hpp, in the format of
// test/support/measurement_reconcile_harness.hpp.
#include "measurement/goodput_reconciler.hpp"
#include "test/support/measurement_reconcile_harness.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::testing::GoldenCase;

class GoodputReconcile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoodputReconcile, Plans) {
  nvcre::testing::measurement_harness::check_case(
      GetParam(), nvcre::measurement::reconcile_goodput_measurement);
}

NVCRE_GOLDEN_SUITE(GoodputReconcile, "goodput-reconcile");

}  // namespace
