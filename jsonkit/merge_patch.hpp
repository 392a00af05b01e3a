#pragma once
// RFC 7386 JSON Merge Patch and the JSON equality that merges, `when.config` and the RFC 6902
// `test` op share.
//
// A null in the patch deletes the key; a null inside a value that is written fresh (a new key, a
// replacement of another type) is dropped too, because there is nothing to delete and a stored null
// would only reach the API server as noise. Maps merge recursively; every list is replaced.
#include <boost/json/value.hpp>

namespace nvcre::jsonkit {

// Keys starting with '$' are strategic-merge directives ("$patch", "$retainKeys", ...), which a
// merge patch would silently store as data: they throw std::invalid_argument naming the key path.
boost::json::value merge_patch(const boost::json::value& base, const boost::json::value& patch);

// `value` with every null object member dropped, recursively (also inside list items).
boost::json::value without_nulls(const boost::json::value& value);

// Deep equality where numbers compare by value (1 == 1.0, int64 vs uint64) and object member order
// does not matter (RFC 6902 §4.6).
bool json_equal(const boost::json::value& a, const boost::json::value& b);

}  // namespace nvcre::jsonkit
