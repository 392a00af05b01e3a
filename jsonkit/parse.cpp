#include "jsonkit/parse.hpp"

#include <boost/json/error.hpp>
#include <boost/json/parse.hpp>
#include <boost/system/system_error.hpp>

#include <cmath>
#include <vector>

namespace nvcre::jsonkit {
namespace json = boost::json;

namespace {

// False when `root` holds an infinite number. Iterative: nesting is bounded by the parser's
// max_depth, but a walk should not depend on that.
bool settle_numbers(json::value& root) {
  std::vector<json::value*> pending{&root};
  while (!pending.empty()) {
    json::value& value = *pending.back();
    pending.pop_back();
    if (value.is_double()) {
      const double number = value.get_double();
      if (std::isinf(number)) return false;
      if (std::isnan(number)) value = 0.0;
    } else if (value.is_array()) {
      for (auto& item : value.get_array()) pending.push_back(&item);
    } else if (value.is_object()) {
      for (auto& member : value.get_object()) pending.push_back(&member.value());
    }
  }
  return true;
}

}  // namespace

json::value parse_json(std::string_view text, boost::system::error_code& ec,
                       const json::parse_options& options) {
  json::value value = json::parse(text, ec, {}, options);
  if (ec) return value;
  if (!settle_numbers(value)) {
    ec = json::error::exponent_overflow;
    return json::value{};
  }
  return value;
}

json::value parse_json(std::string_view text, const json::parse_options& options) {
  boost::system::error_code ec;
  json::value value = parse_json(text, ec, options);
  if (ec) throw boost::system::system_error(ec);
  return value;
}

}  // namespace nvcre::jsonkit
