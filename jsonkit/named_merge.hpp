#pragma once
// A JSON merge where lists of named objects merge by name: the shape of a strategic merge patch
// whose every list of objects has `name` as its merge key (container, env, volume lists). The
// override engine merges dependency overrides with it; kube-sim's Trainer merges pod template
// overrides the same way.
//
// A null in the override removes the key from the result, and a null inside a value that is
// written fresh (a new key, a replacement of another type, a new named-list item) is dropped too.
// Lists that replace wholesale are copied verbatim apart from that.
#include <boost/json/value.hpp>

namespace nvcre::jsonkit {

// Objects merge recursively; a list merges by item `name` when both lists are non-empty and every
// item of both is an object with a non-empty string `name` (base order kept, same-named override
// item merged in, new names appended in override order); anything else (scalars, string lists,
// unnamed items, empty lists, type mismatch) is replaced by the override value. Non-object
// arguments: the override replaces.
boost::json::value merge_named(const boost::json::value& base,
                               const boost::json::value& override_value);

// Two lists merged as merge_named merges a key that holds them in both objects: by item `name`
// under the rule above, else the override replaces; a null override leaves the base (e.g. a
// container's env and the env a TrainJob's trainer adds to it).
boost::json::value merge_named_lists(const boost::json::value& base,
                                     const boost::json::value& override_list);

}  // namespace nvcre::jsonkit
