#include "sim/log_script.hpp"

#include <cstdio>

namespace nvcre::sim {

std::vector<std::string> command_tokens(const std::vector<std::string>& words) {
  std::vector<std::string> tokens;
  for (const auto& word : words) {
    std::size_t at = 0;
    while (at < word.size()) {
      const auto start = word.find_first_not_of(" \t\r\n", at);
      if (start == std::string::npos) break;
      const auto end = word.find_first_of(" \t\r\n", start);
      tokens.push_back(word.substr(start, end == std::string::npos ? end : end - start));
      at = end == std::string::npos ? word.size() : end;
    }
  }
  return tokens;
}

std::string stamp_script_line(std::string_view text, std::chrono::system_clock::time_point time) {
  const auto at = text.find(kAppTimeToken);
  if (at == std::string_view::npos) return std::string(text);
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto days = std::chrono::floor<std::chrono::days>(seconds);
  const std::chrono::year_month_day date{days};
  const std::chrono::hh_mm_ss clock{seconds - days};
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(time - seconds).count();
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02u %02d:%02d:%02d.%06lld",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<int>(clock.hours().count()),
                static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()), static_cast<long long>(micros));
  std::string out(text.substr(0, at));
  out += buffer;
  out += text.substr(at + kAppTimeToken.size());
  return out;
}

}  // namespace nvcre::sim
