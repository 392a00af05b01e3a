#pragma once
// Card drawing for the text report (internal to report/): every card line is exactly kBoxWidth
// columns, measured with display_width so ✓ / ✗ and wide characters keep the right border
// straight.
#include "report/text.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::report::detail {

class Card {
 public:
  explicit Card(std::string& out) : out_(out) {}

  void top() { rule("┌", "┐"); }
  void separator() { rule("├", "┤"); }
  void bottom() { rule("└", "┘"); }
  void blank() { framed("", 0); }
  // "│  <content><padding>│"
  void line(std::string_view content) { framed(content, 2); }
  // "│<content><padding>│" (tables indent themselves)
  void raw(std::string_view content) { framed(content, 0); }
  // `value` sanitised and wrapped after `prefix`, every piece a line of its own.
  void wrapped(std::string_view prefix, std::string_view value);

 private:
  void rule(std::string_view left, std::string_view right);
  void framed(std::string_view content, int indent);
  std::string& out_;
};

// `value` split at newlines, each line sanitised and cut into pieces that fit after `prefix`.
std::vector<std::string> wrap_lines(std::string_view prefix, std::string_view value);

// `text` cut to `columns` display columns, ending in "..." when cut.
std::string truncate_columns(std::string_view text, int columns);

std::string spaces(int count);

void render_category(std::string& out, const CategoryReport& category);

}  // namespace nvcre::report::detail
