#pragma once
// What the embedded demo prints: progress lines as a Certification's conditions and categories
// change, and the final report per category with every failed node and its reason (read from the
// Jobs' status.failedNodes), each Job with its verdict and the peak bus bandwidth its
// BandwidthMeasurement holds; a category run in diagnose mode shows its rounds and the nodes its
// verdict blames instead (manager/demo_diagnose_report.hpp). Pure functions over the objects as the
// API returns them.
#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace nvcre::manager {

class DemoProgress {
 public:
  // Lines describing what changed since the previous call (the first call describes the state).
  std::vector<std::string> update(const boost::json::value& certification);

 private:
  std::string last_condition_;
  std::map<std::string, std::string> last_category_;  // "domain/variant" -> status
};

// "peak bus bandwidth 371.90 GB/s" from the BandwidthMeasurement of `job`, with the reason when
// the figure is not final; "" when the Job has no measurement.
std::string job_bandwidth_text(const boost::json::value& job,
                               const std::vector<boost::json::value>& measurements);

// Succeeded or Failed is True.
bool has_verdict(const boost::json::value& certification);

std::string final_report(const boost::json::value& certification,
                         const std::vector<boost::json::value>& workflows,
                         const std::vector<boost::json::value>& jobs,
                         const std::vector<boost::json::value>& bandwidth_measurements = {},
                         const std::vector<boost::json::value>& configmaps = {});

}  // namespace nvcre::manager
