#include "overrides/when_expression.hpp"

#include "cel/program.hpp"
#include "overrides/override_error.hpp"

namespace nvcre::overrides {

const std::string_view kSupportedCelSubset =
    "variables platform, gpuArchitecture, workloadKind, topologyMode (string) and domainCount "
    "(int); "
    "string, int, bool and list literals; ==, !=, <, <=, >, >=, in, &&, ||, !, unary -, "
    "parentheses; s.startsWith(t), s.endsWith(t), s.contains(t)";

namespace {

// The documented subset: the CEL room with everything beyond it switched off.
const cel::Environment& when_environment() {
  static const cel::Environment environment = [] {
    cel::Environment e;
    for (const char* name : {"platform", "gpuArchitecture", "workloadKind", "topologyMode"})
      e.variables.push_back({name, cel::Type::string()});
    e.variables.push_back({"domainCount", cel::Type::integer()});
    e.features = cel::Features{.double_literals = false,
                               .uint_literals = false,
                               .null_literal = false,
                               .raw_strings = false,
                               .all_escapes = false,
                               .arithmetic = false,
                               .conditional = false,
                               .map_literals = false,
                               .indexing = false,
                               .field_selection = false,
                               .functions = false,
                               .mixed_lists = false,
                               .composite_comparisons = false};
    e.supported = std::string(kSupportedCelSubset);
    return e;
  }();
  return environment;
}

}  // namespace

bool evaluate_when_expression(std::string_view expression, const ExpressionVariables& variables) {
  try {
    const auto program = cel::Program::compile(expression, when_environment());
    if (!program.output_type().is(cel::Type::Tag::Bool))
      program.reject("the expression must evaluate to bool, got " + program.output_type().name());
    const cel::Activation activation{
        {"platform", cel::Value::string(variables.platform)},
        {"gpuArchitecture", cel::Value::string(variables.gpuArchitecture)},
        {"workloadKind", cel::Value::string(variables.workloadKind)},
        {"topologyMode", cel::Value::string(variables.topologyMode)},
        {"domainCount", cel::Value::integer(variables.domainCount)}};
    return program.evaluate(activation).as_bool();
  } catch (const cel::Error& error) {
    throw OverrideError(error.what());
  }
}

}  // namespace nvcre::overrides
