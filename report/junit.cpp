#include "report/junit.hpp"

#include "jsonkit/yaml.hpp"
#include "report/markup.hpp"

#include <map>

namespace nvcre::report {
namespace {

std::string format_seconds_value(std::int64_t seconds) { return std::to_string(seconds); }

struct Issue {
  std::string element;  // failure | error
  std::string message;
  std::string details;
};

struct TestCase {
  std::string name;
  std::string classname;
  std::optional<std::int64_t> seconds;
  std::optional<Issue> issue;
};

std::string render_case(const TestCase& test) {
  std::string out = "    <testcase name=\"" + xml_escape(test.name, true) + "\" classname=\"" +
                    xml_escape(test.classname, true) + "\"";
  if (test.seconds) out += " time=\"" + format_seconds_value(*test.seconds) + "\"";
  if (!test.issue) return out + "></testcase>\n";
  out += ">\n      <" + test.issue->element + " message=\"" +
         xml_escape(test.issue->message, true) + "\">" + xml_escape(test.issue->details, false) +
         "</" + test.issue->element + ">\n    </testcase>\n";
  return out;
}

std::string render_suite(const CertificationReport& report) {
  std::vector<TestCase> cases;
  std::map<std::string, int> occurrences;
  int failures = 0, errors = 0;
  std::int64_t total_seconds = 0;
  for (const auto& category : report.categories) {
    TestCase test{category.variant, report.name + "." + category.domain, {}, {}};
    // The same category twice (e.g. with and without MNNVL) gets distinct names.
    if (int seen = ++occurrences[category.domain + "/" + category.variant]; seen > 1)
      test.name += " [" + std::to_string(seen) + "]";
    test.seconds = runtime_seconds(category.runtime);
    if (test.seconds) total_seconds += *test.seconds;
    const std::string details = jsonkit::to_pretty_json(to_json(category));
    if (category.status == "Failed") {
      test.issue = Issue{
          "failure", category.failure_reason.empty() ? "Category failed" : category.failure_reason,
          details};
      ++failures;
    } else if (category.status != "Succeeded") {
      test.issue = Issue{"error", "Category did not complete: " + category.status, details};
      ++errors;
    }
    cases.push_back(std::move(test));
  }
  if (report.categories.empty() || report.result == kResultIncomplete ||
      (report.result == kResultRunning && errors == 0)) {
    cases.push_back({"certification",
                     report.name,
                     {},
                     Issue{"error", "Certification did not complete: " + report.result,
                           jsonkit::to_pretty_json(to_json(report))}});
    ++errors;
  }
  std::string out = "  <testsuite name=\"" + xml_escape(report.name, true) + "\" tests=\"" +
                    std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                    "\" errors=\"" + std::to_string(errors) + "\" time=\"" +
                    format_seconds_value(total_seconds) + "\">\n";
  for (const auto& test : cases) out += render_case(test);
  return out + "  </testsuite>\n";
}

}  // namespace

std::optional<std::int64_t> runtime_seconds(std::string_view runtime) {
  if (runtime.empty()) return std::nullopt;
  std::int64_t total = 0;
  std::size_t pos = 0;
  while (pos < runtime.size()) {
    if (runtime[pos] == ' ') {
      ++pos;
      continue;
    }
    std::int64_t number = 0;
    const std::size_t digits = pos;
    while (pos < runtime.size() && runtime[pos] >= '0' && runtime[pos] <= '9')
      number = number * 10 + (runtime[pos++] - '0');
    if (pos == digits || pos == runtime.size()) return std::nullopt;
    const char unit = runtime[pos++];
    if (unit == 'h')
      total += number * 3600;
    else if (unit == 'm')
      total += number * 60;
    else if (unit == 's')
      total += number;
    else
      return std::nullopt;
  }
  return total;
}

std::string render_junit(const std::vector<CertificationReport>& reports) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  for (const auto& report : reports) out += render_suite(report);
  return out + "</testsuites>\n";
}

}  // namespace nvcre::report
