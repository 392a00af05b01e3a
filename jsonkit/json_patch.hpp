#pragma once
// RFC 6902 JSON Patch (used for `jobTemplatePatch`) over RFC 6901 JSON Pointers.
#include <boost/json/value.hpp>

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
boost::json::value apply_json_patch(const boost::json::value& document,
                                    const boost::json::value& patch);

// RFC 6901 pointer -> reference tokens ("" -> {}, "/a~1b/~0c" -> {"a/b", "~c"}). Throws
// std::invalid_argument for a non-empty pointer without a leading '/' or a bad '~' escape.
std::vector<std::string> parse_json_pointer(std::string_view pointer);

}  // namespace nvcre::jsonkit
