#pragma once
// The two JSON merges of the override engine (catalog_platform.md §1.6.2) and the JSON equality
// they, `when.config` and the JSON Patch `test` op share.
//
// Both merges treat `null` as "delete this key": a null in the override removes the key from the
// result, and a null inside a value that is written fresh (a new key, a replacement of another
// type, a new named-list item) is dropped too, because there is nothing to delete and a stored
// null would only reach the API server as noise. Lists that replace wholesale are copied
// verbatim apart from that.
#include <boost/json/value.hpp>

namespace nvcre::workflow {

// Upstream's `mergeMaps` for override dependencies: objects merge recursively; a list merges by
// item `name` when both lists are non-empty and every item of both is an object with a non-empty
// string `name` (base order kept, same-named override item merged in, new names appended in
// override order); anything else (scalars, string lists, unnamed items, empty lists, type
// mismatch) is replaced by the override value. Non-object arguments: the override replaces.
boost::json::value merge_dependency_objects(const boost::json::value& base, const boost::json::value& override_value);

// The jobTemplate override: upstream applies a Kubernetes strategic merge patch, and every list
// reachable from the catalog's overrides is untagged (replace), so the practical rule of §1.6.2
// holds: maps merge recursively, null deletes, every list is replaced. That is RFC 7386 JSON Merge
// Patch. Strategic-merge directives (keys starting with '$', e.g. "$patch") would silently become
// data here, so they throw std::invalid_argument naming the key path instead.
boost::json::value merge_job_template(const boost::json::value& base, const boost::json::value& patch);

// Deep equality where numbers compare by value (1 == 1.0, int64 vs uint64) and object member order
// does not matter (RFC 6902 §4.6).
bool json_equal(const boost::json::value& a, const boost::json::value& b);

}  // namespace nvcre::workflow
