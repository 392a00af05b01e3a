#include "sim/store.hpp"

#include "jsonkit/paths.hpp"
#include "jsonkit/merge_patch.hpp"

#include "sim/continue_token.hpp"

#include "jsonkit/named_merge.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <set>

namespace nvcre::sim {

namespace json = boost::json;

const char* to_string(EventType type) {
  switch (type) {
    case EventType::Added:
      return "ADDED";
    case EventType::Modified:
      return "MODIFIED";
    case EventType::Deleted:
      return "DELETED";
  }
  return "ERROR";
}

std::string meta_string(const json::value& object, const char* key) {
  return jsonkit::string_at(object, {"metadata", key});
}

namespace {

json::object& metadata_of(json::value& object) {
  auto& meta = object.as_object()["metadata"];
  if (!meta.is_object()) meta = json::object{};
  return meta.as_object();
}

std::vector<std::string> finalizers_of(const json::value& object) {
  std::vector<std::string> out;
  const auto* list = jsonkit::value_at(object, {"metadata", "finalizers"});
  if (!list || !list->is_array()) return out;
  for (const auto& f : list->as_array())
    if (f.is_string()) out.emplace_back(f.as_string());
  return out;
}

// What a change of bumps metadata.generation: everything but metadata (and status, when the
// status lives in its own subresource).
json::value generation_view(const json::value& object, bool status_subresource) {
  json::value copy = object;
  auto& obj = copy.as_object();
  obj.erase("metadata");
  if (status_subresource) obj.erase("status");
  return copy;
}

std::int64_t generation_of(const json::value& object) {
  const auto* generation = jsonkit::value_at(object, {"metadata", "generation"});
  return generation != nullptr && generation->is_number() ? generation->to_number<std::int64_t>()
                                                          : 0;
}

std::string go_string_slice(const std::vector<std::string>& items) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", \"" : "\"") + items[i] + "\"";
  return out + "}";
}

}  // namespace

Store::Store(StoreOptions options) : options_(std::move(options)) {
  if (!options_.clock) options_.clock = [] { return std::chrono::system_clock::now(); };
  rng_.seed(options_.seed ? options_.seed : std::random_device{}());
}

std::chrono::system_clock::time_point Store::now() const { return options_.clock(); }

std::string Store::now_rfc3339() const {
  std::time_t t = std::chrono::system_clock::to_time_t(options_.clock());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string Store::new_uid() {
  std::uint64_t a = rng_(), b = rng_();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char buffer[40];
  std::snprintf(
      buffer, sizeof buffer, "%08llx-%04llx-%04llx-%04llx-%012llx",
      static_cast<unsigned long long>(a >> 32), static_cast<unsigned long long>((a >> 16) & 0xffff),
      static_cast<unsigned long long>(a & 0xffff), static_cast<unsigned long long>(b >> 48),
      static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buffer;
}

const std::string& WatchEvent::object_json() const {
  std::call_once(serialized->once, [this] { serialized->text = json::serialize(*object); });
  return serialized->text;
}

void Store::record(EventType type, const ResourceType& rt, const std::string& ns,
                   StoredObject object) {
  last_change_[bucket_key(rt)] = rv_;
  events_.push_back(WatchEvent{rv_, type, rt.group, rt.resource, ns, std::move(object)});
  if (on_commit_) on_commit_(events_.back());
  trim_events();
}

void Store::trim_events() {
  while (events_.size() > options_.retained_events) {
    compacted_rv_ = events_.front().resource_version;
    events_.pop_front();
  }
}

void Store::notify(const ResourceType& type) {
  std::function<void(const ResourceType&)> callback;
  {
    std::lock_guard lock(mutex_);
    callback = on_change_;
  }
  if (callback) callback(type);
}

void Store::set_on_commit(std::function<void(const WatchEvent&)> callback) {
  std::lock_guard lock(mutex_);
  on_commit_ = std::move(callback);
}

void Store::set_on_change(std::function<void(const ResourceType&)> callback) {
  std::lock_guard lock(mutex_);
  on_change_ = std::move(callback);
}

json::value Store::create(const ResourceType& type, const std::string& ns, json::value object,
                          const Admit& admit, bool dry_run) {
  if (!object.is_object()) throw bad_request("the body of the request was not a JSON object");
  {
    std::lock_guard lock(mutex_);
    object.as_object()["apiVersion"] = type.api_version();
    object.as_object()["kind"] = type.kind;
    if (type.status_subresource) object.as_object().erase("status");
    auto& meta = metadata_of(object);  // after the inserts above, which may move the members
    std::string name = meta_string(object, "name");
    if (name.empty()) {
      std::string generate = meta_string(object, "generateName");
      if (generate.empty()) {
        // A custom resource answers with its validator's causes: kube-apiserver reports the
        // missing name next to the rules it could therefore not check.
        if (admit) admit(nullptr, object);
        throw invalid(type.group, type.kind, "",
                      {{"FieldValueRequired", "Required value: name or generateName is required",
                        "metadata.name"}});
      }
      static const char* alphabet = "bcdfghjklmnpqrstvwxz2456789";
      name = generate;
      for (int i = 0; i < 5; ++i) name += alphabet[rng_() % 27];
      meta["name"] = name;
    }
    if (type.namespaced) {
      meta["namespace"] = ns;
    } else {
      meta.erase("namespace");
    }
    meta["uid"] = new_uid();
    meta["creationTimestamp"] = now_rfc3339();
    meta["generation"] = 1;
    meta.erase("deletionTimestamp");
    meta.erase("deletionGracePeriodSeconds");
    meta.erase("resourceVersion");
    if (admit) admit(nullptr, object);

    auto& bucket = buckets_[bucket_key(type)];
    const ObjectKey key{type.namespaced ? ns : std::string(), name};
    if (bucket.contains(key)) throw already_exists(type.group, type.resource, name);
    if (dry_run) return object;
    ++rv_;
    metadata_of(object)["resourceVersion"] = std::to_string(rv_);
    auto stored = std::make_shared<const json::value>(object);
    bucket.emplace(key, stored);
    owner_index_.record_write(bucket_key(type), nullptr, stored.get());
    record(EventType::Added, type, key.first, std::move(stored));
  }
  notify(type);
  return object;
}

StoredObject Store::find_shared(const ResourceType& type, const std::string& ns,
                                const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto bucket = buckets_.find(bucket_key(type));
  if (bucket == buckets_.end()) return nullptr;
  auto it = bucket->second.find({type.namespaced ? ns : std::string(), name});
  if (it == bucket->second.end()) return nullptr;
  return it->second;
}

std::optional<json::value> Store::find(const ResourceType& type, const std::string& ns,
                                       const std::string& name) const {
  StoredObject found = find_shared(type, ns, name);
  if (!found) return std::nullopt;
  return *found;
}

json::value Store::get(const ResourceType& type, const std::string& ns,
                       const std::string& name) const {
  auto found = find(type, ns, name);
  if (!found) throw not_found(type.group, type.resource, name);
  return std::move(*found);
}

namespace {

// Continue tokens name the list's snapshot and the last key served: "<rv>-<key token>". Every page
// of a list shows the objects as of the first page, as kube-apiserver does by reading etcd at that
// revision; a reflector applying the pages as one replace would otherwise miss changes made while
// it paginated (they are older than the resourceVersion it then watches from).
std::string snapshot_token(std::uint64_t rv, const std::string& ns, const std::string& name) {
  return std::to_string(rv) + "-" + encode_continue_token(ns, name);
}

using Key = std::pair<std::string, std::string>;  // namespace, name

// The bucket (or one namespace of it) as it was at `rv`: the current objects, with each key changed
// after `rv` rolled back through the event log to its state at `rv`. nullopt when that state has
// left the log.
std::optional<std::map<Key, const json::value*>> bucket_at(
    const std::map<Key, StoredObject>& current, const std::deque<WatchEvent>& events,
    const ResourceType& type, const std::string& ns, std::uint64_t rv) {
  const bool one_ns = type.namespaced && !ns.empty();
  std::map<Key, const json::value*> view;
  // Keys are (namespace, name): one namespace is a contiguous, already sorted range.
  for (auto it = one_ns ? current.lower_bound(Key{ns, ""}) : current.begin();
       it != current.end() && (!one_ns || it->first.first == ns); ++it)
    view.emplace_hint(view.end(), it->first, it->second.get());
  auto of_type = [&](const WatchEvent& e) {
    return e.group == type.group && e.resource == type.resource && (!one_ns || e.ns == ns);
  };
  auto key_of = [](const WatchEvent& e) { return Key{e.ns, meta_string(*e.object, "name")}; };
  auto older = [](const WatchEvent& e, std::uint64_t v) { return e.resource_version < v; };
  const auto snapshot_end = std::lower_bound(events.begin(), events.end(), rv + 1, older);
  std::map<Key, const WatchEvent*> first_after;
  for (auto it = snapshot_end; it != events.end(); ++it)
    if (of_type(*it)) first_after.emplace(key_of(*it), &*it);
  for (const auto& [changed, first] : first_after) {
    const Key& key = changed;
    if (first->type == EventType::Added) {
      view.erase(key);  // created after the snapshot
      continue;
    }
    // Existed at `rv`: its state is that of its last event up to `rv`.
    auto before = std::find_if(std::make_reverse_iterator(snapshot_end), events.rend(),
                               [&](const WatchEvent& e) { return of_type(e) && key_of(e) == key; });
    if (before == events.rend()) return std::nullopt;
    view[key] = before->object.get();
  }
  return view;
}

}  // namespace

void Store::visit(const ResourceType& type,
                  const std::function<void(const json::value&)>& fn) const {
  std::lock_guard lock(mutex_);
  auto bucket = buckets_.find(bucket_key(type));
  if (bucket == buckets_.end()) return;
  for (const auto& [key, object] : bucket->second) fn(*object);
}

std::vector<StoredObject> Store::snapshot(const ResourceType& type) const {
  std::lock_guard lock(mutex_);
  std::vector<StoredObject> out;
  auto bucket = buckets_.find(bucket_key(type));
  if (bucket == buckets_.end()) return out;
  out.reserve(bucket->second.size());
  for (const auto& [key, object] : bucket->second) out.push_back(object);
  return out;
}

bool Store::has_gc_work() const {
  std::lock_guard lock(mutex_);
  return owner_index_.has_work();
}

GcWork Store::take_gc_work() {
  std::lock_guard lock(mutex_);
  return owner_index_.take_work();
}

void Store::visit_owner_components(
    const std::vector<std::string>& uids,
    const std::function<void(const std::string& bucket, const json::value&)>& fn) const {
  std::lock_guard lock(mutex_);
  for (const auto& location : owner_index_.components(uids)) {
    auto bucket = buckets_.find(location.bucket);
    if (bucket == buckets_.end()) continue;
    auto it = bucket->second.find({location.ns, location.name});
    if (it != bucket->second.end()) fn(location.bucket, *it->second);
  }
}

ListResult Store::list(const ResourceType& type, const std::string& ns, const Filter& filter,
                       std::size_t limit, const std::string& continue_token) const {
  std::lock_guard lock(mutex_);
  ListResult result;
  result.resource_version = rv_;
  std::optional<Key> after;
  if (!continue_token.empty()) {
    const auto dash = continue_token.find('-');
    auto decoded = decode_continue_token(
        dash == std::string::npos ? std::string() : continue_token.substr(dash + 1));
    if (!decoded) throw bad_request("continue key is not valid: illegal base64 data");
    try {
      result.resource_version = std::stoull(continue_token.substr(0, dash));
    } catch (const std::exception&) {
      throw bad_request("continue key is not valid: bad resource version");
    }
    after = Key{decoded->first, decoded->second};
  }
  static const std::map<Key, StoredObject> kEmpty;
  auto bucket = buckets_.find(bucket_key(type));
  const auto& current = bucket == buckets_.end() ? kEmpty : bucket->second;
  // Events after the snapshot must all still be in the log to roll back to it.
  std::optional<std::map<Key, const json::value*>> view;
  if (result.resource_version >= compacted_rv_)
    view = bucket_at(current, events_, type, ns, result.resource_version);
  if (!view)
    throw gone(
        "The provided continue parameter is too old to display a consistent list result. "
        "You can start a new list without the continue parameter.");
  auto it = after ? view->upper_bound(*after) : view->begin();
  for (; it != view->end(); ++it) {
    if (type.namespaced && !ns.empty() && it->first.first != ns) continue;
    if (filter && !filter(*it->second)) continue;
    if (limit > 0 && result.items.size() == limit) {
      const auto& last = result.items.back();
      result.continue_token = snapshot_token(
          result.resource_version, meta_string(last, "namespace"), meta_string(last, "name"));
      for (; it != view->end(); ++it) {
        if (type.namespaced && !ns.empty() && it->first.first != ns) continue;
        if (filter && !filter(*it->second)) continue;
        ++result.remaining_item_count;
      }
      break;
    }
    result.items.push_back(*it->second);
  }
  return result;
}

json::value Store::update(const ResourceType& type, const std::string& ns, const std::string& name,
                          json::value object, UpdateKind kind, const Admit& admit, bool dry_run) {
  if (!object.is_object()) throw bad_request("the body of the request was not a JSON object");
  json::value result;
  {
    std::lock_guard lock(mutex_);
    auto& bucket = buckets_[bucket_key(type)];
    const ObjectKey key{type.namespaced ? ns : std::string(), name};
    auto it = bucket.find(key);
    if (it == bucket.end()) throw not_found(type.group, type.resource, name);
    const StoredObject old_object = it->second;  // kept alive past the bucket's replacement below
    const json::value& old = *old_object;

    std::string body_name = meta_string(object, "name");
    if (!body_name.empty() && body_name != name)
      throw bad_request("the name of the object (" + body_name +
                        ") does not match the name on the URL (" + name + ")");
    std::string body_ns = meta_string(object, "namespace");
    if (type.namespaced && !body_ns.empty() && body_ns != key.first)
      throw bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    std::string body_rv = meta_string(object, "resourceVersion");
    if (body_rv.empty() && !type.allow_unconditional_update)
      throw invalid(type.group, type.kind, name,
                    {{"FieldValueInvalid", "Invalid value: 0x0: must be specified for an update",
                      "metadata.resourceVersion"}});
    if (!body_rv.empty() && body_rv != meta_string(old, "resourceVersion"))
      throw conflict(type.group, type.resource, name);

    json::value next;
    if (kind == UpdateKind::Status) {
      next = old;
      const auto* status = object.as_object().if_contains("status");
      if (status) {
        next.as_object()["status"] = *status;
      } else {
        next.as_object().erase("status");
      }
    } else {
      next = std::move(object);
      next.as_object()["apiVersion"] = type.api_version();
      next.as_object()["kind"] = type.kind;
      if (type.status_subresource) {
        if (const auto* status = old.as_object().if_contains("status")) {
          next.as_object()["status"] = *status;
        } else {
          next.as_object().erase("status");
        }
      }
      auto& meta = metadata_of(next);
      const auto& old_meta = old.as_object().at("metadata").as_object();
      meta["name"] = name;
      if (type.namespaced) meta["namespace"] = key.first;
      for (const char* field : {"uid", "creationTimestamp", "generation", "deletionTimestamp",
                                "deletionGracePeriodSeconds"}) {
        if (const auto* v = old_meta.if_contains(field)) {
          meta[field] = *v;
        } else {
          meta.erase(field);
        }
      }
      if (!meta_string(old, "deletionTimestamp").empty()) {
        auto old_finalizers = finalizers_of(old);
        std::vector<std::string> added;
        for (const auto& f : finalizers_of(next))
          if (std::find(old_finalizers.begin(), old_finalizers.end(), f) == old_finalizers.end())
            added.push_back(f);
        if (!added.empty())
          throw invalid(type.group, type.kind, name,
                        {{"FieldValueForbidden",
                          "Forbidden: no new finalizers can be added if the object is being "
                          "deleted, found new "
                          "finalizers " +
                              go_string_slice(added),
                          "metadata.finalizers"}});
      }
      if (!jsonkit::json_equal(generation_view(old, type.status_subresource),
                               generation_view(next, type.status_subresource)))
        meta["generation"] = generation_of(old) + 1;
    }
    metadata_of(next)["resourceVersion"] = meta_string(old, "resourceVersion");
    if (admit) admit(&old, next);
    if (jsonkit::json_equal(next, old)) return old;  // no-op: no new resourceVersion, no event
    if (dry_run) return next;

    const bool finalize =
        !meta_string(next, "deletionTimestamp").empty() && finalizers_of(next).empty();
    ++rv_;
    metadata_of(next)["resourceVersion"] = std::to_string(rv_);
    owner_index_.record_write(bucket_key(type), &old, finalize ? nullptr : &next);
    auto stored = std::make_shared<const json::value>(std::move(next));
    if (finalize) {
      bucket.erase(it);
    } else {
      it->second = stored;
    }
    result = *stored;
    record(finalize ? EventType::Deleted : EventType::Modified, type, key.first, std::move(stored));
  }
  notify(type);
  return result;
}

Store::DeleteResult Store::remove(const ResourceType& type, const std::string& ns,
                                  const std::string& name, bool dry_run,
                                  const std::optional<std::string>& precondition_rv,
                                  const std::string& add_finalizer,
                                  const std::optional<std::string>& precondition_uid) {
  DeleteResult result;
  {
    std::lock_guard lock(mutex_);
    auto& bucket = buckets_[bucket_key(type)];
    const ObjectKey key{type.namespaced ? ns : std::string(), name};
    auto it = bucket.find(key);
    if (it == bucket.end()) throw not_found(type.group, type.resource, name);
    const json::value& current = *it->second;
    if (precondition_uid && *precondition_uid != meta_string(current, "uid"))
      throw uid_precondition_failed(type.group, type.resource, name, *precondition_uid,
                                    meta_string(current, "uid"));
    if (precondition_rv && *precondition_rv != meta_string(current, "resourceVersion"))
      throw conflict(type.group, type.resource, name);
    const auto finalizers = finalizers_of(current);
    const bool add = !add_finalizer.empty() && std::find(finalizers.begin(), finalizers.end(),
                                                         add_finalizer) == finalizers.end();
    if (!finalizers.empty() || add) {
      const bool marked = !meta_string(current, "deletionTimestamp").empty();
      if (marked && !add) return {current, false};
      json::value next = current;
      auto& meta = metadata_of(next);
      if (add) {
        auto& list = meta["finalizers"];
        if (!list.is_array()) list = json::array{};
        list.as_array().push_back(json::value(add_finalizer));
      }
      if (!marked) {
        meta["deletionTimestamp"] = now_rfc3339();
        meta["deletionGracePeriodSeconds"] = 0;
        meta["generation"] = generation_of(next) + 1;
      }
      if (dry_run) return {next, false};
      ++rv_;
      meta["resourceVersion"] = std::to_string(rv_);
      owner_index_.record_write(bucket_key(type), &current, &next);
      auto stored = std::make_shared<const json::value>(std::move(next));
      it->second = stored;
      result = {*stored, false};
      record(EventType::Modified, type, key.first, std::move(stored));
    } else {
      json::value gone_object = current;
      if (dry_run) return {gone_object, true};
      ++rv_;
      metadata_of(gone_object)["resourceVersion"] = std::to_string(rv_);
      owner_index_.record_write(bucket_key(type), &current, nullptr);
      bucket.erase(it);
      auto stored = std::make_shared<const json::value>(std::move(gone_object));
      result = {*stored, true};
      record(EventType::Deleted, type, key.first, std::move(stored));
    }
  }
  notify(type);
  return result;
}

void Store::remove_all(const ResourceType& type) {
  {
    std::lock_guard lock(mutex_);
    auto bucket = buckets_.find(bucket_key(type));
    if (bucket == buckets_.end()) return;
    for (auto& [key, object] : bucket->second) {
      ++rv_;
      json::value gone_object = *object;
      metadata_of(gone_object)["resourceVersion"] = std::to_string(rv_);
      owner_index_.record_write(bucket->first, object.get(), nullptr);
      record(EventType::Deleted, type, key.first,
             std::make_shared<const json::value>(std::move(gone_object)));
    }
    buckets_.erase(bucket);
  }
  notify(type);
}

std::vector<WatchEvent> Store::events_since(std::uint64_t rv, const ResourceType& type,
                                            const std::string& ns) const {
  std::lock_guard lock(mutex_);
  if (rv < compacted_rv_)
    throw gone("too old resource version: " + std::to_string(rv) + " (" +
               std::to_string(compacted_rv_ + 1) + ")");
  std::vector<WatchEvent> out;
  auto it =
      std::lower_bound(events_.begin(), events_.end(), rv + 1,
                       [](const WatchEvent& e, std::uint64_t v) { return e.resource_version < v; });
  for (; it != events_.end(); ++it) {
    if (it->group != type.group || it->resource != type.resource) continue;
    if (type.namespaced && !ns.empty() && it->ns != ns) continue;
    out.push_back(*it);
  }
  return out;
}

std::uint64_t Store::last_change(const ResourceType& type) const {
  std::lock_guard lock(mutex_);
  auto it = last_change_.find(bucket_key(type));
  return it == last_change_.end() ? 0 : it->second;
}

std::uint64_t Store::resource_version() const {
  std::lock_guard lock(mutex_);
  return rv_;
}

void Store::compact() {
  std::lock_guard lock(mutex_);
  compacted_rv_ = rv_;
  events_.clear();
}

void Store::compact_all() {
  std::lock_guard lock(mutex_);
  compacted_rv_ = ++rv_;
  events_.clear();
}

}  // namespace nvcre::sim
