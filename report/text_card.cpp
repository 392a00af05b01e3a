// One category card of the text report.
#include "report/text_box.hpp"

#include <cstdio>

namespace nvcre::report::detail {
namespace {

constexpr std::string_view kPass = "✓";
constexpr std::string_view kFail = "✗";
constexpr std::string_view kProvisional = "?";
// The human excerpt of a failure log: the last 4 KB, then at most 20 wrapped lines; the whole
// captured tail stays in the JSON report and on the Job.
constexpr std::size_t kLogMaxBytes = 4 * 1024;
constexpr std::size_t kLogMaxLines = 20;
constexpr std::string_view kLogIndent = "           ";

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

void render_failure_log(Card& card, const FailureLogReport& log) {
  card.line(log.pod_name.empty() ? "       Failure Log:"
                                 : "       Failure Log (one captured pod):");
  if (!log.pod_name.empty()) card.wrapped("         Pod: ", log.pod_name);
  if (!log.node_name.empty()) card.wrapped("         Node: ", log.node_name);
  if (log.exit_code != 0) {
    card.wrapped("         Exit: ", std::to_string(log.exit_code) +
                                        (log.reason.empty() ? "" : " (" + log.reason + ")"));
  } else if (!log.reason.empty()) {
    card.wrapped("         Reason: ", log.reason);
  }
  if (log.tail.empty()) return;
  std::string_view tail = log.tail;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.remove_suffix(1);
  bool truncated = tail.size() > kLogMaxBytes;
  if (truncated) {
    std::size_t start = tail.size() - kLogMaxBytes;
    // Start on a character, not inside one.
    while (start < tail.size() && (static_cast<unsigned char>(tail[start]) & 0xC0) == 0x80) ++start;
    tail.remove_prefix(start);
  }
  auto lines = wrap_lines(kLogIndent, tail);
  if (lines.size() > kLogMaxLines) {
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(kLogMaxLines));
    truncated = true;
  }
  card.line(truncated ? "         Tail (truncated; last " + std::to_string(lines.size()) +
                            " rendered lines):"
                      : std::string("         Tail:"));
  for (const auto& line : lines) card.line(std::string(kLogIndent) + line);
  if (truncated) {
    card.line("         Full captured excerpt: JSON report or");
    card.line("         Job.status.failureLog");
  }
}

void render_failed_groups(Card& card, const std::vector<FailedGroup>& groups) {
  if (groups.empty()) return;
  card.blank();
  card.line("Failed Groups:");
  for (const auto& group : groups) {
    card.line("    " + std::string(kFail) + "  " + group.name + " (" +
              std::to_string(group.node_count) + " nodes)");
    if (!group.reason.empty())
      card.line("       " + truncate_columns(sanitize_terminal_text(group.reason), kBoxWidth - 12));
    for (const auto& node : group.nodes) card.line("         - " + node);
    if (group.failure_log) render_failure_log(card, *group.failure_log);
  }
}

void render_iterations(Card& card, const std::vector<IterationRow>& iterations) {
  card.blank();
  card.line("Iterations:");
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    const auto& iteration = iterations[i];
    std::string mark(kPass), label = iteration.status;
    if (iteration.status == "Failed") {
      // A failed iteration that was followed by another one was restarted.
      const bool last = i + 1 == iterations.size();
      mark = last ? std::string(kFail) : "↻";
      label = last ? "Failed" : "Restarted";
    } else if (iteration.status == "Running") {
      mark = "⋯";
    }
    card.line("    " + mark + "  #" + std::to_string(iteration.number) + "  " + label + "  " +
              iteration.duration);
  }
}

void render_cliques(Card& card, const CategoryReport& category) {
  card.blank();
  card.line("Cliques:");
  for (const auto& clique : category.cliques) {
    card.line("    " + std::string(clique.passed ? kPass : kFail) + "  " + clique.name + "  " +
              std::to_string(clique.validated) + "/" + std::to_string(clique.total) + " nodes");
    for (const auto& row : category.group_bandwidth) {
      if (row.label.substr(0, row.label.find(" (")) == clique.name && !row.bus_bw.empty()) {
        card.line("       " + row.bus_bw);
        break;
      }
    }
  }
}

void render_metric_box(std::string& out, const DomainMetrics& domain) {
  constexpr int inner = kBoxWidth - 7;
  const std::string label = domain.node_count > 0
                                ? domain.name + " (" + std::to_string(domain.node_count) + " nodes)"
                                : domain.name;
  std::string dashes;
  for (int i = 0; i < inner - 2 - display_width(label); ++i) dashes += "─";
  if (display_width(label) <= kBoxWidth - 10) {
    out += "│  ┌ " + label + " " + dashes + "┐ │\n";
  } else {
    std::string rule;
    for (int i = 0; i < inner; ++i) rule += "─";
    out += "│  ┌" + rule + "┐ │\n";
    std::string_view names = domain.name;
    while (!names.empty()) {
      const auto comma = names.find(", ");
      const std::string line = "  " + std::string(names.substr(0, comma));
      out += "│  │" + line + spaces(inner - display_width(line)) + "│ │\n";
      names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 2);
    }
  }
  for (const auto& [name, value] :
       {std::pair<const char*, const std::string&>{"Avg Runtime Goodput", domain.goodput},
        {"Avg TFLOPs/GPU", domain.tflops},
        {"Avg Step Time", domain.step_time}}) {
    if (value.empty()) continue;
    const std::string line = std::string("  ") + name + ":  " + value;
    out += "│  │" + line + spaces(inner - display_width(line)) + "│ │\n";
  }
  std::string rule;
  for (int i = 0; i < inner; ++i) rule += "─";
  out += "│  └" + rule + "┘ │\n";
}

void render_domains(Card& card, std::string& out, const CategoryReport& category) {
  card.blank();
  bool named = false;
  for (const auto& domain : category.domains) named = named || !domain.name.empty();
  for (const auto& domain : category.domains) {
    if (named && category.cliques.empty()) {
      render_metric_box(out, domain);
      continue;
    }
    for (const auto& [name, value] :
         {std::pair<const char*, const std::string&>{"Avg Runtime Goodput", domain.goodput},
          {"Avg TFLOPs/GPU", domain.tflops},
          {"Avg Step Time", domain.step_time}}) {
      if (!value.empty()) card.line(std::string(name) + ":  " + value);
    }
  }
}

void render_group_bandwidth(Card& card, const std::vector<GroupBandwidthRow>& rows) {
  card.blank();
  card.line("Bandwidth by group:");
  for (const auto& row : rows) {
    const bool bad = row.failed || row.below_min;
    const std::string_view mark = bad ? kFail : row.provisional ? kProvisional : kPass;
    card.line("    " + std::string(mark) + "  " + row.label);
    if (row.bus_bw.empty()) {
      card.line("       no bandwidth data");
    } else if (row.provisional) {
      card.line("       " + row.bus_bw + " (provisional: " + row.provisional_reason + ")");
    } else {
      card.line("       " + row.bus_bw + (row.below_min ? "  LOW" : ""));
    }
    if (!row.transport.empty()) card.line("       Transport: " + join(row.transport));
    if (bad)
      for (const auto& node : row.nodes) card.line("       - " + node);
  }
}

void render_bandwidth(Card& card, const CategoryReport& category) {
  const bool per_group = !category.group_bandwidth.empty();
  if (category.bandwidth.empty() && (per_group || category.transport.empty())) return;
  card.blank();
  if (!per_group && !category.transport.empty())
    card.line("Transport: " + join(category.transport));
  if (category.bandwidth.empty()) return;
  card.line("Bandwidth:");
  char row[160];
  std::snprintf(row, sizeof row, "    %-10s %-12s %-12s %s", "Size", "AlgBW", "BusBW", "Samples");
  card.raw(row);
  for (const auto& bandwidth : category.bandwidth) {
    std::snprintf(row, sizeof row, "    %-10s %-12s %-12s %lld", bandwidth.size.c_str(),
                  bandwidth.alg_bw.c_str(), bandwidth.bus_bw.c_str(),
                  static_cast<long long>(bandwidth.samples));
    card.raw(row);
    if (bandwidth.provisional) card.raw("    (provisional: " + bandwidth.provisional_reason + ")");
  }
}

}  // namespace

void render_category(std::string& out, const CategoryReport& category) {
  Card card(out);
  card.top();
  card.line(category.domain + "/" + category.variant);
  card.separator();
  card.line("Status:    " + category.status);
  if (!category.failure_reason.empty())
    card.line(truncate_columns("Reason:    " + sanitize_terminal_text(category.failure_reason),
                               kBoxWidth - 4));
  if (!category.runtime.empty()) {
    std::string runtime = "Runtime:   " + category.runtime;
    if (!category.iterations.empty())
      runtime += " (across " + std::to_string(category.iterations.size()) + " iterations)";
    card.line(runtime);
  }
  if (!category.iterations.empty()) render_iterations(card, category.iterations);
  if (!category.test_scale.empty()) card.line("Scale:     " + category.test_scale);
  if (category.nodes_per_job > 0) card.line("Nodes/Job: " + std::to_string(category.nodes_per_job));
  if (category.jobs > 0) card.line("Jobs:      " + std::to_string(category.jobs));
  if (!category.mnnvl.empty()) card.line("MNNVL:     " + category.mnnvl);
  render_failed_groups(card, category.failed_groups);
  if (!category.cliques.empty()) render_cliques(card, category);
  if (!category.domains.empty()) render_domains(card, out, category);
  if (!category.group_bandwidth.empty() && category.cliques.empty())
    render_group_bandwidth(card, category.group_bandwidth);
  render_bandwidth(card, category);
  card.bottom();
}

}  // namespace nvcre::report::detail
