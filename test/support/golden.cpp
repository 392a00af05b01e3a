#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace nvcre::testing {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool is_expected_file(const std::string& name) {
  return name == "expected.json" || name == "expected.yaml" || name == "expected.txt";
}

bool update_requested() {
  const char* value = std::getenv("UPDATE_GOLDEN");
  return value != nullptr && std::string(value) != "" && std::string(value) != "0";
}

}  // namespace

const std::string& GoldenCase::input(const std::string& file_name) const {
  auto it = inputs.find(file_name);
  if (it == inputs.end()) {
    throw std::runtime_error("golden case " + suite + "/" + name + " has no input file " +
                             file_name);
  }
  return it->second;
}

std::vector<GoldenCase> load_cases(const std::string& suite) {
  std::vector<GoldenCase> cases;
  const fs::path root = fs::path(NVCRE_TESTDATA_DIR) / suite;
  if (!fs::is_directory(root)) {
    std::cerr << "golden suite folder missing: " << root << '\n';
    return cases;  // GoogleTest then reports the suite as uninstantiated, which fails the run
  }
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    GoldenCase golden_case;
    golden_case.suite = suite;
    golden_case.name = entry.path().filename().string();
    golden_case.dir = entry.path();
    golden_case.expected_path = entry.path() / "expected.json";
    for (const auto& file : fs::recursive_directory_iterator(entry.path())) {
      if (!file.is_regular_file()) continue;
      const std::string base = file.path().filename().string();
      if (is_expected_file(base)) {
        golden_case.expected_path = file.path();
      } else if (base == "error") {
        std::string text = read_file(file.path());
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        golden_case.expected_error = text;
      } else {
        golden_case.inputs[base] = read_file(file.path());
      }
    }
    cases.push_back(std::move(golden_case));
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.name < b.name; });
  return cases;
}

std::string line_diff(const std::string& expected, const std::string& actual) {
  const auto a = split_lines(expected);
  const auto b = split_lines(actual);
  // Longest common subsequence table; golden files are small enough for the quadratic table.
  std::vector<std::vector<int>> lcs(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;) {
    for (std::size_t j = b.size(); j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::ostringstream out;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      out << "  " << a[i] << '\n';
      ++i, ++j;
    } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out << "- " << a[i++] << '\n';  // removals before additions, as in unified diffs
    } else {
      out << "+ " << b[j++] << '\n';
    }
  }
  return out.str();
}

void check_golden(const GoldenCase& golden_case,
                  const std::function<std::string(const GoldenCase&)>& produce) {
  const std::string where = golden_case.suite + "/" + golden_case.name;
  if (golden_case.expected_error) {
    try {
      const std::string output = produce(golden_case);
      ADD_FAILURE() << where << ": expected an error containing \"" << *golden_case.expected_error
                    << "\", but the case succeeded with:\n"
                    << output;
    } catch (const std::exception& error) {
      EXPECT_NE(std::string(error.what()).find(*golden_case.expected_error), std::string::npos)
          << where << ": error \"" << error.what() << "\" does not contain \""
          << *golden_case.expected_error << "\"";
    }
    return;
  }
  std::string actual;
  try {
    actual = produce(golden_case);
  } catch (const std::exception& error) {
    ADD_FAILURE() << where << ": unexpected error: " << error.what();
    return;
  }
  if (update_requested()) {
    std::ofstream out(golden_case.expected_path, std::ios::binary | std::ios::trunc);
    out << trim(actual) << '\n';
    return;
  }
  if (!fs::exists(golden_case.expected_path)) {
    ADD_FAILURE() << where
                  << ": no expected file; run with UPDATE_GOLDEN=1 and review it. Actual:\n"
                  << actual;
    return;
  }
  const std::string expected = read_file(golden_case.expected_path);
  if (trim(expected) != trim(actual)) {
    ADD_FAILURE() << where << ": output differs from " << golden_case.expected_path.filename()
                  << " (- expected, + actual):\n"
                  << line_diff(trim(expected), trim(actual));
  }
}

std::string test_name_of(const GoldenCase& golden_case) {
  std::string name = golden_case.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

void PrintTo(const GoldenCase& golden_case, std::ostream* out) {
  *out << golden_case.suite << "/" << golden_case.name;
}

}  // namespace nvcre::testing
