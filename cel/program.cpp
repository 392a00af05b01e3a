#include "cel/program.hpp"

#include "cel/ast.hpp"

namespace nvcre::cel {

const std::string_view kLanguageSummary =
    "null, bool, int, uint, double, string, list and map literals; + - * / %, <, <=, >, >=, ==, "
    "!=, "
    "in, &&, ||, !, ?:, parentheses; m.field, has(m.field), l[i], m[k]; size(), int(), uint(), "
    "double(), string(), s.startsWith(t), s.endsWith(t), s.contains(t), s.matches(re2), "
    "s.lowerAscii(), s.upperAscii(); the macros all, exists, exists_one, filter and map over "
    "lists and map keys";

struct Program::Compiled {
  std::string source;
  std::string supported;
  detail::Node root;
  Diagnostics diagnostics() const { return Diagnostics(source, supported); }
};

Program Program::compile(std::string_view expression, const Environment& environment) {
  auto compiled = std::make_shared<Compiled>();
  compiled->source = std::string(expression);
  compiled->supported = environment.supported;
  const Diagnostics diagnostics = compiled->diagnostics();
  compiled->root = detail::parse(diagnostics, environment);
  detail::check(compiled->root, diagnostics, environment);
  return Program(std::move(compiled));
}

const Type& Program::output_type() const { return compiled_->root.type; }

Value Program::evaluate(const Activation& activation) const {
  return detail::evaluate(compiled_->root, compiled_->diagnostics(), activation);
}

void Program::reject(const std::string& detail) const {
  compiled_->diagnostics().unsupported(compiled_->root.begin, compiled_->root.end, detail);
}

}  // namespace nvcre::cel
