// The HTML page's drawings: the bandwidth chart and the diagnose timeline, as inline SVG.
#include "report/build.hpp"
#include "report/html_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nvcre::report::html {
namespace {

constexpr int kPalette = 8;  // series colours .s0 ... .s7 in the page's CSS

// The chart's frame: pixel positions of the plot area and the data ranges mapped onto it.
struct Frame {
  double width = 720, height = 320, left = 70, right = 20, top = 20, bottom = 50;
  double log_min = 0, log_max = 1;  // log2 of the message sizes at the plot's edges
  double y_max = 1;                 // GB/s at the plot's top

  double x(std::int64_t size) const {
    const double at = std::log2(static_cast<double>(std::max<std::int64_t>(size, 1)));
    return left + (at - log_min) / (log_max - log_min) * (width - left - right);
  }
  double y(double gbps) const { return height - bottom - gbps / y_max * (height - top - bottom); }
};

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0})
    if (factor * power >= raw) return factor * power;
  return 10 * power;
}

Frame frame_of(const CategoryReport& category) {
  Frame frame;
  std::int64_t smallest = 0, largest = 0;
  double top = 0;
  for (const auto& curve : category.curves)
    for (const auto& point : curve.points) {
      if (point.size_bytes <= 0) continue;
      smallest = smallest == 0 ? point.size_bytes : std::min(smallest, point.size_bytes);
      largest = std::max(largest, point.size_bytes);
      top = std::max(top, point.bus_gbps);
    }
  frame.log_min = std::floor(std::log2(static_cast<double>(std::max<std::int64_t>(smallest, 1))));
  frame.log_max = std::ceil(std::log2(static_cast<double>(std::max<std::int64_t>(largest, 1))));
  if (frame.log_max - frame.log_min < 2) {  // one size: centre it
    frame.log_min -= 1;
    frame.log_max += 1;
  }
  if (category.threshold.boundary_gbps) top = std::max(top, *category.threshold.boundary_gbps);
  const double step = nice_step(std::max(top * 1.1, 1.0) / 5);
  frame.y_max = step * std::ceil(std::max(top * 1.1, 1.0) / step);
  return frame;
}

void axes(std::string& out, const Frame& f) {
  const std::string x0 = number(f.left, 1), x1 = number(f.width - f.right, 1);
  const std::string y0 = number(f.height - f.bottom, 1), y1 = number(f.top, 1);
  const double step = nice_step(f.y_max / 5);
  for (double v = 0; v <= f.y_max + step / 2; v += step) {
    const std::string y = number(f.y(v), 1);
    out += "<line class=\"grid\" x1=\"" + x0 + "\" y1=\"" + y + "\" x2=\"" + x1 + "\" y2=\"" + y +
           "\"/><text class=\"tick\" x=\"" + number(f.left - 6, 1) + "\" y=\"" + y +
           "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + number(v, 0) + "</text>";
  }
  // Powers of two, at most nine labels.
  const int span = static_cast<int>(f.log_max - f.log_min);
  const int stride = std::max(1, (span + 8) / 9);
  for (int k = static_cast<int>(f.log_min); k <= static_cast<int>(f.log_max); k += stride) {
    const std::int64_t size = std::int64_t{1} << std::clamp(k, 0, 62);
    const std::string x = number(f.x(size), 1);
    out += "<line class=\"grid\" x1=\"" + x + "\" y1=\"" + y0 + "\" x2=\"" + x + "\" y2=\"" + y1 +
           "\"/><text class=\"tick\" x=\"" + x + "\" y=\"" + number(f.height - f.bottom + 16, 1) +
           "\" text-anchor=\"middle\">" + text(human_size(size)) + "</text>";
  }
  out += "<line class=\"axis\" x1=\"" + x0 + "\" y1=\"" + y0 + "\" x2=\"" + x1 + "\" y2=\"" + y0 +
         "\"/><line class=\"axis\" x1=\"" + x0 + "\" y1=\"" + y0 + "\" x2=\"" + x0 + "\" y2=\"" +
         y1 + "\"/>";
  out += "<text class=\"label\" x=\"" + number((f.left + f.width - f.right) / 2, 1) + "\" y=\"" +
         number(f.height - 8, 1) +
         "\" text-anchor=\"middle\">message size (log scale)</text><text class=\"label\" "
         "transform=\"translate(16 " +
         number((f.top + f.height - f.bottom) / 2, 1) +
         ") rotate(-90)\" text-anchor=\"middle\">bus bandwidth (GB/s)</text>";
}

// Labelled at the left, where small messages keep the curves low, so the text stays readable.
void threshold_line(std::string& out, const Frame& f, const BandwidthThreshold& threshold) {
  if (!threshold.boundary_gbps) return;
  const std::string y = number(f.y(*threshold.boundary_gbps), 1);
  out += "<line class=\"threshold\" x1=\"" + number(f.left, 1) + "\" y1=\"" + y + "\" x2=\"" +
         number(f.width - f.right, 1) + "\" y2=\"" + y +
         "\"><title>busBandwidthGBps: " + text(threshold.expression) +
         "</title></line><text class=\"threshold-label\" x=\"" + number(f.left + 6, 1) + "\" y=\"" +
         number(f.y(*threshold.boundary_gbps) - 5, 1) + "\">" +
         (threshold.minimum ? "minimum " : "maximum ") + number(*threshold.boundary_gbps, 2) +
         " GB/s (" + text(threshold.expression) + ")</text>";
}

void series(std::string& out, const Frame& f, const BandwidthCurve& curve, std::size_t index) {
  const std::string cls = "s" + std::to_string(index % kPalette);
  std::string points;
  for (const auto& p : curve.points)
    points += (points.empty() ? "" : " ") + number(f.x(p.size_bytes), 1) + "," +
              number(f.y(p.bus_gbps), 1);
  out += "<g class=\"series " + cls + (curve.failed ? " failed-series" : "") +
         "\"><polyline points=\"" + points + "\"/>";
  for (const auto& p : curve.points)
    out += "<circle cx=\"" + number(f.x(p.size_bytes), 1) + "\" cy=\"" +
           number(f.y(p.bus_gbps), 1) + "\" r=\"3\"><title>" + text(curve.label) + ": " +
           text(human_size(p.size_bytes)) + ", bus " + number(p.bus_gbps, 2) + " GB/s, alg " +
           number(p.alg_gbps, 2) + " GB/s</title></circle>";
  out += "</g>";
}

}  // namespace

std::string bandwidth_chart(const CategoryReport& category) {
  bool any = false;
  for (const auto& curve : category.curves) any = any || !curve.points.empty();
  if (!any) return {};
  const Frame f = frame_of(category);
  std::string out =
      "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
      number(f.width, 0) + " " + number(f.height, 0) +
      "\" role=\"img\" aria-label=\"bus bandwidth against message size\">";
  axes(out, f);
  for (std::size_t i = 0; i < category.curves.size(); ++i) series(out, f, category.curves[i], i);
  threshold_line(out, f, category.threshold);
  out += "</svg><figcaption><ul class=\"legend\">";
  for (std::size_t i = 0; i < category.curves.size(); ++i) {
    const auto& curve = category.curves[i];
    const double peak = curve.points.empty() ? 0 : curve.points.back().bus_gbps;
    out += "<li><span class=\"swatch s" + std::to_string(i % kPalette) + "\"></span>" +
           text(curve.label) + ": " + number(peak, 2) + " GB/s at " +
           text(curve.points.empty() ? "" : human_size(curve.points.back().size_bytes)) +
           (curve.failed ? " <span class=\"badge failed\">group failed</span>" : "") +
           (curve.provisional ? " <span class=\"badge running\">provisional</span>" : "") + "</li>";
  }
  return out + "</ul></figcaption></figure>";
}

std::string diagnose_timeline(const CategoryReport& category) {
  const auto& rounds = category.diagnose_rounds;
  if (rounds.empty()) return {};
  constexpr double column = 150, gap = 24, box = 24, head = 40;
  std::size_t tallest = 0;
  for (const auto& round : rounds) tallest = std::max(tallest, round.jobs.size());
  const double width = static_cast<double>(rounds.size()) * (column + gap);
  const double height = head + static_cast<double>(tallest) * (box + 6) + 4;
  std::string out = "<div class=\"timeline\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    number(width, 0) + "\" height=\"" + number(height, 0) + "\" viewBox=\"0 0 " +
                    number(width, 0) + " " + number(height, 0) +
                    "\" role=\"img\" aria-label=\"diagnose rounds\">";
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    const double x = static_cast<double>(r) * (column + gap);
    out += "<text class=\"round\" x=\"" + number(x, 1) + "\" y=\"14\">round " +
           std::to_string(r + 1) + "</text><text class=\"stage\" x=\"" + number(x, 1) +
           "\" y=\"30\">" + text(rounds[r].stage) + "</text>";
    if (r + 1 < rounds.size())
      out += "<line class=\"arrow\" x1=\"" + number(x + column + 4, 1) + "\" y1=\"" +
             number(head + box / 2, 1) + "\" x2=\"" + number(x + column + gap - 4, 1) + "\" y2=\"" +
             number(head + box / 2, 1) + "\"/>";
    for (std::size_t j = 0; j < rounds[r].jobs.size(); ++j) {
      const auto& job = rounds[r].jobs[j];
      const double y = head + static_cast<double>(j) * (box + 6);
      std::string nodes;
      for (const auto& node : job.nodes) nodes += (nodes.empty() ? "" : ", ") + node;
      out += "<g class=\"job " + verdict_class(job.verdict) + "\"><title>" + text(job.group) +
             ": " + text(job.verdict) + "\nnodes: " + text(nodes) +
             (job.message.empty() ? "" : "\n" + text(job.message)) + "</title><rect x=\"" +
             number(x, 1) + "\" y=\"" + number(y, 1) + "\" width=\"" + number(column, 1) +
             "\" height=\"" + number(box, 1) + "\" rx=\"4\"/><text x=\"" + number(x + 6, 1) +
             "\" y=\"" + number(y + 16, 1) + "\">" + text(job.group) + " " + text(job.verdict) +
             "</text></g>";
    }
  }
  return out + "</svg></div>";
}

}  // namespace nvcre::report::html
