#pragma once
// The GoodputMeasurement controller's reconcile: while its Job runs, samples the training log of
// worker-0 (with a Multi worker strategy also the last worker: lifecycle events from one, steps
// from the other) at most once per sampleInterval from a SinceTime anchor kept in the memo, and
// folds each window into the goodput accounting of measure/goodput.hpp. A workload that went away
// or a Job restart count above the recorded interruptions is an interruption. When the Job ends,
// one final window up to the Job's terminal transition is merged and ONE terminal write sets
// Complete (JobSucceeded, NoDataCollected or JobFailed) with completionTime at that transition;
// later passes of a Complete measurement do nothing.
#include "reconcile/contract.hpp"

namespace nvcre::measurement {

inline constexpr std::string_view kGoodputController = "goodputmeasurement";

reconcile::Result reconcile_goodput_measurement(const reconcile::Context& input);

}  // namespace nvcre::measurement
