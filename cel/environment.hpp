#pragma once
// What an expression may use: its variables (each with a static type, or dyn) and the parts of the
// language the caller accepts. A caller with a documented subset (the override `when.expression`)
// switches parts off and every use of them fails with "unsupported CEL construct" and its position,
// whatever the variable values are.
#include "cel/value.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace nvcre::cel {

struct Features {
  bool double_literals = true;  // 1.5, 2e3
  bool uint_literals = true;    // 1u, 0x10u
  bool null_literal = true;     // null
  bool raw_strings = true;      // r'...', R"..."
  bool all_escapes =
      true;  // \a \b \f \v \? \` \xHH \uHHHH \UHHHHHHHH \ooo (else only \\ \" \' \n \r \t)
  bool arithmetic = true;             // binary + - * / %
  bool conditional = true;            // c ? a : b
  bool map_literals = true;           // {k: v}
  bool indexing = true;               // list[i], map[k]
  bool field_selection = true;        // map.field, has(map.field)
  bool functions = true;              // size(), has(), int(), uint(), double(), string(), x.size()
  bool mixed_lists = true;            // [1, 'a'] (list(dyn)) and lists of lists
  bool composite_comparisons = true;  // == on lists and maps, < on bools
};

struct Variable {
  std::string name;
  Type type;  // dyn: checked when the expression runs
};

// The variables' values for one evaluation, by name.
using Activation = std::map<std::string, Value, std::less<>>;

struct Environment {
  std::vector<Variable> variables;
  Features features;
  // What the environment accepts, as one sentence: the tail of every "unsupported" message.
  std::string supported;
};

}  // namespace nvcre::cel
