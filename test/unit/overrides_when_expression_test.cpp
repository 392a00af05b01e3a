// The CEL subset of `when.expression` (workflow/when_expression.hpp): what it evaluates, and that
// everything outside it fails loudly with a position.
#include "overrides/override_error.hpp"
#include "overrides/when_expression.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using nvcre::overrides::evaluate_when_expression;
using nvcre::overrides::ExpressionVariables;
using nvcre::overrides::OverrideError;

const ExpressionVariables kAwsH100{"aws", "h100", "TrainJob", "topology", 3};

std::string error_of(const std::string& expression) {
  try {
    evaluate_when_expression(expression, kAwsH100);
  } catch (const OverrideError& error) {
    return error.what();
  }
  return "<no error>";
}

TEST(WorkflowWhenExpression, EvaluatesTheSubset) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {"platform == 'aws'", true},
      {"platform == \"aws\"", true},
      {"platform != 'aws'", false},
      {"gpuArchitecture in ['h100', 'h200']", true},
      {"gpuArchitecture in ['a100']", false},
      {"gpuArchitecture in []", false},
      {"domainCount in [1, 2, 3,]", true},
      {"true in [false, true]", true},
      {"workloadKind == 'TrainJob' && topologyMode == 'topology'", true},
      {"domainCount > 2 && domainCount >= 3 && domainCount < 4 && domainCount <= 3", true},
      {"domainCount > 3 || domainCount < 3", false},
      {"-domainCount == -3 && - -3 == 3", true},
      {"0x10 == 16", true},
      {"'a' < 'b' && 'b' <= 'b' && 'c' > 'b' && 'c' >= 'c'", true},
      {"!(platform == 'gcp')", true},
      {"!!true", true},
      {"platform.startsWith('aw') && platform.endsWith('ws') && platform.contains('w')", true},
      {"'aws-efa'.contains(platform)", true},
      {"platform.startsWith('')", true},
      {"(platform == 'gcp' || platform == 'aws') && !(domainCount == 0)", true},
      {"true || false && false", true},  // && binds tighter than ||
      {"(true || false) && false", false},
      {"false == (1 == 2)", true},
      {"'it\\'s' == \"it's\" && 'a\\tb' != 'a b'", true},
      {"  platform\n==\t'aws'  ", true},
  };
  for (const auto& [expression, expected] : cases) {
    EXPECT_EQ(evaluate_when_expression(expression, kAwsH100), expected) << expression;
  }
}

TEST(WorkflowWhenExpression, UsesTheVariablesGiven) {
  const ExpressionVariables gcp{"gcp", "gb200", "", "simple", 0};
  EXPECT_TRUE(evaluate_when_expression(
      "platform == 'gcp' && gpuArchitecture == 'gb200' && workloadKind == ''", gcp));
  EXPECT_TRUE(evaluate_when_expression("topologyMode == 'simple' && domainCount == 0", gcp));
}

TEST(WorkflowWhenExpression, OutsideTheSubsetIsAnErrorWithPosition) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"size(platform) > 0",
       "unsupported CEL construct \"size\" at position 1 (global function call); supported: "
       "variables platform"},
      {"config.precision == 'bf16'",
       "unsupported CEL construct \"config\" at position 1 (unknown identifier)"},
      {"topology == 'x'",
       "unsupported CEL construct \"topology\" at position 1 (unknown identifier)"},
      {"platform.size() == 3",
       "unsupported CEL construct \"size\" at position 10 (unknown function)"},
      {"platform.matches('a.*')",
       "unsupported CEL construct \"matches\" at position 10 (unknown function)"},
      {"platform.name == 'x'",
       "unsupported CEL construct \".name\" at position 9 (field selection)"},
      {"domainCount + 1 > 2", "unsupported CEL construct \"+\" at position 13 (arithmetic)"},
      {"domainCount - 1 > 2", "unsupported CEL construct \"-\" at position 13 (arithmetic)"},
      {"true ? true : false",
       "unsupported CEL construct \"?\" at position 6 (conditional operator ?:)"},
      {"{'a': 1} == {}",
       "unsupported CEL construct \"{\" at position 1 (map and message literals)"},
      {"['a'][0] == 'a'", "unsupported CEL construct \"[\" at position 6 (indexing)"},
      {"domainCount > 1.5",
       "unsupported CEL construct \"1.5\" at position 15 (floating-point literals)"},
      {"domainCount > 1u",
       "unsupported CEL construct \"1u\" at position 15 (unsigned integer literals)"},
      {"platform == r'aws'",
       "unsupported CEL construct \"r'\" at position 13 (raw and bytes string literals)"},
      {"platform == '''aws'''",
       "unsupported CEL construct \"'''\" at position 13 (triple-quoted strings)"},
      {"platform == 'a\\x41'", "unsupported CEL construct \"\\x\" at position 15 (string escape;"},
      {"platform == null", "unsupported CEL construct \"null\" at position 13 (null)"},
      {"platform == 1",
       "unsupported CEL construct \"platform == 1\" at position 1 (no matching overload for \"==\" "
       "on (string, int))"},
      {"domainCount < 'x'", "(no matching overload for \"<\" on (int, string))"},
      {"true < false", "(no matching overload for \"<\" on (bool, bool))"},
      {"platform in ['a', 1]",
       "unsupported CEL construct \"['a', 1\" at position 13 (list elements of different types)"},
      {"platform in [['a']]", "(nested lists)"},
      {"domainCount in ['1']", "(no matching overload for \"in\" on (int, list(string)))"},
      {"platform in 'aws'", "(no matching overload for \"in\" on (string, string))"},
      {"['a'] == ['a']", "(no matching overload for \"==\" on (list(string), list(string)))"},
      {"platform && true", "(no matching overload for \"&&\" on (string, bool))"},
      {"!platform",
       "unsupported CEL construct \"!platform\" at position 1 (no matching overload for unary "
       "\"!\" on string)"},
      {"-platform == 'x'", "(no matching overload for unary \"-\" on string)"},
      {"domainCount.startsWith('1')", "(no matching overload for int.startsWith(string))"},
      {"platform.contains('a', 'b')", "(no matching overload for string.contains(string, string))"},
      {"platform",
       "unsupported CEL construct \"platform\" at position 1 (the expression must evaluate to "
       "bool, got string)"},
      {"domainCount", "(the expression must evaluate to bool, got int)"},
      {"'äöü' == platform || gpu",
       "unsupported CEL construct \"gpu\" at position 22 (unknown identifier)"},
  };
  for (const auto& [expression, expected] : cases) {
    EXPECT_NE(error_of(expression).find(expected), std::string::npos)
        << expression << "\n  got: " << error_of(expression);
  }
}

TEST(WorkflowWhenExpression, MalformedTextIsASyntaxError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "CEL syntax error at position 1: empty expression"},
      {"   ", "CEL syntax error at position 1: empty expression"},
      {"platform == 'aws", "CEL syntax error at position 13: unterminated string literal"},
      {"platform = 'aws'",
       "CEL syntax error at position 10: unexpected \"=\" (did you mean \"==\"?)"},
      {"platform == 'aws' & true",
       "CEL syntax error at position 19: unexpected \"&\" (did you mean \"&&\"?)"},
      {"(platform == 'aws'",
       "CEL syntax error at position 19: expected \")\", got \"end of expression\""},
      {"platform == 'aws')", "CEL syntax error at position 18: unexpected \")\""},
      {"platform == 'aws' 'gcp'", "CEL syntax error at position 19: unexpected \"'gcp'\""},
      {"platform ==", "CEL syntax error at position 12: unexpected end of expression"},
      {"platform in [1 2]", "CEL syntax error at position 16: expected \",\" or \"]\", got \"2\""},
      {"platform # comment", "CEL syntax error at position 10: unexpected character \"#\""},
      {"domainCount > 99999999999999999999",
       "CEL syntax error at position 15: integer literal out of range"},
      {"domainCount > 12abc", "CEL syntax error at position 15: malformed integer literal"},
      {"platform.'x'()", "CEL syntax error at position 10: expected a name after \".\""},
      {"in == true", "CEL syntax error at position 1: unexpected \"in\""},
      {"'a\nb' == platform", "CEL syntax error at position 3: newline in string literal"},
      {std::string(150, '(') + "true" + std::string(150, ')'), "expression nested too deeply"},
      {std::string(150, '!') + "true", "expression nested too deeply"},
  };
  for (const auto& [expression, expected] : cases) {
    EXPECT_NE(error_of(expression).find(expected), std::string::npos)
        << expression << "\n  got: " << error_of(expression);
  }
}

TEST(WorkflowWhenExpression, LongSnippetsAreShortened) {
  const std::string expression = "platform == 'aws' && " + std::string(80, 'x') + " == 'y'";
  const std::string error = error_of(expression);
  EXPECT_NE(error.find("\"" + std::string(57, 'x') + "...\" at position 22 (unknown identifier)"),
            std::string::npos)
      << error;
}

}  // namespace
