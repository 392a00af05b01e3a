// Golden suite `bandwidth-reconcile` for measurement/bandwidth_reconciler.hpp, in the format of
// test/support/measurement_reconcile_harness.hpp.
#include "measurement/bandwidth_reconciler.hpp"
#include "test/support/measurement_reconcile_harness.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::testing::GoldenCase;

class BandwidthReconcile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(BandwidthReconcile, Plans) {
  nvcre::testing::measurement_harness::check_case(
      GetParam(), nvcre::measurement::reconcile_bandwidth_measurement);
}

NVCRE_GOLDEN_SUITE(BandwidthReconcile, "bandwidth-reconcile");

}  // namespace
