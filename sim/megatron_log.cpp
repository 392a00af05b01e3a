#include "sim/megatron_log.hpp"

#include "jsonkit/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

namespace nvcre::sim {

namespace {

std::optional<int> positive(std::string_view text) {
  auto value = jsonkit::whole_number<int>(text);
  if (!value || *value < 1) return std::nullopt;
  return value;
}

void set_if_positive(int& field, std::string_view text) {
  if (auto value = positive(text)) field = *value;
}

std::string printf_string(const char* format, auto... values) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, values...);
  return buffer;
}

std::string app_stamped(const std::string& text) {
  return " [" + std::string(kAppTimeToken) + "] " + text;
}

struct Event {
  int iteration = 0;
  int order = 0;  // within an iteration: step, save start, save scheduled, save done
  double at = 0;
  std::string text;
  bool step = false;
};

std::string step_line(const MegatronArgs& args, const MegatronRun& run, int iteration, bool first) {
  // The first logged interval carries the warm-up (kernel compilation, allocator growth).
  const double wobble = 1.0 + 0.01 * std::sin(iteration * 0.7);
  const double ms = run.iteration_ms * wobble * (first ? 1.5 : 1.0);
  const double tflops = run.tflops_per_gpu / wobble / (first ? 1.5 : 1.0);
  const double progress = static_cast<double>(iteration) / args.train_iters;
  const double warmup = std::max(1.0, args.train_iters / 10.0);
  const double learning_rate = 3.0e-4 * std::min(1.0, iteration / warmup);
  const double loss = 1.8 + 9.2 * std::exp(-4.0 * progress);
  return app_stamped(printf_string(
      "iteration %8d/%8d | consumed samples: %12lld | elapsed time per iteration (ms): %.1f | "
      "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | "
      "lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | "
      "number of nan iterations: %3d |",
      iteration, args.train_iters,
      static_cast<long long>(iteration) * static_cast<long long>(args.global_batch_size), ms,
      tflops, learning_rate, args.global_batch_size, loss, 0.9 + 0.4 * (1.0 - progress), 0, 0));
}

}  // namespace

MegatronArgs parse_megatron_args(const std::vector<std::string>& words,
                                 const std::map<std::string, std::string>& env) {
  MegatronArgs args;
  auto from_env = [&](const char* name) -> std::string_view {
    auto it = env.find(name);
    return it == env.end() ? std::string_view() : std::string_view(it->second);
  };
  set_if_positive(args.train_iters, from_env("TRAIN_ITERS"));
  const auto checkpoint = from_env("ENABLE_CHECKPOINT");
  if (checkpoint == "true" || checkpoint == "1")
    set_if_positive(args.save_interval, from_env("SAVE_INTERVAL"));
  const auto tokens = command_tokens(words);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string_view token = tokens[i], value;
    if (!token.starts_with("--")) continue;
    if (const auto equals = token.find('='); equals != std::string_view::npos) {
      value = token.substr(equals + 1);
      token = token.substr(0, equals);
    } else if (i + 1 < tokens.size()) {
      value = tokens[i + 1];
    }
    if (token == "--train-iters") set_if_positive(args.train_iters, value);
    if (token == "--log-interval") set_if_positive(args.log_interval, value);
    if (token == "--save-interval") set_if_positive(args.save_interval, value);
    if (token == "--global-batch-size") set_if_positive(args.global_batch_size, value);
    if (token == "--save" && !value.empty() && !value.starts_with("--"))
      args.save_dir = std::string(value);
  }
  return args;
}

LogScript megatron_script(const MegatronArgs& args, const MegatronRun& run) {
  LogScript script;
  const int tp = std::max(1, run.tensor_parallel);
  script.lines = {
      {0, printf_string("using world size: %d, data-parallel size: %d, context-parallel size: 1, "
                        "hierarchical context-parallel sizes: None, tensor-model-parallel size: "
                        "%d, pipeline-model-parallel size: 1",
                        run.world_size, std::max(1, run.world_size / tp), tp)},
      {0, "> building train, validation, and test datasets for GPT ..."},
      {0, "training ..."},
      {0, "[before the start of training step] datetime: " + std::string(kAppTimeToken)}};

  const int iters = std::max(1, args.train_iters);
  const int interval = std::max(1, args.log_interval);
  const int stride = interval * std::max(1, (iters / interval + kMaxMegatronStepLines - 1) /
                                                kMaxMegatronStepLines);
  auto at = [&](double iteration) { return std::min(1.0, iteration / iters); };
  std::vector<Event> events;
  for (int i = stride; i <= iters; i += stride)
    events.push_back({i, 0, at(i), step_line(args, run, i, i == stride), true});
  if (args.save_interval > 0) {
    std::vector<int> saves;
    for (int i = args.save_interval; i <= iters; i += args.save_interval) saves.push_back(i);
    if (saves.empty() || saves.back() != iters) saves.push_back(iters);  // the save at the end
    for (const int i : saves) {
      events.push_back({i, 1, at(i),
                        app_stamped(printf_string("saving checkpoint at iteration %7d to %s in "
                                                  "torch_dist format",
                                                  i, args.save_dir.c_str())),
                        false});
      // Megatron's async save: scheduled right away (the shipped LogProfile's checkpointDone),
      // reported saved once the write finishes.
      events.push_back({i, 2, at(i),
                        app_stamped(printf_string("scheduled an async checkpoint save at "
                                                  "iteration %7d to %s",
                                                  i, args.save_dir.c_str())),
                        false});
      events.push_back({i, 3, at(i + 0.5),
                        app_stamped(printf_string("successfully saved checkpoint from iteration "
                                                  "%7d to %s",
                                                  i, args.save_dir.c_str())),
                        false});
    }
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.iteration != b.iteration ? a.iteration < b.iteration : a.order < b.order;
  });
  int steps = 0;
  for (const auto& event : events) {
    script.lines.push_back({event.at, event.text});
    if (event.step && ++steps == 3) script.stall_after = script.lines.size();
  }
  if (steps < 3) script.stall_after = script.lines.size();
  script.lines.push_back({1, "[after training is done] datetime: " + std::string(kAppTimeToken)});
  return script;
}

}  // namespace nvcre::sim
