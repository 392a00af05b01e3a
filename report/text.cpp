#include "report/text.hpp"

#include "report/text_box.hpp"

#include <algorithm>
#include <cstdio>

namespace nvcre::report {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Decodes one UTF-8 sequence at `pos` (advancing it); malformed input yields U+FFFD for one byte.
char32_t next_code_point(std::string_view text, std::size_t& pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  int length = lead >= 0xF0 && lead <= 0xF4  ? 4
               : lead >= 0xE0                ? 3
               : lead >= 0xC2 && lead < 0xE0 ? 2
                                             : 0;
  if (length == 0 || lead > 0xF4 || pos + length > text.size()) {
    ++pos;
    return kReplacement;
  }
  char32_t cp = lead & (0x7F >> length);
  for (int i = 1; i < length; ++i) {
    const unsigned char c = byte(pos + i);
    if ((c & 0xC0) != 0x80) {
      ++pos;
      return kReplacement;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid too.
  const bool overlong = (length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    ++pos;
    return kReplacement;
  }
  pos += length;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool is_bidi_control(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// Zero-width: combining marks and format characters (the common blocks).
bool is_zero_width(char32_t cp) {
  return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
         (cp >= 0x1DC0 && cp <= 0x1DFF) || (cp >= 0x20D0 && cp <= 0x20FF) ||
         (cp >= 0xFE20 && cp <= 0xFE2F) || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF ||
         cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
}

// East Asian Wide / Fullwidth (the blocks that occur in practice, emoji included).
bool is_wide(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
         (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
         (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

int columns_of(char32_t cp) { return is_zero_width(cp) ? 0 : is_wide(cp) ? 2 : 1; }

}  // namespace

std::string sanitize_terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char escape[16];
  for (std::size_t pos = 0; pos < text.size();) {
    const char32_t cp = next_code_point(text, pos);
    if (cp == '\t') {
      out += "    ";
    } else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
      std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(cp));
      out += escape;
    } else if (is_bidi_control(cp)) {
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(cp));
      out += escape;
    } else {
      append_utf8(out, cp);
    }
  }
  return out;
}

int display_width(std::string_view text) {
  int columns = 0;
  for (std::size_t pos = 0; pos < text.size();) columns += columns_of(next_code_point(text, pos));
  return columns;
}

namespace detail {

std::string spaces(int count) { return count > 0 ? std::string(count, ' ') : std::string(); }

void Card::rule(std::string_view left, std::string_view right) {
  out_ += left;
  for (int i = 0; i < kBoxWidth - 2; ++i) out_ += "─";
  out_ += right;
  out_ += '\n';
}

void Card::framed(std::string_view content, int indent) {
  out_ += "│";
  out_ += spaces(indent);
  out_ += content;
  out_ += spaces(kBoxWidth - 2 - indent - display_width(content));
  out_ += "│\n";
}

void Card::wrapped(std::string_view prefix, std::string_view value) {
  // Continuation lines are indented under the first one's text, not labelled again.
  const std::string indent = spaces(display_width(prefix));
  bool first = true;
  for (const auto& piece : wrap_lines(prefix, value)) {
    line((first ? std::string(prefix) : indent) + piece);
    first = false;
  }
}

std::vector<std::string> wrap_lines(std::string_view prefix, std::string_view value) {
  const int available = std::max(kBoxWidth - 4 - display_width(prefix), 1);
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = value.find('\n', start);
    if (end == std::string_view::npos) end = value.size();
    std::string_view raw = value.substr(start, end - start);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const std::string clean = sanitize_terminal_text(raw);
    std::string piece;
    int columns = 0;
    for (std::size_t pos = 0; pos < clean.size();) {
      const std::size_t at = pos;
      const int width = columns_of(next_code_point(clean, pos));
      if (columns + width > available && !piece.empty()) {
        out.push_back(std::move(piece));
        piece.clear();
        columns = 0;
      }
      piece.append(clean, at, pos - at);
      columns += width;
    }
    out.push_back(std::move(piece));
    start = end + 1;
  }
  return out;
}

std::string truncate_columns(std::string_view text, int columns) {
  if (display_width(text) <= columns) return std::string(text);
  std::string out;
  int used = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t at = pos;
    const int width = columns_of(next_code_point(text, pos));
    if (used + width > columns - 3) break;
    out.append(text, at, pos - at);
    used += width;
  }
  return out + "...";
}

}  // namespace detail

namespace {

void render_banner(std::string& out, const std::string& title) {
  std::string rule;
  for (int i = 0; i < kBoxWidth - 2; ++i) rule += "═";
  const int inner = kBoxWidth - 2 - display_width(title);
  const int left = inner / 2;
  out += "\n╔" + rule + "╗\n";
  out += "║" + detail::spaces(left) + title + detail::spaces(inner - left) + "║\n";
  out += "╚" + rule + "╝\n\n";
}

void render_header(std::string& out, const CertificationReport& report, bool several) {
  if (several) {
    const std::string label = " " + report.name + " ";
    out += "━━" + label;
    for (int i = kBoxWidth - 2 - display_width(label); i > 0; --i) out += "━";
    out += '\n';
  } else {
    out += "  Name:      " + report.name + "\n";
  }
  if (!report.platform.empty()) out += "  Platform:  " + report.platform + "\n";
  if (!report.gpu.empty()) out += "  GPU:       " + report.gpu + "\n";
  if (report.total_nodes > 0) out += "  Nodes:     " + std::to_string(report.total_nodes) + "\n";
  // A run can pass while leaving nodes untested: say so next to the node count.
  if (!report.excluded_nodes.empty()) {
    std::string names;
    for (const auto& node : report.excluded_nodes) names += (names.empty() ? "" : ", ") + node;
    out += "  Excluded:  " + std::to_string(report.excluded_nodes.size()) + " (" + names + ")\n";
    if (!report.exclusion_reason.empty())
      out += "             " + sanitize_terminal_text(report.exclusion_reason) + "\n";
  }
  out += '\n';
}

void render_summary(std::string& out, const CertificationReport& report) {
  std::size_t passed = 0;
  for (const auto& category : report.categories) passed += category.status == "Succeeded";
  detail::Card card(out);
  card.top();
  card.line("Summary");
  card.separator();
  card.line("Categories:   " + std::to_string(passed) + "/" +
            std::to_string(report.categories.size()) + " passed");
  if (report.failed_nodes.empty()) {
    card.line("Failed Nodes: none");
  } else {
    card.line("Failed Nodes: " + std::to_string(report.failed_nodes.size()));
    for (const auto& node : report.failed_nodes) card.line("  - " + node);
  }
  card.line("Result:       " + report.result);
  card.bottom();
  out += '\n';
}

}  // namespace

std::string render_text(const std::vector<CertificationReport>& reports) {
  std::string out;
  const std::string title = !reports.empty() && !reports.front().title.empty()
                                ? reports.front().title
                                : "Certification Report";
  render_banner(out, title);
  for (const auto& report : reports) {
    render_header(out, report, reports.size() > 1);
    for (const auto& category : report.categories) {
      detail::render_category(out, category);
      out += '\n';
    }
    render_summary(out, report);
  }
  return out;
}

}  // namespace nvcre::report
