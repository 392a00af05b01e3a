#pragma once
// The one exception of the CEL room, with its three kinds of message (positions are 1-based
// character columns, as in cel-go's `<input>:1:<col>`):
//   CEL syntax error at position N: <detail>
//   unsupported CEL construct "<snippet>" at position N (<detail>); supported: <environment's set>
//   CEL evaluation error at position N: <detail>
// "Unsupported" covers both constructs outside an environment's set and type errors ("no
// matching overload for ..."): either way, the text asks for something the environment does not
// offer.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nvcre::cel {

class Error : public std::runtime_error {
 public:
  enum class Kind { Syntax, Unsupported, Evaluation };
  Error(Kind kind, std::size_t position, std::string detail, const std::string& message)
      : std::runtime_error(message), kind_(kind), position_(position), detail_(std::move(detail)) {}
  Kind kind() const { return kind_; }
  std::size_t position() const { return position_; }
  // The message without its prefix: "division by zero", "unexpected end of expression", ...
  const std::string& detail() const { return detail_; }

 private:
  Kind kind_;
  std::size_t position_;
  std::string detail_;
};

// Turns byte offsets into positioned errors for one expression.
class Diagnostics {
 public:
  Diagnostics(std::string_view source, std::string_view supported)
      : source_(source), supported_(supported) {}
  std::string_view source() const { return source_; }
  std::size_t column(std::size_t offset) const;
  [[noreturn]] void unsupported(std::size_t begin, std::size_t end,
                                const std::string& detail) const;
  [[noreturn]] void syntax_error(std::size_t offset, const std::string& detail) const;
  [[noreturn]] void evaluation_error(std::size_t offset, const std::string& detail) const;

 private:
  std::string_view source_;
  std::string_view supported_;
};

}  // namespace nvcre::cel
