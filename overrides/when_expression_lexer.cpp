#include "overrides/when_expression_lexer.hpp"

#include "overrides/override_error.hpp"
#include "overrides/when_expression.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace nvcre::overrides::cel {

// 1-based column in characters (UTF-8 continuation bytes do not count).
std::size_t Diagnostics::column(std::size_t offset) const {
  const auto prefix = source_.substr(0, std::min(offset, source_.size()));
  return 1 + static_cast<std::size_t>(std::count_if(prefix.begin(), prefix.end(), [](char c) {
           return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
         }));
}

void Diagnostics::unsupported(std::size_t begin, std::size_t end, const std::string& detail) const {
  std::string snippet(source_.substr(begin, end > begin ? end - begin : 1));
  if (snippet.size() > 60) {
    std::size_t cut = 57;
    while (cut > 0 && (static_cast<unsigned char>(snippet[cut]) & 0xC0) == 0x80)
      --cut;  // never split a character
    snippet = snippet.substr(0, cut) + "...";
  }
  throw OverrideError("unsupported CEL construct \"" + snippet + "\" at position " +
                      std::to_string(column(begin)) + (detail.empty() ? "" : " (" + detail + ")") +
                      "; supported: " + std::string(kSupportedCelSubset));
}

void Diagnostics::syntax_error(std::size_t offset, const std::string& detail) const {
  throw OverrideError("CEL syntax error at position " + std::to_string(column(offset)) + ": " +
                      detail);
}

std::string Diagnostics::token_text(const Token& token) const {
  return token.kind == TokenKind::kEnd
             ? "end of expression"
             : std::string(source_.substr(token.begin, token.end - token.begin));
}

namespace {

class Lexer {
 public:
  explicit Lexer(const Diagnostics& diagnostics)
      : diagnostics_(diagnostics), source_(diagnostics.source()) {}

  std::vector<Token> run() {
    tokenize();
    return std::move(tokens_);
  }

 private:
  void tokenize() {
    std::size_t i = 0;
    const std::size_t n = source_.size();
    auto at = [&](std::size_t k) { return k < n ? source_[k] : '\0'; };
    while (i < n) {
      const char c = source_[i];
      const std::size_t begin = i;
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (std::isalnum(static_cast<unsigned char>(at(i))) || at(i) == '_') ++i;
        static constexpr std::string_view kStringPrefixes[] = {"r",  "R",  "b",  "B",  "rb", "rB",
                                                               "Rb", "RB", "br", "bR", "Br", "BR"};
        const std::string_view word = source_.substr(begin, i - begin);
        if ((at(i) == '"' || at(i) == '\'') &&
            std::find(std::begin(kStringPrefixes), std::end(kStringPrefixes), word) !=
                std::end(kStringPrefixes)) {
          diagnostics_.unsupported(begin, i + 1, "raw and bytes string literals");
        }
        tokens_.push_back(
            {TokenKind::kIdentifier, std::string(source_.substr(begin, i - begin)), 0, begin, i});
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        tokens_.push_back(lex_int(i));
      } else if (c == '"' || c == '\'') {
        tokens_.push_back(lex_string(i));
      } else {
        static constexpr std::string_view kTwoChar[] = {"==", "!=", "<=", ">=", "&&", "||"};
        const std::string_view two = source_.substr(i, 2);
        if (std::find(std::begin(kTwoChar), std::end(kTwoChar), two) != std::end(kTwoChar)) {
          i += 2;
        } else if (std::string_view("<>!()[],.-+*/%?:{}").find(c) != std::string_view::npos) {
          ++i;
        } else if (c == '=' || c == '&' || c == '|') {
          diagnostics_.syntax_error(
              begin, std::string("unexpected \"") + c + "\" (did you mean \"" + c + c + "\"?)");
        } else {
          diagnostics_.syntax_error(
              begin, "unexpected character \"" + std::string(source_.substr(i, 1)) + "\"");
        }
        if (i > begin)
          tokens_.push_back(
              {TokenKind::kSymbol, std::string(source_.substr(begin, i - begin)), 0, begin, i});
      }
    }
    tokens_.push_back({TokenKind::kEnd, "", 0, n, n});
  }

  Token lex_int(std::size_t& i) {
    const std::size_t begin = i;
    const std::size_t n = source_.size();
    const bool hex = source_.substr(i, 2) == "0x" || source_.substr(i, 2) == "0X";
    if (hex) i += 2;
    const std::size_t digits_begin = i;
    while (i < n && (hex ? std::isxdigit(static_cast<unsigned char>(source_[i]))
                         : std::isdigit(static_cast<unsigned char>(source_[i]))))
      ++i;
    if (i < n && (source_[i] == '.' || source_[i] == 'e' || source_[i] == 'E') && !hex) {
      while (i < n && (std::isalnum(static_cast<unsigned char>(source_[i])) || source_[i] == '.'))
        ++i;
      diagnostics_.unsupported(begin, i, "floating-point literals");
    }
    if (i < n && (source_[i] == 'u' || source_[i] == 'U'))
      diagnostics_.unsupported(begin, i + 1, "unsigned integer literals");
    if (i == digits_begin ||
        (i < n && (std::isalpha(static_cast<unsigned char>(source_[i])) || source_[i] == '_'))) {
      diagnostics_.syntax_error(begin, "malformed integer literal");
    }
    std::uint64_t value = 0;
    const std::uint64_t base = hex ? 16 : 10;
    for (std::size_t k = digits_begin; k < i; ++k) {
      const char d = source_[k];
      const std::uint64_t digit = std::isdigit(static_cast<unsigned char>(d))
                                      ? static_cast<std::uint64_t>(d - '0')
                                      : static_cast<std::uint64_t>(std::tolower(d) - 'a' + 10);
      if (value >
          (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - digit) / base) {
        diagnostics_.syntax_error(begin, "integer literal out of range");
      }
      value = value * base + digit;
    }
    return {TokenKind::kInt, "", static_cast<std::int64_t>(value), begin, i};
  }

  Token lex_string(std::size_t& i) {
    const std::size_t begin = i;
    const char quote = source_[i];
    if (source_.substr(i, 3) == std::string(3, quote))
      diagnostics_.unsupported(begin, begin + 3, "triple-quoted strings");
    ++i;
    std::string value;
    while (true) {
      if (i >= source_.size()) diagnostics_.syntax_error(begin, "unterminated string literal");
      const char c = source_[i];
      if (c == quote) break;
      if (c == '\n' || c == '\r') diagnostics_.syntax_error(i, "newline in string literal");
      if (c == '\\') {
        const char e = i + 1 < source_.size() ? source_[i + 1] : '\0';
        switch (e) {
          case '\\':
            value += '\\';
            break;
          case '"':
            value += '"';
            break;
          case '\'':
            value += '\'';
            break;
          case 'n':
            value += '\n';
            break;
          case 'r':
            value += '\r';
            break;
          case 't':
            value += '\t';
            break;
          default:
            diagnostics_.unsupported(i, i + 2,
                                     "string escape; supported: \\\\ \\\" \\' \\n \\r \\t");
        }
        i += 2;
      } else {
        value += c;
        ++i;
      }
    }
    ++i;
    return {TokenKind::kString, std::move(value), 0, begin, i};
  }

  const Diagnostics& diagnostics_;
  std::string_view source_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(const Diagnostics& diagnostics) { return Lexer(diagnostics).run(); }

}  // namespace nvcre::overrides::cel
