#pragma once
// The Prometheus gauges a measurement's status projects, with the labels the reference names:
// a BandwidthMeasurement's per-size bus / algorithm bandwidth (nvcre_nccl_{busbw,algbw}_gbs, and
// the same under the deprecated _gbps names NVCRE keeps for one release) while it measures (cleared
// once Complete: the final figures live in its status), a GoodputMeasurement's goodput ratio for as
// long as it exists and, once a running sample is recorded, all ten of its figures (TFLOPS, step
// time, reschedule / resume / checkpoint-save / lost-work / training / warmup / non-warmup time, 0
// while not measured yet) until it completes. Pure: the actor shell applies
// them (k8s::Metrics::replace_object_gauges) on every change of the object, and an empty set when
// it is deleted.
#include "k8s/metrics.hpp"

#include <boost/json/value.hpp>

#include <vector>

namespace nvcre::measurement {

std::vector<k8s::GaugeSample> measurement_gauges(const boost::json::value& measurement);

}  // namespace nvcre::measurement
