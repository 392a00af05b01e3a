#pragma once
// JUnit XML for CI systems: one <testsuite> per certification, one <testcase> per category.
// A failed category carries a <failure> (its reason, and the category's JSON as details); a
// category that did not finish carries an <error>; a certification with no categories, still
// running or INCOMPLETE gets an extra "certification" testcase with an <error>, so a pipeline
// cannot read an unfinished run as green.
#include "report/model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::report {

std::string render_junit(const std::vector<CertificationReport>& reports);

// Seconds in a report runtime ("45s", "5m 30s", "2h 5m"); nullopt when empty or malformed.
std::optional<std::int64_t> runtime_seconds(std::string_view runtime);

}  // namespace nvcre::report
