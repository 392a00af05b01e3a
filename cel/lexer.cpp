#include "cel/lexer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

namespace nvcre::cel::detail {

std::string token_text(std::string_view source, const Token& token) {
  return token.kind == TokenKind::End
             ? "end of expression"
             : std::string(source.substr(token.begin, token.end - token.begin));
}

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

void append_utf8(std::string& out, std::uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

class Lexer {
 public:
  Lexer(const Diagnostics& diagnostics, const Features& features)
      : diagnostics_(diagnostics), features_(features), source_(diagnostics.source()) {}

  std::vector<Token> run() {
    std::size_t i = 0;
    while (i < source_.size()) {
      const char c = source_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        lex_word(i);
      } else if (is_digit(c)) {
        tokens_.push_back(lex_number(i));
      } else if (c == '"' || c == '\'') {
        tokens_.push_back(lex_string(i, i, false));
      } else {
        lex_symbol(i);
      }
    }
    tokens_.push_back({TokenKind::End, "", 0, 0, source_.size(), source_.size()});
    return std::move(tokens_);
  }

 private:
  char at(std::size_t k) const { return k < source_.size() ? source_[k] : '\0'; }

  void lex_word(std::size_t& i) {
    const std::size_t begin = i;
    while (is_word(at(i))) ++i;
    const std::string_view word = source_.substr(begin, i - begin);
    if (at(i) == '"' || at(i) == '\'') {
      const bool raw = word == "r" || word == "R";
      const bool bytes =
          !raw && word.size() <= 2 &&
          std::all_of(word.begin(), word.end(),
                      [](char c) { return c == 'b' || c == 'B' || c == 'r' || c == 'R'; }) &&
          word.find_first_of("bB") != std::string_view::npos &&
          (word.size() == 1 || std::tolower(word[0]) != std::tolower(word[1]));
      if (bytes || (raw && !features_.raw_strings)) {
        diagnostics_.unsupported(
            begin, i + 1,
            features_.raw_strings ? "bytes literals" : "raw and bytes string literals");
      }
      if (raw) {
        tokens_.push_back(lex_string(i, begin, true));
        return;
      }
    }
    tokens_.push_back({TokenKind::Identifier, std::string(word), 0, 0, begin, i});
  }

  void lex_symbol(std::size_t& i) {
    const std::size_t begin = i;
    const char c = source_[i];
    static constexpr std::string_view kTwoChar[] = {"==", "!=", "<=", ">=", "&&", "||"};
    if (std::find(std::begin(kTwoChar), std::end(kTwoChar), source_.substr(i, 2)) !=
        std::end(kTwoChar)) {
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
    tokens_.push_back(
        {TokenKind::Symbol, std::string(source_.substr(begin, i - begin)), 0, 0, begin, i});
  }

  // DIGIT+ | 0x HEX+, then u for uint; DIGIT* . DIGIT+ EXP? | DIGIT+ EXP for double.
  Token lex_number(std::size_t& i) {
    const std::size_t begin = i;
    const bool hex = source_.substr(i, 2) == "0x" || source_.substr(i, 2) == "0X";
    if (hex) i += 2;
    const std::size_t digits_begin = i;
    while (hex ? std::isxdigit(static_cast<unsigned char>(at(i))) != 0 : is_digit(at(i))) ++i;
    const bool fraction = !hex && at(i) == '.' && is_digit(at(i + 1));
    const bool exponent =
        !hex && (at(i) == 'e' || at(i) == 'E') &&
        (is_digit(at(i + 1)) || ((at(i + 1) == '+' || at(i + 1) == '-') && is_digit(at(i + 2))));
    if (fraction || exponent) return lex_double(i, begin);
    if (!hex && (at(i) == '.' || at(i) == 'e' || at(i) == 'E') && !features_.double_literals) {
      while (std::isalnum(static_cast<unsigned char>(at(i))) || at(i) == '.') ++i;
      diagnostics_.unsupported(begin, i, "floating-point literals");
    }
    const bool is_uint = at(i) == 'u' || at(i) == 'U';
    if (is_uint && !features_.uint_literals)
      diagnostics_.unsupported(begin, i + 1, "unsigned integer literals");
    if (i == digits_begin || is_word(at(i + (is_uint ? 1 : 0))))
      diagnostics_.syntax_error(begin, "malformed integer literal");
    const std::uint64_t limit =
        is_uint ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(1) << 63;
    std::uint64_t value = 0;
    const std::uint64_t base = hex ? 16 : 10;
    for (std::size_t k = digits_begin; k < i; ++k) {
      const char d = source_[k];
      const std::uint64_t digit = is_digit(d)
                                      ? static_cast<std::uint64_t>(d - '0')
                                      : static_cast<std::uint64_t>(std::tolower(d) - 'a' + 10);
      if (value > (limit - digit) / base)
        diagnostics_.syntax_error(begin, "integer literal out of range");
      value = value * base + digit;
    }
    if (is_uint) ++i;
    return {is_uint ? TokenKind::Uint : TokenKind::Int, "", value, 0, begin, i};
  }

  Token lex_double(std::size_t& i, std::size_t begin) {
    if (at(i) == '.') {
      ++i;
      while (is_digit(at(i))) ++i;
    }
    const std::size_t sign = at(i + 1) == '+' || at(i + 1) == '-' ? 1 : 0;
    if ((at(i) == 'e' || at(i) == 'E') && is_digit(at(i + 1 + sign))) {
      i += 1 + sign;
      while (is_digit(at(i))) ++i;
    }
    if (!features_.double_literals) {
      while (std::isalnum(static_cast<unsigned char>(at(i))) || at(i) == '.') ++i;
      diagnostics_.unsupported(begin, i, "floating-point literals");
    }
    if (is_word(at(i)) || at(i) == '.')
      diagnostics_.syntax_error(begin, "malformed number literal");
    double value = 0;
    const auto [end, error] = std::from_chars(source_.data() + begin, source_.data() + i, value);
    if (error != std::errc() || end != source_.data() + i)
      diagnostics_.syntax_error(begin, "floating-point literal out of range");
    return {TokenKind::Double, "", 0, value, begin, i};
  }

  // `quote_at` is the opening quote; `begin` includes a raw-string prefix.
  Token lex_string(std::size_t& i, std::size_t begin, bool raw) {
    const char quote = source_[i];
    if (source_.substr(i, 3) == std::string(3, quote))
      diagnostics_.unsupported(begin, i + 3, "triple-quoted strings");
    ++i;
    std::string value;
    while (true) {
      if (i >= source_.size()) diagnostics_.syntax_error(begin, "unterminated string literal");
      const char c = source_[i];
      if (c == quote) break;
      if (c == '\n' || c == '\r') diagnostics_.syntax_error(i, "newline in string literal");
      if (c == '\\' && !raw) {
        lex_escape(i, value);
      } else {
        value += c;
        ++i;
      }
    }
    ++i;
    return {TokenKind::String, std::move(value), 0, 0, begin, i};
  }

  void lex_escape(std::size_t& i, std::string& value) {
    const char e = at(i + 1);
    if (i + 1 >= source_.size()) diagnostics_.syntax_error(i, "unterminated string literal");
    static constexpr std::string_view kBasic = "\\\"'nrt";
    static constexpr std::string_view kBasicDecoded = "\\\"'\n\r\t";
    if (const auto k = kBasic.find(e); e != '\0' && k != std::string_view::npos) {
      value += kBasicDecoded[k];
      i += 2;
      return;
    }
    if (!features_.all_escapes)
      diagnostics_.unsupported(i, i + 2, "string escape; supported: \\\\ \\\" \\' \\n \\r \\t");
    static constexpr std::string_view kMore = "abfv?`";
    static constexpr std::string_view kMoreDecoded = "\a\b\f\v?`";
    if (const auto k = kMore.find(e); e != '\0' && k != std::string_view::npos) {
      value += kMoreDecoded[k];
      i += 2;
      return;
    }
    std::size_t digits = 0;
    int base = 16;
    std::size_t first = i + 2;
    if (e == 'x' || e == 'X') {
      digits = 2;
    } else if (e == 'u') {
      digits = 4;
    } else if (e == 'U') {
      digits = 8;
    } else if (e >= '0' && e <= '3') {
      digits = 3;
      base = 8;
      first = i + 1;
    } else {
      diagnostics_.syntax_error(i, "invalid escape sequence \"\\" + std::string(1, e) + "\"");
    }
    std::uint32_t code_point = 0;
    for (std::size_t k = first; k < first + digits; ++k) {
      const char d = at(k);
      const bool ok =
          base == 8 ? (d >= '0' && d <= '7') : std::isxdigit(static_cast<unsigned char>(d)) != 0;
      if (!ok) diagnostics_.syntax_error(i, "malformed escape sequence");
      code_point = code_point * static_cast<std::uint32_t>(base) +
                   static_cast<std::uint32_t>(is_digit(d) ? d - '0' : std::tolower(d) - 'a' + 10);
    }
    if (code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF))
      diagnostics_.syntax_error(i, "escape sequence is not a valid code point");
    append_utf8(value, code_point);
    i = first + digits;
  }

  const Diagnostics& diagnostics_;
  const Features& features_;
  std::string_view source_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(const Diagnostics& diagnostics, const Features& features) {
  return Lexer(diagnostics, features).run();
}

}  // namespace nvcre::cel::detail
