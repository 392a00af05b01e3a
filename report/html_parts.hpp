#pragma once
// Pieces of the HTML page (internal to report/): escaping and the two SVG drawings.
#include "report/model.hpp"

#include <string>
#include <string_view>

namespace nvcre::report::html {

// Cluster text for an element's content / a double-quoted attribute: each line sanitised
// (sanitize_terminal_text) and escaped (xml_escape); lines joined by a newline (&#10; in
// attributes).
std::string text(std::string_view value);
std::string attribute(std::string_view value);

// "%.2f" / "%.1f" with the C locale's decimal point.
std::string number(double value, int decimals);

// The CSS class of a verdict: passed, failed, excluded, untested, running.
std::string verdict_class(std::string_view verdict);

// An <svg> of every curve's bus bandwidth against message size, the threshold as a dashed line,
// followed by its legend; "" when no curve has a point.
std::string bandwidth_chart(const CategoryReport& category);

// An <svg> of the diagnose rounds left to right, each Job a box coloured by its verdict with its
// nodes and message on hover; "" without rounds.
std::string diagnose_timeline(const CategoryReport& category);

}  // namespace nvcre::report::html
