#pragma once
// Golden-case harness: one folder per case under test/testdata/<suite>/<case>/.
//   - every file except `expected.*` and `error` is an input, keyed by its file name;
//   - `expected.json` / `expected.yaml` / `expected.txt` holds the output the case must produce;
//   - `error` holds a substring the case's error message must contain (negative cases).
// UPDATE_GOLDEN=1 rewrites expected files from the actual output instead of comparing.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nvcre::testing {

struct GoldenCase {
  std::string suite;
  std::string name;
  std::filesystem::path dir;
  std::map<std::string, std::string> inputs;  // file name -> content
  std::optional<std::string> expected_error;  // content of `error`, trailing newlines trimmed
  std::filesystem::path expected_path;        // existing expected file, or <dir>/expected.json

  // The named input; fails the test (throws) when the case does not have it.
  const std::string& input(const std::string& file_name) const;
  bool has_input(const std::string& file_name) const { return inputs.count(file_name) != 0; }
};

// Every case folder of a suite, sorted by name. An empty or missing suite is a test failure, so a
// misplaced testdata folder cannot make a suite pass vacuously.
std::vector<GoldenCase> load_cases(const std::string& suite);

// Runs `produce` and judges the outcome: with an `error` file the call must throw an exception
// whose what() contains the expected text; otherwise it must return output equal (after trimming
// surrounding whitespace) to the expected file, or rewrite it under UPDATE_GOLDEN=1.
void check_golden(const GoldenCase& golden_case,
                  const std::function<std::string(const GoldenCase&)>& produce);

// A line diff of two texts (`-` expected, `+` actual), for readable mismatch reports.
std::string line_diff(const std::string& expected, const std::string& actual);

// Case names for GoogleTest parameterised suites ("case-name" -> "case_name").
std::string test_name_of(const GoldenCase& golden_case);

void PrintTo(const GoldenCase& golden_case, std::ostream* out);

}  // namespace nvcre::testing

// Declares a value-parameterised GoogleTest suite over the cases of test/testdata/<suite>/.
#define NVCRE_GOLDEN_SUITE(fixture, suite_dir)                                       \
  INSTANTIATE_TEST_SUITE_P(                                                          \
      Golden, fixture, ::testing::ValuesIn(::nvcre::testing::load_cases(suite_dir)), \
      [](const auto& info) { return ::nvcre::testing::test_name_of(info.param); })
