#pragma once
// `when.expression`: a documented subset of CEL, evaluated by the project's CEL room (cel/) with
// the parts beyond the subset switched off. Upstream evaluates full CEL (cel-go) over the
// variables below and requires a bool.
//
// Supported subset:
//   variables    platform, gpuArchitecture, workloadKind, topologyMode (string), domainCount (int)
//   literals     'single' or "double" quoted strings (escapes \\ \" \' \n \r \t), decimal or hex
//                ints, true, false, list literals [a, b, ...] of one scalar type
//   operators    ==, != (same scalar type), <, <=, >, >= (int or string), x in [list], &&, ||, !,
//                unary - on ints, parentheses
//   methods      s.startsWith(t), s.endsWith(t), s.contains(t) on strings
// Everything else (other identifiers such as `config` or `topology`, global functions like size(),
// field selection, indexing, arithmetic, the ternary, maps, doubles, uints, bytes, raw strings,
// null) throws OverrideError `unsupported CEL construct "<text>" at position <N> (...); supported:
// ...`; malformed text throws `CEL syntax error at position <N>: ...`. Positions are 1-based
// character columns, as in cel-go's `<input>:1:<col>`. Syntax errors are reported before type
// errors (the whole text is parsed first, as cel-go does).
//
// Type checking is static (the variables have fixed types), so an expression that is outside the
// subset fails whatever the variable values are: a bad expression never silently matches or
// silently fails to match, and it fails on every platform, not only on the one that reaches it.
#include <cstdint>
#include <string>
#include <string_view>

namespace nvcre::overrides {

struct ExpressionVariables {
  std::string platform;
  std::string gpuArchitecture;
  std::string workloadKind;
  std::string topologyMode;
  std::int64_t domainCount = 0;
};

// The subset, as one sentence; the tail of every "unsupported" message.
extern const std::string_view kSupportedCelSubset;

// Parses, type-checks and evaluates `expression`. Throws OverrideError (without an override index;
// callers prefix it) when the expression is malformed, outside the subset, or not a bool.
bool evaluate_when_expression(std::string_view expression, const ExpressionVariables& variables);

}  // namespace nvcre::overrides
