#pragma once
// The performance threshold keys a Job's spec.thresholds may name, and where each value comes
// from. A key outside this registry fails the Job's validation (UnknownThresholdKey).
#include <optional>
#include <string_view>

namespace nvcre::measure {

enum class MeasurementSource { Bandwidth, Goodput };

struct ThresholdKey {
  std::string_view name;
  std::string_view unit;
  MeasurementSource source;
};

inline constexpr ThresholdKey kThresholdKeys[] = {
    {"busBandwidthGBps", "GB/s", MeasurementSource::Bandwidth},
    {"algBandwidthGBps", "GB/s", MeasurementSource::Bandwidth},
    {"goodputRatio", "ratio", MeasurementSource::Goodput},
    {"avgTFLOPsPerGPU", "TFLOPS", MeasurementSource::Goodput},
    {"avgStepTimeSec", "s", MeasurementSource::Goodput},
};

// The registry entry of `name`, nullopt when the key is unknown.
std::optional<ThresholdKey> find_threshold_key(std::string_view name);

}  // namespace nvcre::measure
