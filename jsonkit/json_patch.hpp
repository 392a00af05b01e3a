#pragma once
// RFC 6902 JSON Patch (used for `jobTemplatePatch`) over RFC 6901 JSON Pointers.
#include <boost/json/value.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::jsonkit {

// Applies `patch` (an array of operation objects: add, remove, replace, move, copy, test) to a copy
// of `document` and returns it. Operations run in order; the patch is atomic: on the first failure
// std::invalid_argument is thrown, e.g.
//   op[1] (add "/spec/x/y"): parent "/spec/x" does not exist
// and the caller's document is untouched. Pointers honour ~0 / ~1 escapes; "-" appends to an
// array in `add` (and in the target of move/copy); members of an operation that RFC 6902 does not
// define are ignored.
//
// Copies can double the document with every operation, so a short patch could ask for unbounded
// memory: as the Kubernetes API server does, a patch may hold at most `max_operations` operations
// and its copies may add at most `max_copy_bytes` (serialized JSON) to the document; past either
// bound JsonPatchTooLarge (an std::invalid_argument) is thrown.
struct JsonPatchLimits {
  std::size_t max_operations = 10000;
  std::size_t max_copy_bytes = 3u << 20;
};
struct JsonPatchTooLarge : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
boost::json::value apply_json_patch(const boost::json::value& document,
                                    const boost::json::value& patch,
                                    const JsonPatchLimits& limits = {});

// RFC 6901 pointer -> reference tokens ("" -> {}, "/a~1b/~0c" -> {"a/b", "~c"}). Throws
// std::invalid_argument for a non-empty pointer without a leading '/' or a bad '~' escape.
std::vector<std::string> parse_json_pointer(std::string_view pointer);

}  // namespace nvcre::jsonkit
