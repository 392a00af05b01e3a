#pragma once
// Structural expansion of catalog entry data (parsed YAML as JSON) against typed parameters.
//
// Strings: a string scalar holding `{{...}}` is rendered with kainjow::mustache (no HTML escaping)
// against the parameters; a scalar that is exactly one placeholder (`{{nodesPerJob}}`) becomes the
// parameter's typed value (int, bool, string, list, map). Placeholders must name known parameters.
//
// Directives (maps whose keys start with `$`; any other `$` key is an error):
//   {$include: <path under _lib/>}   fragment, expanded with the same parameters. A list fragment
//                                    stands alone (spliced when it is a list item); a map fragment
//                                    is merged into the surrounding map (sibling keys win).
//   {$if: <cond>, $then: v, $else: w} v or w; a missing branch means "absent": the key is dropped
//                                    from its map / the item from its list. List results are
//                                    spliced into an enclosing list.
//   {$str: <scalar>}                 the rendered value as a string ("{{gpusPerNode}}" -> "8").
//   {$mpiEnvArgs: <env list>}        [{name, value}] -> ["-x", "NAME=VALUE", ...] (bare NAME when
//                                    there is no value); spliced into an enclosing list.
//   {$repeat: s, $count: n, $separator: sep}  s repeated n times joined by sep (string).
//   {$file: <path>}  the file's text, rendered as one string; a path under the entry's own folder,
//                    or `_lib/...` for a file shared by several entries.
// Map keys holding `{{...}}` are rendered too (a resource named by a parameter); empty keys drop.
// Conditions: {param: p} (truthy: non-empty, non-zero, true), {param: p, equals: v},
//   {param: p, in: [..]}, {param: p, gt: n}, {not: c}, {all: [c..]}, {any: [c..]}.
#include "catalog/templates.hpp"

#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <string_view>

namespace nvcre::catalog::detail {

struct CatalogData {
  std::map<std::string, boost::json::value, std::less<>>
      lib;  // "_lib/..." (relative to entries/) -> parsed YAML
  std::map<std::string, std::string, std::less<>>
      files;  // every file relative to entries/ -> raw text
  TextTemplates
      templates;  // every `{{` text of lib, files and entries, parsed once (add_templates)
};

// Parses the templates of `lib` and of every file that is not YAML (the `$file` texts) once.
void add_templates(CatalogData& data);

struct ExpandContext {
  const CatalogData& data;
  const boost::json::object& params;
  std::string entry_dir;  // "<domain>/<variant>/"
  // Where the expanded document is allocated; build() passes an arena dropped after decoding.
  boost::json::storage_ptr storage = {};
};

// Throws CatalogError naming the JSON path of the offending node.
boost::json::value expand_document(const boost::json::value& document, const ExpandContext& ctx);

}  // namespace nvcre::catalog::detail
