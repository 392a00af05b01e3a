#pragma once
// CEL (Common Expression Language, cel.dev) for every expression the project evaluates: override
// `when.expression`, performance thresholds (`value >= 850`), node health over a Node object.
// One implementation, written here because Debian packages no CEL library for C++.
//
// Supported (each part can be switched off per environment, see environment.hpp):
//   literals     null, true, false, int (decimal, 0x hex, -9223372036854775808), uint (1u),
//                double (1.5, 2e3), strings '...' "..." r'...' with CEL's escapes, [lists], {maps}
//   operators    ! - * / % + - < <= > >= == != in && || ?:  with CEL's precedence
//   access       map.field, has(map.field), list[int], map[key]
//   functions    size(x) / x.size(), s.startsWith(t), s.endsWith(t), s.contains(t),
//                s.matches(re) / matches(s, re) (RE2, unanchored), s.lowerAscii(), s.upperAscii(),
//                int(x), uint(x), double(x), string(x)
//   macros       r.all(x, p), r.exists(x, p), r.exists_one(x, p), r.filter(x, p), r.map(x, t),
//                r.map(x, p, t) over a list (x is each element) or a map (x is each key)
// Semantics as CEL's: arithmetic needs operands of one numeric type (no implicit conversion:
// `value + 1` on a double is a type error) with errors for int/uint overflow and division or
// modulus by zero; doubles follow IEEE 754; comparisons and == work across int, uint and double
// by mathematical value; && and || absorb an error on one side when the other decides, and so do
// all() and exists() across elements.
// Not supported (each fails with "unsupported CEL construct ... at position N"): bytes and
// triple-quoted strings, optional selection (a.?b, a[?k]), timestamps and durations, type(),
// dyn(), message literals, leading-dot names.
//
// Type checking is static against the variables' declared types (dyn defers a check to the
// run), so an expression with a type error fails whatever the values are.
#include "cel/environment.hpp"
#include "cel/error.hpp"
#include "cel/value.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace nvcre::cel {

namespace detail {
struct Node;
}

// The whole language above in one sentence, for the `supported` text of an environment that
// switches nothing off.
extern const std::string_view kLanguageSummary;

class Program {
 public:
  // Parses and type-checks `expression`. Throws Error (Syntax or Unsupported).
  static Program compile(std::string_view expression, const Environment& environment);

  // The static type of the result; dyn when it depends on dyn variables.
  const Type& output_type() const;

  // Throws Error (Evaluation) on a runtime error, e.g. "division by zero".
  Value evaluate(const Activation& activation) const;

  // Throws Error (Unsupported) naming the whole expression, for a caller that rejects a
  // well-formed expression, e.g. "the expression must evaluate to bool, got string".
  [[noreturn]] void reject(const std::string& detail) const;

 private:
  struct Compiled;
  explicit Program(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace nvcre::cel
