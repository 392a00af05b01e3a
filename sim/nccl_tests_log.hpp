#pragma once
// nccl-tests output for kube-sim's reporting pods: the arguments read from the container's
// command line with nccl-tests' defaults, one result row per message size from -b to -e (times
// -f, or plus -i), repeated for -N cycles, and rows whose busbw approaches the bus bandwidth the
// simulated fabric gives. Printed in nccl-tests' own layout, which the shipped `nccl-bandwidth`
// LogProfile's bandwidthResult regex reads:
//   "#       size         count      type   redop    root     time   algbw   busbw #wrong ..."
//   "  1073741824     268435456     float     sum      -1   5806.1  184.93  346.74      0 ..."
//   "# Avg bus bandwidth    : 187.42"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

struct NcclTestArgs {
  std::string binary = "all_reduce_perf";  // e.g. all_reduce_perf_mpi
  std::string collective = "all_reduce";   // the binary without _perf[_mpi]
  std::uint64_t min_bytes = 32ULL << 20;   // -b (nccl-tests: 32M)
  std::uint64_t max_bytes = 32ULL << 20;   // -e (32M)
  std::uint64_t step_bytes = 1ULL << 20;   // -i (1M), used when -f is not given
  std::uint64_t step_factor = 0;           // -f (0: disabled)
  int iters = 20;                          // -n
  int warmup_iters = 1;                    // -w
  int cycles = 1;                          // -N (0, "run forever", is simulated as 1)
  int gpus_per_thread = 1;                 // -g
  int threads = 1;                         // -t
};

// At most this many sizes per cycle and this many cycles: a command line that asks for more
// is cut there (a real run would take hours).
inline constexpr std::size_t kMaxNcclSizes = 64;
inline constexpr int kMaxNcclCycles = 10;

// nccl-tests' size syntax: a byte count with an optional K, M, G or T suffix (powers of 1024,
// either case). nullopt when it is not one.
std::optional<std::uint64_t> parse_nccl_size(std::string_view text);

// The nccl-tests invocation in a container's command line: `words` are its command and args,
// each split at whitespace (so `bash -c "mpirun ... all_reduce_perf_mpi -b 8"` works). Flags
// after the first word whose file name contains "_perf" are read (-b/-e/-i/-f/-n/-w/-N/-g/-t,
// their long forms, "-b 8", "-b8" and "--minbytes=8"); a value that does not parse keeps the
// default. nullopt when no nccl-tests binary is named.
std::optional<NcclTestArgs> parse_nccl_test_args(const std::vector<std::string>& words);

// The message sizes of one cycle, in order.
std::vector<std::uint64_t> nccl_test_sizes(const NcclTestArgs& args);

// nccl-tests' bus bandwidth factor for the collective over `ranks` ranks (busbw = algbw x factor).
double nccl_bus_factor(std::string_view collective, int ranks);

struct NcclRow {
  std::uint64_t size = 0;
  std::uint64_t count = 0;
  double time_us = 0;  // out-of-place; in-place runs 0.4% slower
  double algbw = 0;    // GB/s (1e9 bytes)
  double busbw = 0;
};

// One row per size and cycle over `ranks` ranks on a fabric whose bus bandwidth tops out at
// `peak_busbw` GB/s: a fixed start-up latency plus the bytes at the peak rate, so small messages
// are latency bound and large ones approach (never exceed) the peak.
std::vector<NcclRow> nccl_rows(const NcclTestArgs& args, int ranks, double peak_busbw);

// The header lines before the table ("# nccl-tests version ...", "# nThread 1 nGpus 1 minBytes
// ...", "#", "# Using devices"), without the per-rank device lines.
std::vector<std::string> nccl_header_lines(const NcclTestArgs& args);
// The three lines of the table header ("#   ...out-of-place...", "#       size ...", "# (B) ...").
std::vector<std::string> nccl_table_header_lines();
std::string format_nccl_row(const NcclRow& row, const NcclTestArgs& args);
// The mean busbw of every row, out-of-place and in-place, as nccl-tests reports it.
double nccl_average_busbw(const std::vector<NcclRow>& rows);
// "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : X", "#", "# Collective test
// concluded: <binary>", "#".
std::vector<std::string> nccl_footer_lines(const NcclTestArgs& args,
                                           const std::vector<NcclRow>& rows);

}  // namespace nvcre::sim
