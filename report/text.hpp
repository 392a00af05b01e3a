#pragma once
// The human report: a banner, then per certification a header and one 66-column box-drawn card
// per category, and a Summary card. Untrusted text (workload log tails, reasons) is sanitised:
// control and bidi characters escaped, invalid UTF-8 replaced, tabs expanded, wrapped to the card.
#include "report/model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::report {

inline constexpr int kBoxWidth = 66;

// One report uses a "Name:" line; several share one banner and get a separator line each.
std::string render_text(const std::vector<CertificationReport>& reports);

// `text` with C0/C1/DEL escaped as \xNN, bidi controls as \uNNNN, invalid UTF-8 as U+FFFD and
// tabs as four spaces (no newlines expected: callers split lines first).
std::string sanitize_terminal_text(std::string_view text);

// Terminal columns `text` (valid UTF-8) takes: combining marks zero, East Asian wide two.
int display_width(std::string_view text);

}  // namespace nvcre::report
