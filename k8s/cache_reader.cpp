#include "k8s/cache_reader.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::k8s {

const boost::json::value* CacheReader::parsed(const CachedObject& object) const {
  if (const auto* kept = object.kept_parsed()) return kept;
  auto it = parsed_.find(&object);
  if (it == parsed_.end()) it = parsed_.emplace(&object, object.parse()).first;
  return &it->second;
}

const boost::json::value* CacheReader::get(const ObjectRef& ref) const {
  const CachedObject* object = cache_.find(ref);
  return object == nullptr ? nullptr : parsed(*object);
}

std::vector<const boost::json::value*> CacheReader::list(std::string_view api_version,
                                                         std::string_view kind, std::string_view ns,
                                                         const LabelSelector& selector) const {
  std::vector<const boost::json::value*> out;
  auto take_matching = [&](const CachedObject& object) {
    if (selector.empty() ||
        selector.matches_lookup([&](std::string_view key) { return object.label(key); })) {
      out.push_back(parsed(object));
    }
  };
  // An equality on an indexed label narrows the candidates to its index entry; the whole selector
  // is still checked on each.
  for (const auto& requirement : selector.requirements()) {
    const bool single_value =
        requirement.op == Requirement::Operator::Equals ||
        (requirement.op == Requirement::Operator::In && requirement.values.size() == 1);
    if (single_value && cache_.for_each_indexed(api_version, kind, ns, requirement.key,
                                                requirement.values.front(), take_matching))
      return out;
  }
  cache_.for_each(api_version, kind, ns, take_matching);
  return out;
}

std::vector<const boost::json::value*> CacheReader::owned_by(std::string_view api_version,
                                                             std::string_view kind,
                                                             std::string_view ns,
                                                             std::string_view owner_uid) const {
  return parsed_where(api_version, kind, ns,
                      [&](const CachedObject& object) { return object.has_owner(owner_uid); });
}

std::vector<const boost::json::value*> CacheReader::list_by_field(std::string_view api_version,
                                                                  std::string_view kind,
                                                                  std::string_view ns,
                                                                  std::string_view pointer,
                                                                  std::string_view value) const {
  std::vector<const boost::json::value*> out;
  if (cache_.for_each_indexed(api_version, kind, ns, pointer, value,
                              [&](const CachedObject& object) { out.push_back(parsed(object)); }))
    return out;
  // JSON text holds a string verbatim unless it has a character the serializer escapes.
  const bool verbatim = std::none_of(value.begin(), value.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
  cache_.for_each(api_version, kind, ns, [&](const CachedObject& object) {
    if (verbatim && !object.mentions(value)) return;
    const boost::json::value* parsed_object = parsed(object);
    if (string_at_pointer_is(*parsed_object, pointer, value)) out.push_back(parsed_object);
  });
  return out;
}

}  // namespace nvcre::k8s
