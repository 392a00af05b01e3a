#pragma once
// `nvcrectl logprofile test PROFILE --log FILE`: what a LogProfile makes of a log, offline. For a
// bandwidth profile the rows a BandwidthMeasurement would hold (per-size averages and samples) and
// the NCCL transports; for a training profile every event its patterns find. The log may be read
// with kubelet timestamps (kubectl logs --timestamps) or without (a saved file).
#include "api/embedded_file.hpp"
#include "api/measurement.hpp"

#include <boost/json/object.hpp>

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace nvcre::cli {

struct LogProfileTestOptions {
  std::string profile;  // a LogProfile manifest file, or the name of a shipped profile
  std::string log_file;
  std::string output = "text";  // text | json
};

// deploy/logprofiles/*.yaml, compiled in.
std::span<const nvcre::EmbeddedFile> embedded_logprofile_files();

// The profile a PROFILE argument names: a file when one exists at that path, else a shipped
// profile by metadata.name or file name (nemo4 = nemo-4-training). Throws std::runtime_error
// naming the problem.
api::LogProfile load_log_profile(const std::string& profile);

// The report (its JSON form); throws measure::ProfileError when the profile does not compile.
boost::json::object logprofile_test_report(const api::LogProfile& profile, std::string_view log);

void print_logprofile_report(const boost::json::object& report, std::string_view output,
                             std::ostream& out);

void run_logprofile_test(const LogProfileTestOptions& options, std::ostream& out);

}  // namespace nvcre::cli
