#include "k8s/cached_object.hpp"

#include "jsonkit/paths.hpp"

#include "k8s/object_cache.hpp"
#include "k8s/packed_fields.hpp"

#include <boost/json.hpp>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

const json::object* metadata_of(const json::value& object) {
  return jsonkit::object_at(object, {"metadata"});
}

}  // namespace

CachedObject::CachedObject(json::value object, Form form,
                           const std::vector<std::string>& indexed_fields, TextPacker* packer)
    : form_(form) {
  for (const auto& [key, value] : labels_of(object)) {
    append_field(index_, key);
    append_field(index_, value);
    ++label_count_;
  }
  for (const auto& pointer : indexed_fields) {
    json::error_code error;
    const json::value* value = object.find_pointer(pointer, error);
    append_field(index_, value != nullptr && value->is_string()
                             ? std::string_view(value->get_string())
                             : std::string_view());
    ++field_count_;
  }
  const json::object* meta = metadata_of(object);
  if (const auto* owners = meta == nullptr ? nullptr : meta->if_contains("ownerReferences");
      owners != nullptr && owners->is_array()) {
    for (const auto& owner : owners->get_array()) {
      const auto* o = owner.if_object();
      const auto* uid = o == nullptr ? nullptr : o->if_contains("uid");
      append_field(index_, uid != nullptr && uid->is_string() ? std::string_view(uid->get_string())
                                                              : std::string_view());
    }
  }
  index_.shrink_to_fit();
  if (auto version = integer_resource_version(object)) {
    has_resource_version_ = true;
    resource_version_ = *version;
  }
  if (form_ == Form::Parsed) {
    parsed_ = std::move(object);
  } else if (packer != nullptr) {
    text_ = packer->pack(json::serialize(object));
  } else {
    text_.bytes = json::serialize(object);
    text_.bytes.shrink_to_fit();  // serialize grows its buffer geometrically
    text_.size = static_cast<std::uint32_t>(text_.bytes.size());
  }
}

json::value CachedObject::parse() const {
  return form_ == Form::Parsed ? parsed_ : json::parse(unpack(text_));
}

bool CachedObject::mentions(std::string_view text) const {
  return form_ == Form::Parsed || unpack(text_).find(text) != std::string_view::npos;
}

Labels CachedObject::labels() const {
  Labels labels;
  std::size_t at = 0;
  for (std::uint32_t i = 0; i < label_count_; ++i) {
    std::string_view key = next_field(index_, at);
    std::string_view value = next_field(index_, at);
    labels.emplace(key, value);
  }
  return labels;
}

std::optional<std::string_view> CachedObject::label(std::string_view key) const {
  std::size_t at = 0;
  for (std::uint32_t i = 0; i < label_count_; ++i) {
    std::string_view name = next_field(index_, at);
    std::string_view value = next_field(index_, at);
    if (name == key) return value;
  }
  return std::nullopt;
}

std::string_view CachedObject::field(std::size_t i) const {
  if (i >= field_count_) return {};
  std::size_t at = 0;
  for (std::size_t skip = 0; skip < 2 * std::size_t{label_count_} + i; ++skip)
    next_field(index_, at);
  return next_field(index_, at);
}

bool CachedObject::has_owner(std::string_view uid) const {
  std::size_t at = 0;
  for (std::uint32_t i = 0; i < 2 * label_count_ + field_count_; ++i) next_field(index_, at);
  while (at < index_.size()) {
    if (next_field(index_, at) == uid) return true;
  }
  return false;
}

std::optional<std::uint64_t> CachedObject::resource_version() const {
  return has_resource_version_ ? std::optional(resource_version_) : std::nullopt;
}

}  // namespace nvcre::k8s
