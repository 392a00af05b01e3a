#pragma once
// How the informer cache keeps one object: as its serialized JSON text, plus the few facts the
// cache must answer without parsing it: labels (list with a selector), owner uids (owned_by) and
// the resourceVersion (read-your-writes ordering). A boost::json DOM costs 3-4.6 bytes of heap
// per JSON byte in many small allocations; the text costs one byte per byte in one allocation
// (a fraction of that once packed against its kind's dictionary, k8s/packed_text.hpp), and a
// reader parses only the objects it is handed (k8s/cache_reader.hpp).
// Kinds read in bulk on hot paths and not growing with the work in flight (Nodes: node discovery
// lists all of them) can instead be kept parsed: then readers get the kept DOM, parse-free.
// The string values of a kind's indexed fields (JSON pointers, ObjectCache::IndexedFields) are
// kept beside the labels, so replacing or erasing the object unindexes them without a parse.
#include "k8s/label_selector.hpp"
#include "k8s/packed_text.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

class CachedObject {
 public:
  enum class Form { Text, Parsed };
  // `packer`: the text is packed by it (Form::Text; nullptr keeps the text as it is).
  CachedObject(boost::json::value object, Form form,
               const std::vector<std::string>& indexed_fields = {}, TextPacker* packer = nullptr);

  // The DOM of a Parsed object, else nullptr.
  const boost::json::value* kept_parsed() const {
    return form_ == Form::Parsed ? &parsed_ : nullptr;
  }
  // A fresh DOM on the default memory resource (so that copies readers make of it, or of its
  // parts, never depend on the memory of the read that parsed it).
  boost::json::value parse() const;

  Labels labels() const;
  // The value of label `key`, nullopt when the object has no such label (no Labels map built).
  std::optional<std::string_view> label(std::string_view key) const;
  // The string at indexed_fields[i] when the object was stored; "" when missing or not a string.
  std::string_view field(std::size_t i) const;
  bool has_owner(std::string_view uid) const;
  // Whether the stored text contains `text` (always true for a Parsed object). Text JSON never
  // escapes (no quote, backslash or control character) appears verbatim in any field holding it.
  bool mentions(std::string_view text) const;
  // metadata.resourceVersion when it is a decimal integer (see integer_resource_version).
  std::optional<std::uint64_t> resource_version() const;

 private:
  PackedText text_;            // Form::Text
  boost::json::value parsed_;  // Form::Parsed
  // Length-prefixed fields: label_count_ key/value pairs, field_count_ indexed field values, then
  // the ownerReferences' uids.
  std::string index_;
  std::uint32_t label_count_ = 0;
  std::uint32_t field_count_ = 0;
  Form form_ = Form::Text;
  bool has_resource_version_ = false;
  std::uint64_t resource_version_ = 0;
};

}  // namespace nvcre::k8s
