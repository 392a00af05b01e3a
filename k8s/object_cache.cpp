#include "k8s/object_cache.hpp"

#include "jsonkit/paths.hpp"

#include "k8s/cache_reader.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace nvcre::k8s {
namespace json = boost::json;

ObjectRef object_ref_of(const json::value& object) {
  return ObjectRef{jsonkit::string_at(object, {"apiVersion"}), jsonkit::string_at(object, {"kind"}),
                   jsonkit::string_at(object, {"metadata", "namespace"}),
                   jsonkit::string_at(object, {"metadata", "name"})};
}

Labels labels_of(const json::value& object) {
  Labels labels;
  const auto* l = jsonkit::value_at(object, {"metadata", "labels"});
  if (l == nullptr || !l->is_object()) return labels;
  for (const auto& [k, v] : l->as_object()) {
    if (v.is_string()) labels.emplace(k, v.as_string());
  }
  return labels;
}

std::string uid_of(const json::value& object) {
  return jsonkit::string_at(object, {"metadata", "uid"});
}

std::optional<std::uint64_t> integer_resource_version(const json::value& object) {
  const std::string text = jsonkit::string_at(object, {"metadata", "resourceVersion"});
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

bool string_at_pointer_is(const json::value& object, std::string_view pointer,
                          std::string_view value) {
  json::error_code error;
  const json::value* field = object.find_pointer(pointer, error);
  return field != nullptr && field->is_string() && field->get_string() == value;
}

std::vector<const json::value*> CacheView::list_by_field(std::string_view api_version,
                                                         std::string_view kind, std::string_view ns,
                                                         std::string_view pointer,
                                                         std::string_view value) const {
  std::vector<const json::value*> out;
  for (const json::value* object : list(api_version, kind, ns)) {
    if (string_at_pointer_is(*object, pointer, value)) out.push_back(object);
  }
  return out;
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

ObjectCache::ObjectCache(std::set<KindKey> kept_parsed, IndexedLabels indexed_labels,
                         IndexedFields indexed_fields)
    : kept_parsed_(std::move(kept_parsed)),
      indexed_labels_(std::move(indexed_labels)),
      indexed_fields_(std::move(indexed_fields)) {}
ObjectCache::~ObjectCache() = default;
// Copies and moves take the objects, never the source's own reader (its pointers are the source's).
ObjectCache::ObjectCache(const ObjectCache& other)
    : kept_parsed_(other.kept_parsed_),
      indexed_labels_(other.indexed_labels_),
      indexed_fields_(other.indexed_fields_),
      kinds_(other.kinds_),
      packers_(other.packers_),
      delivered_(other.delivered_),
      tombstones_(other.tombstones_),
      tombstone_order_(other.tombstone_order_) {
  reindex();
}
ObjectCache::ObjectCache(ObjectCache&& other) noexcept
    : kept_parsed_(std::move(other.kept_parsed_)),
      indexed_labels_(std::move(other.indexed_labels_)),
      indexed_fields_(std::move(other.indexed_fields_)),
      kinds_(std::move(other.kinds_)),
      packers_(std::move(other.packers_)),
      label_index_(std::move(other.label_index_)),
      delivered_(std::move(other.delivered_)),
      tombstones_(std::move(other.tombstones_)),
      tombstone_order_(std::move(other.tombstone_order_)) {
  other.forget_own_reader();
}
ObjectCache& ObjectCache::operator=(const ObjectCache& other) {
  if (this != &other) {
    kept_parsed_ = other.kept_parsed_;
    indexed_labels_ = other.indexed_labels_;
    indexed_fields_ = other.indexed_fields_;
    kinds_ = other.kinds_;
    packers_ = other.packers_;
    reindex();
    delivered_ = other.delivered_;
    tombstones_ = other.tombstones_;
    tombstone_order_ = other.tombstone_order_;
    forget_own_reader();
  }
  return *this;
}
ObjectCache& ObjectCache::operator=(ObjectCache&& other) noexcept {
  if (this != &other) {
    kept_parsed_ = std::move(other.kept_parsed_);
    indexed_labels_ = std::move(other.indexed_labels_);
    indexed_fields_ = std::move(other.indexed_fields_);
    kinds_ = std::move(other.kinds_);
    packers_ = std::move(other.packers_);
    label_index_ = std::move(other.label_index_);
    delivered_ = std::move(other.delivered_);
    tombstones_ = std::move(other.tombstones_);
    tombstone_order_ = std::move(other.tombstone_order_);
    forget_own_reader();
    other.forget_own_reader();
  }
  return *this;
}

std::map<ObjectCache::KindKey, std::size_t> ObjectCache::size_by_kind() const {
  std::map<KindKey, std::size_t> out;
  for (const auto& [kind, objects] : kinds_)
    out[KindKey{std::string(kind.first), std::string(kind.second)}] = objects.size();
  return out;
}

std::size_t ObjectCache::size() const {
  std::size_t count = 0;
  for (const auto& [kind, objects] : kinds_) count += objects.size();
  return count;
}

const CachedObject* ObjectCache::find(const ObjectRef& ref) const {
  auto objects = kinds_.find(StringPair{ref.api_version, ref.kind});
  if (objects == kinds_.end()) return nullptr;
  auto it = objects->second.find(StringPair{ref.ns, ref.name});
  return it == objects->second.end() ? nullptr : &it->second;
}

std::string ObjectCache::label_index_key(std::string_view api_version, std::string_view kind,
                                         std::string_view key, std::string_view value) {
  std::string out;
  out.reserve(api_version.size() + kind.size() + key.size() + value.size() + 3);
  for (std::string_view part : {api_version, kind, key}) out.append(part).push_back('\0');
  return out.append(value);
}

const std::vector<std::string>& ObjectCache::fields_of(std::string_view api_version,
                                                       std::string_view kind) const {
  static const std::vector<std::string> kNone;
  if (indexed_fields_.empty()) return kNone;
  auto fields = indexed_fields_.find(KindKey{api_version, kind});
  return fields == indexed_fields_.end() ? kNone : fields->second;
}

bool ObjectCache::is_indexed(std::string_view api_version, std::string_view kind,
                             std::string_view key) const {
  if (key.starts_with('/')) {
    const auto& fields = fields_of(api_version, kind);
    return std::find(fields.begin(), fields.end(), key) != fields.end();
  }
  if (indexed_labels_.empty()) return false;
  auto keys = indexed_labels_.find(KindKey{api_version, kind});
  return keys != indexed_labels_.end() && keys->second.contains(std::string(key));
}

std::size_t ObjectCache::label_index_size() const {
  std::size_t count = 0;
  for (const auto& [key, names] : label_index_) count += names.size();
  return count;
}

void ObjectCache::reindex() {
  label_index_.clear();
  for (const auto& [kind, objects] : kinds_) {
    for (const auto& entry : objects) {
      index_labels(ObjectRef{kind.first, kind.second, entry.first.first, entry.first.second}, entry,
                   true);
    }
  }
}

void ObjectCache::index_labels(const ObjectRef& ref, const Entry& entry, bool add) {
  const CachedObject& object = entry.second;
  auto index = [&](std::string_view key, std::string_view value) {
    const std::string index_key = label_index_key(ref.api_version, ref.kind, key, value);
    if (add) {
      label_index_[index_key].insert(&entry);
      return;
    }
    auto entries = label_index_.find(index_key);
    if (entries == label_index_.end()) return;
    entries->second.erase(&entry);
    if (entries->second.empty()) label_index_.erase(entries);
  };
  if (auto keys = indexed_labels_.find(KindKey{ref.api_version, ref.kind});
      keys != indexed_labels_.end()) {
    for (const auto& key : keys->second) {
      if (const auto value = object.label(key)) index(key, *value);
    }
  }
  const auto& fields = fields_of(ref.api_version, ref.kind);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (const std::string_view value = object.field(i); !value.empty()) index(fields[i], value);
  }
}

void ObjectCache::put(const ObjectRef& ref, json::value object) {
  forget_own_reader();
  if (!tombstones_.empty()) tombstones_.erase(ref);
  const auto form = kept_parsed_.contains(KindKey{ref.api_version, ref.kind})
                        ? CachedObject::Form::Parsed
                        : CachedObject::Form::Text;
  auto kind = kinds_.find(StringPair{ref.api_version, ref.kind});
  if (kind == kinds_.end()) kind = kinds_.emplace(Key{ref.api_version, ref.kind}, Objects{}).first;
  TextPacker* packer =
      form == CachedObject::Form::Text ? &packers_[KindKey{ref.api_version, ref.kind}] : nullptr;
  CachedObject stored(std::move(object), form, fields_of(ref.api_version, ref.kind), packer);
  auto it = kind->second.find(StringPair{ref.ns, ref.name});
  if (it != kind->second.end()) {
    index_labels(ref, *it, false);
    it->second = std::move(stored);
  } else {
    it = kind->second.emplace(Key{ref.ns, ref.name}, std::move(stored)).first;
    ++membership_changes_;
  }
  index_labels(ref, *it, true);
}

void ObjectCache::note_delivered(const ObjectRef& ref, const json::value& object) {
  auto version = integer_resource_version(object);
  if (!version) return;
  auto& delivered = delivered_[{ref.api_version, ref.kind}];
  delivered = std::max(delivered, *version);
}

void ObjectCache::upsert(json::value object) {
  ObjectRef ref = checked_ref_of(object);
  note_delivered(ref, object);
  if (const CachedObject* cached_object = find(ref)) {
    auto cached = cached_object->resource_version();
    auto incoming = integer_resource_version(object);
    // Our own newer write stays. The same version is the same object (usually the echo of our own
    // write): keeping it spares re-encoding it.
    if (cached && incoming && *incoming <= *cached) return;
  }
  put(ref, std::move(object));
}

bool ObjectCache::record_own_write(json::value object) {
  ObjectRef ref = checked_ref_of(object);
  auto written = integer_resource_version(object);
  if (!written) return false;
  auto delivered = delivered_.find({ref.api_version, ref.kind});
  if (delivered != delivered_.end() && *written <= delivered->second) return false;
  if (const CachedObject* cached_object = find(ref)) {
    auto cached = cached_object->resource_version();
    if (!cached || *written <= *cached) return false;
  }
  put(ref, std::move(object));
  return true;
}

void ObjectCache::erase(const ObjectRef& ref) {
  forget_own_reader();
  auto objects = kinds_.find(StringPair{ref.api_version, ref.kind});
  if (objects == kinds_.end()) return;
  auto it = objects->second.find(StringPair{ref.ns, ref.name});
  if (it == objects->second.end()) return;
  index_labels(ref, *it, false);
  objects->second.erase(it);
  ++membership_changes_;
}

void ObjectCache::erase(const json::value& last_state) {
  ObjectRef ref = checked_ref_of(last_state);
  note_delivered(ref, last_state);
  erase(ref);
  if (tombstones_.insert(ref).second) tombstone_order_.push_back(ref);
  while (tombstone_order_.size() > kTombstones) {
    tombstones_.erase(tombstone_order_.front());
    tombstone_order_.pop_front();
  }
}

void ObjectCache::clear_kind(std::string_view api_version, std::string_view kind) {
  forget_own_reader();
  auto objects = kinds_.find(StringPair{api_version, kind});
  if (objects != kinds_.end()) {
    kinds_.erase(objects);
    ++membership_changes_;
  }
  const std::string prefix =
      label_index_key(api_version, kind, "", "").substr(0, api_version.size() + kind.size() + 2);
  auto first = label_index_.lower_bound(prefix);
  auto last = first;
  while (last != label_index_.end() && last->first.starts_with(prefix)) ++last;
  label_index_.erase(first, last);
}

CacheReader& ObjectCache::own_reader() const {
  if (!own_reader_) own_reader_ = std::make_unique<CacheReader>(*this);
  return *own_reader_;
}

void ObjectCache::forget_own_reader() {
  std::lock_guard lock(own_reader_mutex_);
  own_reader_.reset();
}

const json::value* ObjectCache::get(const ObjectRef& ref) const {
  std::lock_guard lock(own_reader_mutex_);
  return own_reader().get(ref);
}

std::vector<const json::value*> ObjectCache::list(std::string_view api_version,
                                                  std::string_view kind, std::string_view ns,
                                                  const LabelSelector& selector) const {
  std::lock_guard lock(own_reader_mutex_);
  return own_reader().list(api_version, kind, ns, selector);
}

std::vector<const json::value*> ObjectCache::owned_by(std::string_view api_version,
                                                      std::string_view kind, std::string_view ns,
                                                      std::string_view owner_uid) const {
  std::lock_guard lock(own_reader_mutex_);
  return own_reader().owned_by(api_version, kind, ns, owner_uid);
}

std::vector<const json::value*> ObjectCache::list_by_field(std::string_view api_version,
                                                           std::string_view kind,
                                                           std::string_view ns,
                                                           std::string_view pointer,
                                                           std::string_view value) const {
  std::lock_guard lock(own_reader_mutex_);
  return own_reader().list_by_field(api_version, kind, ns, pointer, value);
}

}  // namespace nvcre::k8s
