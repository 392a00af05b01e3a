#include "report/html.hpp"

#include "report/html_parts.hpp"
#include "report/markup.hpp"
#include "report/text.hpp"

#include <cstdio>

namespace nvcre::report {
namespace html {

namespace {

std::string escaped_lines(std::string_view value, bool in_attribute) {
  std::string out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = value.find('\n', start);
    if (end == std::string_view::npos) end = value.size();
    std::string_view line = value.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (start > 0) out += in_attribute ? "&#10;" : "\n";
    out += xml_escape(sanitize_terminal_text(line), in_attribute);
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string text(std::string_view value) { return escaped_lines(value, false); }
std::string attribute(std::string_view value) { return escaped_lines(value, true); }

std::string number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string verdict_class(std::string_view verdict) {
  if (verdict == "Passed" || verdict == "Succeeded" || verdict == "PASSED") return "passed";
  if (verdict == "Failed" || verdict == "HardwareFailed" || verdict == "ValidationFailed" ||
      verdict == "FAILED")
    return "failed";
  if (verdict == "Excluded" || verdict == "INCOMPLETE") return "excluded";
  if (verdict == "Running" || verdict == "Pending" || verdict == "RUNNING") return "running";
  return "untested";
}

}  // namespace html

namespace {

using html::text;

constexpr std::string_view kStyle = R"(
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#1d1d1f;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px}h3{font-size:16px;margin:0 0 8px}
h4{font-size:14px;margin:16px 0 6px}
section.category,section.summary{border:1px solid #d0d0d7;border-radius:8px;padding:16px;margin:16px 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}dt{color:#555}dd{margin:0}
table{border-collapse:collapse;margin:4px 0}th,td{padding:2px 12px 2px 0;text-align:left}
th{color:#555;font-weight:600}pre{background:#f5f5f7;padding:8px;overflow-x:auto;font-size:12px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;font-weight:600}
.badge.passed,.node.passed{background:#2e7d32}.badge.failed,.node.failed{background:#c62828}
.badge.excluded,.node.excluded{background:#757575}.badge.running,.node.running{background:#b26a00}
.badge.untested,.node.untested{background:#9e9e9e}
.nodes{display:grid;grid-template-columns:repeat(auto-fill,minmax(130px,1fr));gap:6px}
.node{color:#fff;border-radius:6px;padding:6px 8px;overflow-wrap:anywhere;cursor:help}
.node small{display:block;opacity:.9}
.chart svg{width:100%;max-width:720px;height:auto}figure{margin:8px 0}
.grid{stroke:#e4e4ea}.axis{stroke:#444}.tick{font-size:11px;fill:#555}.label{font-size:12px;fill:#333}
.threshold{stroke:#c62828;stroke-width:1.5;stroke-dasharray:6 4}
.threshold-label{font-size:12px;fill:#c62828}
.series polyline{fill:none;stroke-width:2}.failed-series polyline{stroke-dasharray:3 3}
.s0{stroke:#1f77b4;fill:#1f77b4}.s1{stroke:#ff7f0e;fill:#ff7f0e}.s2{stroke:#2ca02c;fill:#2ca02c}
.s3{stroke:#9467bd;fill:#9467bd}.s4{stroke:#8c564b;fill:#8c564b}.s5{stroke:#e377c2;fill:#e377c2}
.s6{stroke:#17becf;fill:#17becf}.s7{stroke:#7f7f7f;fill:#7f7f7f}
.legend{list-style:none;padding:0;margin:4px 0}.legend li{margin:2px 0}
.swatch{display:inline-block;width:14px;height:4px;margin-right:6px;vertical-align:middle}
.swatch.s0{background:#1f77b4}.swatch.s1{background:#ff7f0e}.swatch.s2{background:#2ca02c}
.swatch.s3{background:#9467bd}.swatch.s4{background:#8c564b}.swatch.s5{background:#e377c2}
.swatch.s6{background:#17becf}.swatch.s7{background:#7f7f7f}
.timeline{overflow-x:auto}.timeline text{font-size:11px}.round{font-weight:600}.stage{fill:#555}
.job rect{stroke:none}.job text{fill:#fff}.job.passed rect{fill:#2e7d32}.job.failed rect{fill:#c62828}
.job.running rect,.job.untested rect{fill:#9e9e9e}.arrow{stroke:#999;stroke-width:2}
)";

std::string badge(std::string_view verdict) {
  return "<span class=\"badge " + html::verdict_class(verdict) + "\">" + text(verdict) + "</span>";
}

void row(std::string& out, std::string_view term, const std::string& value_html) {
  if (value_html.empty()) return;
  out += "<dt>" + std::string(term) + "</dt><dd>" + value_html + "</dd>";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

void render_header(std::string& out, const CertificationReport& report) {
  out += "<h2>" + text(report.name) + " " + badge(report.result) + "</h2><dl>";
  row(out, "Name", text(report.name));
  row(out, "Platform", text(report.platform));
  row(out, "GPU", text(report.gpu));
  if (report.total_nodes > 0) row(out, "Nodes", std::to_string(report.total_nodes));
  if (!report.excluded_nodes.empty())
    row(out, "Excluded",
        std::to_string(report.excluded_nodes.size()) + " (" + text(joined(report.excluded_nodes)) +
            ")" + (report.exclusion_reason.empty() ? "" : "<br>" + text(report.exclusion_reason)));
  out += "</dl>";
}

void render_nodes(std::string& out, const CertificationReport& report) {
  if (report.nodes.empty()) return;
  out += "<h3>Nodes</h3><div class=\"nodes\">";
  for (const auto& node : report.nodes) {
    std::string hover = node.name + ": " + node.verdict;
    for (const auto& reason : node.reasons) hover += "\n" + reason;
    out += "<div class=\"node " + html::verdict_class(node.verdict) + "\" title=\"" +
           html::attribute(hover) + "\">" + text(node.name) + "<small>" + text(node.verdict) +
           "</small></div>";
  }
  out += "</div>";
}

void render_failed_groups(std::string& out, const CategoryReport& category) {
  if (category.failed_groups.empty()) return;
  out += "<h4>Failed Groups</h4><ul>";
  for (const auto& group : category.failed_groups) {
    out += "<li><strong>" + text(group.name) + "</strong> (" + std::to_string(group.node_count) +
           " nodes: " + text(joined(group.nodes)) + ")";
    if (!group.reason.empty()) out += "<br>" + text(group.reason);
    if (const auto& log = group.failure_log) {
      out += "<br>pod " + text(log->pod_name) + " on " + text(log->node_name) + ", exit code " +
             std::to_string(log->exit_code) +
             (log->reason.empty() ? "" : " (" + text(log->reason) + ")");
      if (!log->tail.empty()) out += "<pre>" + text(log->tail) + "</pre>";
    }
    out += "</li>";
  }
  out += "</ul>";
}

void render_tables(std::string& out, const CategoryReport& category) {
  if (!category.cliques.empty()) {
    out += "<h4>Cliques</h4><table><tr><th>Clique</th><th>Validated</th><th></th></tr>";
    for (const auto& c : category.cliques)
      out += "<tr><td>" + text(c.name) + "</td><td>" + std::to_string(c.validated) + "/" +
             std::to_string(c.total) + " nodes</td><td>" + badge(c.passed ? "Passed" : "Failed") +
             "</td></tr>";
    out += "</table>";
  }
  if (!category.domains.empty()) {
    out +=
        "<h4>Training Metrics</h4><table><tr><th>Domain</th><th>Nodes</th><th>Goodput</th>"
        "<th>TFLOPS/GPU</th><th>Step Time</th></tr>";
    for (const auto& d : category.domains)
      out += "<tr><td>" + text(d.name) + "</td><td>" + std::to_string(d.node_count) + "</td><td>" +
             text(d.goodput) + "</td><td>" + text(d.tflops) + "</td><td>" + text(d.step_time) +
             "</td></tr>";
    out += "</table>";
  }
  if (!category.bandwidth.empty()) {
    out +=
        "<h4>Bandwidth</h4><table><tr><th>Size</th><th>AlgBW</th><th>BusBW</th>"
        "<th>Samples</th><th></th></tr>";
    for (const auto& b : category.bandwidth)
      out += "<tr><td>" + text(b.size) + "</td><td>" + text(b.alg_bw) + "</td><td>" +
             text(b.bus_bw) + "</td><td>" + std::to_string(b.samples) + "</td><td>" +
             (b.provisional ? "provisional: " + text(b.provisional_reason) : "") + "</td></tr>";
    out += "</table>";
  }
  if (!category.group_bandwidth.empty()) {
    out += "<h4>Per Group</h4><table><tr><th>Group</th><th>Peak BusBW</th><th></th></tr>";
    for (const auto& g : category.group_bandwidth)
      out += "<tr><td>" + text(g.label) + "</td><td>" + text(g.bus_bw) + "</td><td>" +
             (g.failed ? badge("Failed") : "") + (g.below_min ? " below minimum" : "") +
             (g.provisional ? " provisional: " + text(g.provisional_reason) : "") + "</td></tr>";
    out += "</table>";
  }
  if (!category.iterations.empty()) {
    out += "<h4>Iterations</h4><table><tr><th>#</th><th>Status</th><th>Duration</th></tr>";
    for (const auto& i : category.iterations)
      out += "<tr><td>" + std::to_string(i.number) + "</td><td>" + badge(i.status) + "</td><td>" +
             text(i.duration) + "</td></tr>";
    out += "</table>";
  }
}

void render_category(std::string& out, const CategoryReport& category) {
  out += "<section class=\"category\"><h3>" + text(category.domain + "/" + category.variant) + " " +
         badge(category.status.empty() ? "Pending" : category.status) + "</h3><dl>";
  row(out, "Status", text(category.status));
  row(out, "Reason", text(category.failure_reason));
  row(out, "Runtime", text(category.runtime));
  row(out, "Scale", text(category.test_scale));
  if (category.nodes_per_job > 0) row(out, "Nodes/Job", std::to_string(category.nodes_per_job));
  if (category.jobs > 0) row(out, "Jobs", std::to_string(category.jobs));
  row(out, "MNNVL", text(category.mnnvl));
  row(out, "Transport", text(joined(category.transport)));
  out += "</dl>";
  render_failed_groups(out, category);
  render_tables(out, category);
  if (auto chart = html::bandwidth_chart(category); !chart.empty())
    out += "<h4>Bus Bandwidth by Message Size</h4>" + chart;
  if (auto timeline = html::diagnose_timeline(category); !timeline.empty())
    out +=
        "<h4>Diagnose Rounds" +
        (category.diagnose_stage.empty() ? "" : " (stage: " + text(category.diagnose_stage) + ")") +
        "</h4>" + timeline;
  out += "</section>";
}

// The text report's Summary card, as a section.
void render_summary(std::string& out, const CertificationReport& report) {
  std::size_t passed = 0;
  for (const auto& category : report.categories) passed += category.status == "Succeeded";
  out += "<section class=\"summary\"><h3>Summary</h3><dl>";
  row(out, "Categories",
      std::to_string(passed) + "/" + std::to_string(report.categories.size()) + " passed");
  if (report.failed_nodes.empty()) {
    row(out, "Failed Nodes", "none");
  } else {
    std::string list = std::to_string(report.failed_nodes.size()) + "<ul>";
    for (const auto& node : report.failed_nodes) list += "<li>" + text(node) + "</li>";
    row(out, "Failed Nodes", list + "</ul>");
  }
  row(out, "Result", badge(report.result));
  out += "</dl></section>";
}

}  // namespace

std::string render_html(const std::vector<CertificationReport>& reports) {
  const std::string title = !reports.empty() && !reports.front().title.empty()
                                ? reports.front().title
                                : "Certification Report";
  std::string names;
  for (const auto& report : reports) names += (names.empty() ? "" : ", ") + report.name;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      // Nothing is fetched: the page is whole as written, and a browser refuses anything else.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
      text(title) + (names.empty() ? "" : ": " + text(names)) + "</title><style>" +
      std::string(kStyle) + "</style></head>\n<body><h1>" + text(title) + "</h1>\n";
  for (const auto& report : reports) {
    out += "<article>";
    render_header(out, report);
    render_summary(out, report);
    render_nodes(out, report);
    for (const auto& category : report.categories) render_category(out, category);
    out += "</article>\n";
  }
  return out + "</body></html>\n";
}

}  // namespace nvcre::report
