// Pod logs as the measurement controllers read them: split into kubelet-timestamped lines, scanned
// with each shipped LogProfile (NCCL bandwidth rows and transports; training steps, checkpoints and
// restarts), and folded into a BandwidthMeasurement's results and a GoodputMeasurement's status.
// The input's first byte picks the profile.
#include "api/logprofiles.hpp"
#include "measure/bandwidth.hpp"
#include "measure/goodput.hpp"
#include "measure/log_events.hpp"
#include "measure/log_lines.hpp"
#include "measure/log_profile.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace {

const std::vector<nvcre::measure::CompiledProfile>& profiles() {
  static const std::vector<nvcre::measure::CompiledProfile> compiled = [] {
    std::vector<nvcre::measure::CompiledProfile> out;
    for (const auto& file : nvcre::api::embedded_logprofile_files())
      out.push_back(
          nvcre::measure::compile_profile(nvcre::measure::read_log_profile(file.content)));
    return out;
  }();
  return compiled;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace measure = nvcre::measure;
  if (size == 0 || profiles().empty()) return 0;
  const auto& profile = profiles()[data[0] % profiles().size()];
  const std::string_view log(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto split = measure::split_log_lines(log);
  const auto lines = split.all_lines();
  if (profile.bandwidth_result() != nullptr) {
    const auto scan = measure::scan_bandwidth(profile, lines);
    const auto averages = measure::average_rows(scan.rows);
    (void)measure::merge_running_averages(averages, scan.rows);
    (void)measure::peak_bus_bandwidth(averages);
    (void)measure::merge_transports(scan.transports, {"IB"});
  }
  const auto events = measure::scan_events(profile, lines);
  std::optional<nvcre::k8s::Clock::time_point> last;
  for (const auto& line : lines) {
    if (line.timestamp && (!last || *line.timestamp > *last)) last = line.timestamp;
  }
  const auto now = last.value_or(nvcre::k8s::Clock::time_point{}) + std::chrono::seconds(30);
  auto update =
      measure::merge_goodput_window({}, {profile, events, last, now, std::nullopt, false});
  // The same window again, as a final merge over the status it produced.
  (void)measure::merge_goodput_window(update.status,
                                      {profile, events, last, now, update.pending_save, true});
  return 0;
}
