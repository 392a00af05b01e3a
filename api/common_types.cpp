#include "api/common_types.hpp"

#include "jsonkit/numbers.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace nvcre::api {

void decode_json(const boost::json::value& in, IntOrString& out, DecodeContext& ctx) {
  if (in.is_string()) {
    out.value = std::string(in.get_string());
    return;
  }
  // Integers only; integral doubles such as 2.0 count, as they do for every integer field. A
  // fraction has to be written as a string ("0.5", "500m").
  const bool integral_double = in.is_double() && jsonkit::exact_int64(in.get_double());
  if (in.is_uint64() && in.get_uint64() > static_cast<std::uint64_t>(INT64_MAX)) {
    ctx.report("integer " + std::to_string(in.get_uint64()) + " is out of range");
    return;
  }
  if (in.is_int64() || in.is_uint64() || integral_double) {
    std::int64_t number = 0;
    codec_detail::decode_integer(in, number, ctx);
    out.value = number;
    return;
  }
  ctx.report("expected integer or string, got " + std::string(json_type_name(in)));
}

boost::json::value encode_json(const IntOrString& in) {
  if (in.is_int()) return boost::json::value(in.as_int());
  return boost::json::value(in.as_string());
}

}  // namespace nvcre::api
