#pragma once
// The series objects project (Metrics::replace_object_gauges), kept per object as compactly as the
// cache keeps objects: a family index, the value and the labels packed in one string. Thousands
// of Jobs, Workflows, Certifications and measurements in flight project a few series each; in a
// prometheus-cpp Family each series costs a map of label strings, a hash node and the metric
// (about ten allocations), so they are exposed from here at scrape time instead. Not thread-safe:
// Metrics serializes access.
#include "k8s/metrics.hpp"

#include <prometheus/metric_family.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace nvcre::k8s {

class ObjectGauges {
 public:
  // Throws std::invalid_argument for a family in neither object_gauge_families() nor
  // object_counter_families() (and then changes nothing).
  void replace(const std::string& object_key, const std::vector<GaugeSample>& samples);
  // Every family projected at least once (as a registered family stays), by name; a series two
  // objects project alike is exposed once.
  std::vector<prometheus::MetricFamily> collect() const;
  std::size_t series() const;

 private:
  struct Stored {
    std::string labels;  // name, value, name, value ... (k8s/packed_fields.hpp)
    double value = 0;
    std::uint16_t family = 0;
  };
  std::map<std::string, std::vector<Stored>, std::less<>> by_object_;
  std::vector<bool> used_;  // by family index
};

}  // namespace nvcre::k8s
