#pragma once
// Internals of the `when.expression` evaluator (when_expression.hpp): positioned diagnostics and
// the tokenizer. Not part of the engine's interface.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::overrides::cel {

enum class TokenKind { kEnd, kIdentifier, kInt, kString, kSymbol };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // identifier name or symbol; the decoded value of a string literal
  std::int64_t integer = 0;
  std::size_t begin = 0;  // byte offsets into the expression
  std::size_t end = 0;
};

// Throws the two kinds of OverrideError, with 1-based character positions:
//   unsupported CEL construct "<snippet>" at position N (<detail>); supported: <subset>
//   CEL syntax error at position N: <detail>
class Diagnostics {
 public:
  explicit Diagnostics(std::string_view source) : source_(source) {}
  std::string_view source() const { return source_; }
  std::size_t column(std::size_t offset) const;
  [[noreturn]] void unsupported(std::size_t begin, std::size_t end,
                                const std::string& detail) const;
  [[noreturn]] void syntax_error(std::size_t offset, const std::string& detail) const;
  std::string token_text(const Token& token) const;  // as written; "end of expression" for kEnd

 private:
  std::string_view source_;
};

// The tokens of the expression, ending with one kEnd token. Literals outside the subset (doubles,
// uints, raw/bytes/triple-quoted strings, unknown escapes) are reported here.
std::vector<Token> tokenize(const Diagnostics& diagnostics);

}  // namespace nvcre::overrides::cel
