#include "api/certification.hpp"

namespace nvcre::api {

namespace {

template <class T>
void decode_member(const boost::json::value& value, std::string_view name, T& out,
                   DecodeContext& ctx) {
  if (value.is_null()) return;  // null means absent, as everywhere
  ctx.push_field(name);
  decode_value(value, out, ctx);
  ctx.pop();
}

}  // namespace

void decode_json(const boost::json::value& in, CertificationSpec& out, DecodeContext& ctx) {
  if (!in.is_object()) {
    ctx.report("expected object, got " + std::string(json_type_name(in)));
    return;
  }
  boost::json::object inline_options;
  for (const auto& entry : in.get_object()) {
    const std::string_view key = entry.key();
    if (key == "target") {
      decode_member(entry.value(), key, out.target, ctx);
    } else if (key == "categories") {
      decode_member(entry.value(), key, out.categories, ctx);
    } else if (key == "gangScheduler") {
      decode_member(entry.value(), key, out.gangScheduler, ctx);
    } else {
      inline_options.emplace(key, entry.value());
    }
  }
  // Same path as the spec itself: CategoryOptions reports its unknown keys as `spec.<key>`.
  decode_value(boost::json::value(std::move(inline_options)), out.options, ctx);
}

boost::json::value encode_json(const CertificationSpec& in) {
  boost::json::object object;
  object.emplace("target", encode_value(in.target));
  if (!in.categories.empty()) object.emplace("categories", encode_value(in.categories));
  if (in.gangScheduler) object.emplace("gangScheduler", encode_value(*in.gangScheduler));
  boost::json::value options = encode_value(in.options);
  for (auto& entry : options.as_object()) object.emplace(entry.key(), std::move(entry.value()));
  return object;
}

}  // namespace nvcre::api
