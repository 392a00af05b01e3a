#include "api/workflow.hpp"

namespace nvcre::api {

void decode_json(const boost::json::value& in, DependencySpec& out, DecodeContext& ctx) {
  if (!in.is_object()) {
    ctx.report("expected object, got " + std::string(json_type_name(in)));
    return;
  }
  out.resource = in.get_object();
  auto when = out.resource.find("when");
  if (when == out.resource.end()) return;
  if (!when->value().is_null()) {
    ctx.push_field("when");
    decode_value(when->value(), out.when, ctx);
    ctx.pop();
  }
  out.resource.stable_erase(when);  // keeps the order of the other keys
}

boost::json::value encode_json(const DependencySpec& in) {
  boost::json::object object = in.resource;
  if (in.when == WhenSpec{}) {
    object.stable_erase("when");
  } else {
    object["when"] = encode_value(in.when);
  }
  return object;
}

}  // namespace nvcre::api
