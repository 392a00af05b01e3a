#pragma once
// The BandwidthMeasurement controller's reconcile: while its Job runs, samples the reporting pod's
// log (the profile's replicated job, `node` by default; `launcher` for MPI) at most once per
// sampleInterval from a SinceTime anchor kept in the reconciler's memo, and folds the rows into
// per-size running averages (provisional: they feed gauges only). When the Job succeeds, reads the
// finished pod's whole log once and replaces the results with exact averages, retrying a failed
// read for max(2 min, the Job's measurementTimeout) before completing as LogsUnavailable. The
// first terminal write wins; later passes of a Complete measurement do nothing.
#include "reconcile/contract.hpp"

namespace nvcre::measurement {

inline constexpr std::string_view kBandwidthController = "bandwidthmeasurement";

reconcile::Result reconcile_bandwidth_measurement(const reconcile::Context& input);

}  // namespace nvcre::measurement
