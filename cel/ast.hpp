#pragma once
// Internals of the CEL room: the syntax tree the parser builds, the checker types and the
// evaluator walks. Not part of the room's interface.
#include "cel/environment.hpp"
#include "cel/error.hpp"
#include "cel/value.hpp"

#include <memory>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace nvcre::cel::detail {

struct Node {
  enum class Kind {
    Literal,
    Ident,
    List,
    Map,
    Select,
    Index,
    Call,
    Unary,
    Binary,
    Conditional,
    Comprehension
  };
  Kind kind = Kind::Literal;
  // Ident: variable; Select: field; Call: function; Unary/Binary: operator; Comprehension: macro
  std::string name;
  Value literal;  // Literal
  // Map: key, value, key, value...; Call with receiver: receiver first; Comprehension: range, then
  // the macro's expressions (map(x, p, t): filter p, then transform t)
  std::vector<Node> children;
  std::string variable;  // Comprehension: the iteration variable its expressions see
  std::shared_ptr<const re2::RE2> regex;  // Call matches() with a literal pattern, compiled once
  bool receiver_call = false;             // Call: receiver.function(args)
  bool test_only = false;                 // Select: has(operand.field)
  std::size_t begin = 0;                  // byte offsets of the whole node
  std::size_t end = 0;
  std::size_t name_begin = 0;  // the operator, function or field token
  std::size_t name_end = 0;
  Type type;  // set by the checker
};

// Parses `diagnostics.source()`; identifiers must be variables of `environment`. Throws Error.
Node parse(const Diagnostics& diagnostics, const Environment& environment);

// Infers and checks the types of every node (the static half of CEL's type checking: dyn operands
// are checked when the expression runs). Throws Error (Unsupported).
void check(Node& root, const Diagnostics& diagnostics, const Environment& environment);

// Evaluates a checked tree. Throws Error (Evaluation): division by zero, overflow, a missing
// key or index, or an operand whose runtime type has no overload (possible only through dyn).
Value evaluate(const Node& root, const Diagnostics& diagnostics, const Activation& activation);

}  // namespace nvcre::cel::detail
