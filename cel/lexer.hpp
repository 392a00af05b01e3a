#pragma once
// Internals of the CEL room: the tokenizer. Not part of the room's interface.
#include "cel/environment.hpp"
#include "cel/error.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace nvcre::cel::detail {

enum class TokenKind { End, Identifier, Int, Uint, Double, String, Symbol };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;             // identifier name or symbol; the decoded value of a string literal
  std::uint64_t magnitude = 0;  // Int (at most 2^63, so that -9223372036854775808 parses) and Uint
  double floating = 0;          // Double
  std::size_t begin = 0;        // byte offsets into the expression
  std::size_t end = 0;
};

// The tokens of the expression, ending with one End token. Literals that `features` switch off
// (doubles, uints, raw strings, escapes beyond the basic six) and literals CEL has but this
// room does not (bytes, triple-quoted strings) are reported here.
std::vector<Token> tokenize(const Diagnostics& diagnostics, const Features& features);

// The token as written, "end of expression" for End.
std::string token_text(std::string_view source, const Token& token);

}  // namespace nvcre::cel::detail
