#include "k8s/object_cache.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

std::string string_at(const json::value& object, std::string_view a, std::string_view b = {}) {
  const auto* o = object.if_object();
  if (o == nullptr) return {};
  const json::value* v = o->if_contains(a);
  if (v != nullptr && !b.empty()) {
    const auto* inner = v->if_object();
    v = inner == nullptr ? nullptr : inner->if_contains(b);
  }
  const auto* s = v == nullptr ? nullptr : v->if_string();
  return s == nullptr ? std::string{} : std::string(*s);
}

bool has_owner(const json::value& object, std::string_view uid) {
  const auto* meta = object.as_object().if_contains("metadata");
  const auto* refs = meta == nullptr || !meta->is_object() ? nullptr : meta->as_object().if_contains("ownerReferences");
  if (refs == nullptr || !refs->is_array()) return false;
  for (const auto& ref : refs->as_array()) {
    if (string_at(ref, "uid") == uid) return true;
  }
  return false;
}

}  // namespace

ObjectRef object_ref_of(const json::value& object) {
  return ObjectRef{string_at(object, "apiVersion"), string_at(object, "kind"), string_at(object, "metadata", "namespace"),
                   string_at(object, "metadata", "name")};
}

Labels labels_of(const json::value& object) {
  Labels labels;
  const auto* o = object.if_object();
  const auto* meta = o == nullptr ? nullptr : o->if_contains("metadata");
  const auto* l = meta == nullptr || !meta->is_object() ? nullptr : meta->as_object().if_contains("labels");
  if (l == nullptr || !l->is_object()) return labels;
  for (const auto& [k, v] : l->as_object()) {
    if (v.is_string()) labels.emplace(k, v.as_string());
  }
  return labels;
}

std::string uid_of(const json::value& object) { return string_at(object, "metadata", "uid"); }

std::optional<std::uint64_t> integer_resource_version(const json::value& object) {
  const std::string text = string_at(object, "metadata", "resourceVersion");
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

namespace {

ObjectRef checked_ref_of(const json::value& object) {
  ObjectRef ref = object_ref_of(object);
  if (ref.api_version.empty() || ref.kind.empty() || ref.name.empty()) {
    throw std::invalid_argument("object cache: object without apiVersion, kind or metadata.name");
  }
  return ref;
}

}  // namespace

void ObjectCache::note_delivered(const ObjectRef& ref, const json::value& object) {
  auto version = integer_resource_version(object);
  if (!version) return;
  auto& delivered = delivered_[{ref.api_version, ref.kind}];
  delivered = std::max(delivered, *version);
}

void ObjectCache::upsert(json::value object) {
  ObjectRef ref = checked_ref_of(object);
  note_delivered(ref, object);
  auto it = objects_.find(ref);
  if (it != objects_.end()) {
    auto cached = integer_resource_version(it->second);
    auto incoming = integer_resource_version(object);
    if (cached && incoming && *incoming < *cached) return;  // our own newer write stays
    it->second = std::move(object);
    return;
  }
  objects_.emplace(std::move(ref), std::move(object));
}

bool ObjectCache::record_own_write(json::value object) {
  ObjectRef ref = checked_ref_of(object);
  auto written = integer_resource_version(object);
  if (!written) return false;
  auto delivered = delivered_.find({ref.api_version, ref.kind});
  if (delivered != delivered_.end() && *written <= delivered->second) return false;
  auto it = objects_.find(ref);
  if (it != objects_.end()) {
    auto cached = integer_resource_version(it->second);
    if (!cached || *written <= *cached) return false;
    it->second = std::move(object);
    return true;
  }
  objects_.emplace(std::move(ref), std::move(object));
  return true;
}

void ObjectCache::erase(const ObjectRef& ref) { objects_.erase(ref); }

void ObjectCache::erase(const json::value& last_state) {
  ObjectRef ref = checked_ref_of(last_state);
  note_delivered(ref, last_state);
  objects_.erase(ref);
}

void ObjectCache::clear_kind(std::string_view api_version, std::string_view kind) {
  auto first = objects_.lower_bound(ObjectRef{std::string(api_version), std::string(kind), {}, {}});
  auto last = first;
  while (last != objects_.end() && last->first.api_version == api_version && last->first.kind == kind) ++last;
  objects_.erase(first, last);
}

const json::value* ObjectCache::get(const ObjectRef& ref) const {
  auto it = objects_.find(ref);
  return it == objects_.end() ? nullptr : &it->second;
}

std::vector<const json::value*> ObjectCache::list(std::string_view api_version, std::string_view kind,
                                                  std::string_view ns, const LabelSelector& selector) const {
  std::vector<const json::value*> out;
  ObjectRef from{std::string(api_version), std::string(kind), std::string(ns), {}};
  for (auto it = objects_.lower_bound(from); it != objects_.end(); ++it) {
    const ObjectRef& ref = it->first;
    if (ref.api_version != api_version || ref.kind != kind) break;
    if (!ns.empty() && ref.ns != ns) break;
    if (selector.empty() || selector.matches(labels_of(it->second))) out.push_back(&it->second);
  }
  return out;
}

std::vector<const json::value*> ObjectCache::owned_by(std::string_view api_version, std::string_view kind,
                                                      std::string_view ns, std::string_view owner_uid) const {
  std::vector<const json::value*> out;
  for (const auto* object : list(api_version, kind, ns)) {
    if (has_owner(*object, owner_uid)) out.push_back(object);
  }
  return out;
}

}  // namespace nvcre::k8s
