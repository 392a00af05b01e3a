#include "api/codec.hpp"

namespace nvcre::api {

namespace {
std::string describe(const std::vector<DecodeProblem>& problems) {
  std::string text;
  for (const auto& problem : problems) {
    if (!text.empty()) text += "; ";
    text += problem.field.empty() ? problem.message : problem.field + ": " + problem.message;
  }
  return text;
}
}  // namespace

DecodeError::DecodeError(std::vector<DecodeProblem> problems)
    : std::runtime_error(describe(problems)), problems_(std::move(problems)) {}

std::string_view json_type_name(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "integer";
    case boost::json::kind::double_: return "number";
    case boost::json::kind::string: return "string";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
  }
  return "unknown";
}

}  // namespace nvcre::api
