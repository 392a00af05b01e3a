#pragma once
// What a simulated container writes over its run, before it is written: each line carries the
// point of the run at which it appears (0 at the start, 1 at the end), so the Trainer
// (sim/trainer.hpp) appends the lines as the run progresses and each gets the time it was
// written. A line may hold kAppTimeToken where the application prints its own clock (Megatron's
// "[2026-02-05 16:03:52.889599] iteration ..."); it is replaced when the line is written.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

inline constexpr std::string_view kAppTimeToken = "{app-time}";

struct ScriptLine {
  double at = 0;  // 0: at the start .. 1: at the end of the run
  std::string text;
};

struct LogScript {
  std::vector<ScriptLine> lines;  // `at` never decreases
  // A run on a stalled node writes lines [0, stall_after) and then nothing more.
  std::size_t stall_after = static_cast<std::size_t>(-1);
};

// A container's command and args split at whitespace, so `bash -c "mpirun ... -b 8"` reads as
// words.
std::vector<std::string> command_tokens(const std::vector<std::string>& words);

// `text` with kAppTimeToken replaced by "YYYY-MM-DD HH:MM:SS.ffffff" (UTC, microseconds).
std::string stamp_script_line(std::string_view text, std::chrono::system_clock::time_point time);

}  // namespace nvcre::sim
