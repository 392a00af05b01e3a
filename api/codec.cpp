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

std::string DecodeContext::path() const {
  std::string out = root_;
  for (const auto& segment : segments_) {
    switch (segment.kind) {
      case Segment::Field:
        if (!out.empty()) out += '.';
        out += segment.text;
        break;
      case Segment::Index:
        out += '[' + std::to_string(segment.index) + ']';
        break;
      case Segment::Key:
        out += '[';
        out += segment.text;
        out += ']';
        break;
    }
  }
  return out;
}

std::string DecodeContext::child_path(std::string_view field) const {
  std::string out = path();
  if (!out.empty()) out += '.';
  out += field;
  return out;
}

void DecodeContext::unknown_field(std::string_view field) {
  std::string at = child_path(field);
  if (tolerated_unknown_ && tolerated_unknown_(at)) return;
  problems_.push_back({at, "unknown field \"" + at + "\""});
}

std::string_view json_type_name(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "integer";
    case boost::json::kind::double_:
      return "number";
    case boost::json::kind::string:
      return "string";
    case boost::json::kind::array:
      return "array";
    case boost::json::kind::object:
      return "object";
  }
  return "unknown";
}

}  // namespace nvcre::api
