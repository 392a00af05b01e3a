#include "sim/nccl_tests_log.hpp"

#include "jsonkit/numbers.hpp"
#include "sim/log_script.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

namespace nvcre::sim {

namespace {

constexpr double kInPlaceSlowdown = 1.004;

std::optional<long long> parse_number(std::string_view text) {
  auto value = jsonkit::whole_number<long long>(text);
  if (!value || *value < 0) return std::nullopt;
  return value;
}

std::string_view file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

using Setter = std::function<void(NcclTestArgs&, std::string_view)>;

const std::map<std::string, Setter, std::less<>>& setters() {
  auto size = [](std::uint64_t NcclTestArgs::*field) -> Setter {
    return [field](NcclTestArgs& a, std::string_view v) {
      if (auto bytes = parse_nccl_size(v)) a.*field = *bytes;
    };
  };
  auto count = [](int NcclTestArgs::*field) -> Setter {
    return [field](NcclTestArgs& a, std::string_view v) {
      if (auto n = parse_number(v); n && *n <= 1000000) a.*field = static_cast<int>(*n);
    };
  };
  static const std::map<std::string, Setter, std::less<>> table{
      {"b", size(&NcclTestArgs::min_bytes)},
      {"minbytes", size(&NcclTestArgs::min_bytes)},
      {"e", size(&NcclTestArgs::max_bytes)},
      {"maxbytes", size(&NcclTestArgs::max_bytes)},
      {"i", size(&NcclTestArgs::step_bytes)},
      {"stepbytes", size(&NcclTestArgs::step_bytes)},
      {"f", size(&NcclTestArgs::step_factor)},
      {"stepfactor", size(&NcclTestArgs::step_factor)},
      {"n", count(&NcclTestArgs::iters)},
      {"iters", count(&NcclTestArgs::iters)},
      {"w", count(&NcclTestArgs::warmup_iters)},
      {"warmup_iters", count(&NcclTestArgs::warmup_iters)},
      {"N", count(&NcclTestArgs::cycles)},
      {"run_cycles", count(&NcclTestArgs::cycles)},
      {"g", count(&NcclTestArgs::gpus_per_thread)},
      {"ngpus", count(&NcclTestArgs::gpus_per_thread)},
      {"t", count(&NcclTestArgs::threads)},
      {"nthreads", count(&NcclTestArgs::threads)},
  };
  return table;
}

std::string printf_string(const char* format, auto... values) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, values...);
  return buffer;
}

// nccl-tests' time column: fewer decimals as the figure grows, seven characters wide.
std::string time_text(double us) {
  if (us >= 100000.0) return printf_string("%7.0f", us);
  if (us >= 10000.0) return printf_string("%7.1f", us);
  return printf_string("%7.2f", us);
}

bool reduces(std::string_view collective) {
  return collective == "all_reduce" || collective == "reduce_scatter" || collective == "reduce";
}

bool per_rank_count(std::string_view collective) {
  return collective == "all_gather" || collective == "reduce_scatter" || collective == "alltoall";
}

}  // namespace

std::optional<std::uint64_t> parse_nccl_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t unit = 1;
  switch (text.back()) {
    case 'K':
    case 'k':
      unit = 1ULL << 10;
      break;
    case 'M':
    case 'm':
      unit = 1ULL << 20;
      break;
    case 'G':
    case 'g':
      unit = 1ULL << 30;
      break;
    case 'T':
    case 't':
      unit = 1ULL << 40;
      break;
    default:
      break;
  }
  if (unit != 1) text.remove_suffix(1);
  auto number = parse_number(text);
  if (!number || static_cast<std::uint64_t>(*number) > (~0ULL) / unit) return std::nullopt;
  return static_cast<std::uint64_t>(*number) * unit;
}

std::optional<NcclTestArgs> parse_nccl_test_args(const std::vector<std::string>& words) {
  const auto tokens = command_tokens(words);
  auto binary = std::find_if(tokens.begin(), tokens.end(), [](const std::string& token) {
    return file_name(token).find("_perf") != std::string_view::npos;
  });
  if (binary == tokens.end()) return std::nullopt;
  NcclTestArgs args;
  args.binary = std::string(file_name(*binary));
  args.collective = args.binary.substr(0, args.binary.find("_perf"));
  for (auto it = binary + 1; it != tokens.end(); ++it) {
    std::string_view token = *it;
    if (token.size() < 2 || token[0] != '-') continue;
    std::string_view name, value;
    bool inline_value = false;
    if (token.starts_with("--")) {
      name = token.substr(2);
      if (const auto equals = name.find('='); equals != std::string_view::npos) {
        value = name.substr(equals + 1);
        name = name.substr(0, equals);
        inline_value = true;
      }
    } else {
      name = token.substr(1, 1);
      if (token.size() > 2) {
        value = token.substr(2);
        inline_value = true;
      }
    }
    auto setter = setters().find(name);
    if (setter == setters().end()) continue;
    if (!inline_value) {
      if (it + 1 == tokens.end()) break;
      value = *++it;
    }
    setter->second(args, value);
  }
  args.cycles = std::clamp(args.cycles == 0 ? 1 : args.cycles, 1, kMaxNcclCycles);
  return args;
}

std::vector<std::uint64_t> nccl_test_sizes(const NcclTestArgs& args) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = args.min_bytes;
       size <= args.max_bytes && sizes.size() < kMaxNcclSizes;) {
    sizes.push_back(size);
    const std::uint64_t next = args.step_factor > 1
                                   ? size * args.step_factor
                                   : size + std::max<std::uint64_t>(args.step_bytes, 1);
    if (next <= size) break;  // overflow, or -f 1 with no -i
    size = next;
  }
  return sizes;
}

double nccl_bus_factor(std::string_view collective, int ranks) {
  const double n = std::max(ranks, 1);
  if (collective == "all_reduce") return 2.0 * (n - 1) / n;
  if (collective == "all_gather" || collective == "reduce_scatter" || collective == "alltoall")
    return (n - 1) / n;
  return 1.0;  // broadcast, reduce, sendrecv, hypercube
}

std::vector<NcclRow> nccl_rows(const NcclTestArgs& args, int ranks, double peak_busbw) {
  const double factor = nccl_bus_factor(args.collective, ranks);
  // A single rank moves nothing over the bus; its algbw is still the copy rate.
  const double peak_algbw = factor > 0 ? peak_busbw / factor : peak_busbw;
  const double latency_us = 12.0 + 4.0 * std::ceil(std::log2(std::max(ranks, 1)));
  std::vector<NcclRow> rows;
  const auto sizes = nccl_test_sizes(args);
  for (int cycle = 0; cycle < args.cycles; ++cycle) {
    for (const auto size : sizes) {
      NcclRow row;
      row.size = size;
      row.count = size / 4 / (per_rank_count(args.collective) ? std::max(ranks, 1) : 1);
      row.time_us = latency_us + static_cast<double>(size) / (peak_algbw * 1e3);
      row.algbw = static_cast<double>(size) / (row.time_us * 1e3);
      row.busbw = row.algbw * factor;
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<std::string> nccl_header_lines(const NcclTestArgs& args) {
  const std::string step = args.step_factor > 1 ? std::to_string(args.step_factor) + "(factor)"
                                                : std::to_string(args.step_bytes) + "(bytes)";
  return {"# nccl-tests version 2.17.8 nccl-headers=22707 nccl-library=22707",
          "# Collective test starting: " + args.binary,
          "# nThread " + std::to_string(args.threads) + " nGpus " +
              std::to_string(args.gpus_per_thread) + " minBytes " + std::to_string(args.min_bytes) +
              " maxBytes " + std::to_string(args.max_bytes) + " step: " + step +
              " warmup iters: " + std::to_string(args.warmup_iters) +
              " iters: " + std::to_string(args.iters) + " agg iters: 1 validation: 1 graph: 0",
          "#", "# Using devices"};
}

std::vector<std::string> nccl_table_header_lines() {
  return {"#",
          "#                                                              out-of-place            "
          "           in-place          ",
          "#       size         count      type   redop    root     time   algbw   busbw  #wrong "
          "    time   algbw   busbw  #wrong ",
          "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)         "
          "    (us)  (GB/s)  (GB/s)         "};
}

std::string format_nccl_row(const NcclRow& row, const NcclTestArgs& args) {
  const bool rooted = args.collective == "broadcast" || args.collective == "reduce";
  std::string out =
      printf_string("%12llu  %12llu  %8s  %6s  %6d", static_cast<unsigned long long>(row.size),
                    static_cast<unsigned long long>(row.count), "float",
                    reduces(args.collective) ? "sum" : "none", rooted ? 0 : -1);
  const double in_place_us = row.time_us * kInPlaceSlowdown;
  out += printf_string("  %s  %6.2f  %6.2f  %6d", time_text(row.time_us).c_str(), row.algbw,
                       row.busbw, 0);
  out += printf_string("  %s  %6.2f  %6.2f  %6d", time_text(in_place_us).c_str(),
                       row.algbw / kInPlaceSlowdown, row.busbw / kInPlaceSlowdown, 0);
  return out;
}

double nccl_average_busbw(const std::vector<NcclRow>& rows) {
  if (rows.empty()) return 0;
  double sum = 0;
  for (const auto& row : rows) sum += row.busbw + row.busbw / kInPlaceSlowdown;
  return sum / (2.0 * static_cast<double>(rows.size()));
}

std::vector<std::string> nccl_footer_lines(const NcclTestArgs& args,
                                           const std::vector<NcclRow>& rows) {
  return {"# Out of bounds values : 0 OK",
          printf_string("# Avg bus bandwidth    : %g ", nccl_average_busbw(rows)), "#",
          "# Collective test concluded: " + args.binary, "#"};
}

}  // namespace nvcre::sim
