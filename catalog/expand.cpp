#include "catalog/expand.hpp"

#include "catalog/catalog.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <string>

namespace nvcre::catalog::detail {
namespace {

namespace json = boost::json;

// Result of expanding one node: absent (dropped), a value, or a list to splice into a parent list.
struct Expanded {
  enum class Kind { kAbsent, kValue, kSplice } kind = Kind::kAbsent;
  json::value value;
};

[[noreturn]] void fail(const std::string& where, const std::string& message) {
  throw CatalogError(where + ": " + message);
}

// Where a node sits, for error messages ("dependencies[0].a.$if"): links on the callers' stacks,
// spelled out only when an error is reported. Building that text for every node was a large part
// of an expansion's cost.
struct Where {
  enum class Link { kRoot, kKey, kSuffix, kIndex };
  const Where* parent = nullptr;
  Link link = Link::kRoot;
  std::string_view text;  // kRoot: the whole text; kKey: a map key; kSuffix: appended verbatim
  std::size_t index = 0;  // kIndex

  static Where root(std::string_view text) { return {nullptr, Link::kRoot, text}; }
  Where key(std::string_view k) const { return {this, Link::kKey, k}; }
  Where suffix(std::string_view s) const { return {this, Link::kSuffix, s}; }
  Where at(std::size_t i) const { return {this, Link::kIndex, {}, i}; }

  std::string str() const {
    switch (link) {
      case Link::kRoot:
        return std::string(text);
      case Link::kKey: {
        std::string head = parent->str();
        return head.empty() ? std::string(text) : head + "." + std::string(text);
      }
      case Link::kSuffix:
        return parent->str() + std::string(text);
      case Link::kIndex:
        return parent->str() + "[" + std::to_string(index) + "]";
    }
    return {};
  }
};

[[noreturn]] void fail(const Where& where, const std::string& message) {
  fail(where.str(), message);
}

bool truthy(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      return false;
    case json::kind::bool_:
      return value.get_bool();
    case json::kind::int64:
      return value.get_int64() != 0;
    case json::kind::uint64:
      return value.get_uint64() != 0;
    case json::kind::double_:
      return value.get_double() != 0;
    case json::kind::string:
      return !value.get_string().empty();
    case json::kind::array:
      return !value.get_array().empty();
    case json::kind::object:
      return !value.get_object().empty();
  }
  return false;
}

std::string scalar_text(const json::value& value) {
  if (value.is_string()) return std::string(value.get_string());
  if (value.is_null()) return "";
  return json::serialize(value);
}

class Expander {
 public:
  explicit Expander(const ExpandContext& ctx)
      : ctx_(ctx), texts_(ctx.data.templates, ctx.params), storage_(ctx.storage) {}

  json::value document(const json::value& doc) {
    Expanded out = node(doc, Where::root(""));
    if (out.kind != Expanded::Kind::kValue) fail("(root)", "entry must expand to one value");
    return std::move(out.value);
  }

 private:
  Expanded node(const json::value& in, const Where& where) {
    if (in.is_string()) return {Expanded::Kind::kValue, string_value(in.get_string(), where)};
    if (in.is_array()) return {Expanded::Kind::kValue, list(in.get_array(), where)};
    if (in.is_object()) return object(in.get_object(), where);
    return {Expanded::Kind::kValue, json::value(in, storage_)};
  }

  // A `{{` text rendered with the expansion's parameters; errors name where the text sits.
  std::string render(std::string_view text, const Where& where) {
    try {
      return texts_.render(text);
    } catch (const CatalogError& error) {
      fail(where, error.what());
    }
  }

  json::value string_value(json::string_view text, const Where& where) {
    if (text.find("{{") == json::string_view::npos) return json::value(text, storage_);
    if (const std::string* name = texts_.sole_placeholder(text)) {
      const json::value* param = ctx_.params.if_contains(*name);
      if (param == nullptr) fail(where, "unknown parameter \"" + *name + "\"");
      return json::value(*param, storage_);
    }
    return json::value(render(text, where), storage_);
  }

  json::array list(const json::array& in, const Where& where) {
    json::array out(storage_);
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      Expanded item = node(in[i], where.at(i));
      if (item.kind == Expanded::Kind::kValue) out.push_back(std::move(item.value));
      if (item.kind == Expanded::Kind::kSplice) {
        for (auto& spliced : item.value.as_array()) out.push_back(std::move(spliced));
      }
    }
    return out;
  }

  // Most maps are plain Kubernetes structure: one scan for a `$` key spares them the directive
  // lookups.
  static bool has_directive(const json::object& in) {
    return std::any_of(in.begin(), in.end(),
                       [](const json::key_value_pair& kv) { return kv.key().starts_with('$'); });
  }

  Expanded object(const json::object& in, const Where& where) {
    if (has_directive(in)) return directive_object(in, where);
    return map(in, where, json::object(storage_));
  }

  Expanded directive_object(const json::object& in, const Where& where) {
    if (in.contains("$if")) return conditional(in, where);
    if (const json::value* s = in.if_contains("$str")) {
      only_keys(in, {"$str"}, where);
      return {Expanded::Kind::kValue,
              json::value(scalar_text(node(*s, where.suffix(".$str")).value), storage_)};
    }
    if (const json::value* env = in.if_contains("$mpiEnvArgs")) {
      only_keys(in, {"$mpiEnvArgs"}, where);
      return {Expanded::Kind::kSplice,
              mpi_env_args(node(*env, where.suffix(".$mpiEnvArgs")).value, where)};
    }
    if (in.contains("$repeat")) return repeat(in, where);
    if (const json::value* file = in.if_contains("$file")) {
      only_keys(in, {"$file"}, where);
      // `_lib/...` names a shared file; anything else lives in the entry's own folder.
      const std::string name = scalar_text(*file);
      const std::string path = name.starts_with("_lib/") ? name : ctx_.entry_dir + name;
      auto found = ctx_.data.files.find(path);
      if (found == ctx_.data.files.end()) fail(where, "$file " + path + ": not found");
      return {Expanded::Kind::kValue,
              json::value(render(found->second, Where::root(path)), storage_)};
    }
    json::object out(storage_);
    if (const json::value* include = in.if_contains("$include")) {
      const std::string path = "_lib/" + scalar_text(*include);
      auto found = ctx_.data.lib.find(path);
      if (found == ctx_.data.lib.end()) fail(where, "$include " + path + ": not found");
      if (++depth_ > 16) fail(where, "$include nested too deeply");
      Expanded fragment = node(found->second, Where::root(path));
      --depth_;
      if (fragment.kind == Expanded::Kind::kAbsent) {  // a conditional fragment that chose nothing
        only_keys(in, {"$include"}, where);
        return {};
      }
      if (fragment.value.is_array()) {
        only_keys(in, {"$include"}, where);
        return {Expanded::Kind::kSplice, std::move(fragment.value)};
      }
      if (!fragment.value.is_object())
        fail(where, "$include " + path + ": fragment must be a list or a map");
      out = std::move(fragment.value.get_object());
    }
    return map(in, where, std::move(out));
  }

  // The keys of `in` expanded into `out` (empty, or a map fragment the keys override).
  Expanded map(const json::object& in, const Where& where, json::object out) {
    out.reserve(out.size() + in.size());
    for (const auto& [key, value] : in) {
      if (key == "$include") continue;
      if (key.starts_with("$")) fail(where, "unknown directive \"" + std::string(key) + "\"");
      const Where child_where = where.key(key);
      Expanded child = node(value, child_where);
      if (child.kind == Expanded::Kind::kAbsent) continue;
      // A key may be rendered too (a resource named by a parameter); an empty key is dropped.
      if (key.find("{{") == json::string_view::npos) {
        if (!key.empty()) out.insert_or_assign(key, std::move(child.value));
        continue;
      }
      const std::string name = render(key, child_where);
      if (!name.empty()) out.insert_or_assign(name, std::move(child.value));
    }
    return {Expanded::Kind::kValue, json::value(std::move(out))};
  }

  void only_keys(const json::object& in, std::initializer_list<std::string_view> allowed,
                 const Where& where) {
    for (const auto& [key, value] : in) {
      if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end()) {
        fail(where, "unexpected key \"" + std::string(key) + "\" next to " +
                        std::string(*allowed.begin()));
      }
    }
  }

  Expanded conditional(const json::object& in, const Where& where) {
    only_keys(in, {"$if", "$then", "$else"}, where);
    const bool taken = condition(in.at("$if"), where.suffix(".$if"));
    const json::value* chosen = in.if_contains(taken ? "$then" : "$else");
    if (chosen == nullptr) return {};
    Expanded out = node(*chosen, where.suffix(taken ? ".$then" : ".$else"));
    if (out.kind == Expanded::Kind::kValue && out.value.is_array() && chosen->is_array()) {
      out.kind = Expanded::Kind::kSplice;  // a list branch splices into an enclosing list
    }
    return out;
  }

  bool condition(const json::value& cond, const Where& where) {
    if (!cond.is_object()) fail(where, "condition must be a map");
    const json::object& c = cond.get_object();
    if (const json::value* inner = c.if_contains("not"))
      return !condition(*inner, where.suffix(".not"));
    if (const json::value* all = c.if_contains("all")) {
      for (const auto& item : all->as_array())
        if (!condition(item, where.suffix(".all"))) return false;
      return true;
    }
    if (const json::value* any = c.if_contains("any")) {
      for (const auto& item : any->as_array())
        if (condition(item, where.suffix(".any"))) return true;
      return false;
    }
    const json::value* name = c.if_contains("param");
    if (name == nullptr || !name->is_string())
      fail(where, "condition needs param, not, all or any");
    const json::value* value = ctx_.params.if_contains(name->get_string());
    if (value == nullptr)
      fail(where, "unknown parameter \"" + std::string(name->get_string()) + "\"");
    for (const auto& [key, operand] : c) {
      if (key != "param" && key != "equals" && key != "in" && key != "gt") {
        fail(where, "unknown condition operator \"" + std::string(key) + "\"");
      }
    }
    if (const json::value* equals = c.if_contains("equals"))
      return scalar_text(*value) == scalar_text(*equals);
    if (const json::value* in = c.if_contains("in")) {
      for (const auto& option : in->as_array())
        if (scalar_text(*value) == scalar_text(option)) return true;
      return false;
    }
    if (const json::value* gt = c.if_contains("gt")) {
      if (!value->is_number() || !gt->is_number()) fail(where, "gt needs numbers");
      return value->to_number<double>() > gt->to_number<double>();
    }
    return truthy(*value);
  }

  json::value mpi_env_args(const json::value& env, const Where& where) {
    if (!env.is_array()) fail(where, "$mpiEnvArgs needs a list of {name, value}");
    json::array out(storage_);
    out.reserve(2 * env.get_array().size());
    for (const auto& item : env.get_array()) {
      const json::object* var = item.if_object();
      if (var == nullptr || !var->contains("name")) fail(where, "$mpiEnvArgs item without name");
      std::string operand = scalar_text(var->at("name"));
      if (const json::value* value = var->if_contains("value"))
        operand += "=" + scalar_text(*value);
      out.emplace_back("-x");
      out.emplace_back(operand);
    }
    return out;
  }

  Expanded repeat(const json::object& in, const Where& where) {
    only_keys(in, {"$repeat", "$count", "$separator"}, where);
    const std::string text = scalar_text(node(in.at("$repeat"), where).value);
    const json::value count =
        in.contains("$count") ? node(in.at("$count"), where).value : json::value(0);
    const std::string separator = in.contains("$separator") ? scalar_text(in.at("$separator")) : "";
    if (!count.is_int64()) fail(where, "$count must be an integer");
    std::string out;
    for (std::int64_t i = 0; i < count.get_int64(); ++i) out += (i == 0 ? "" : separator) + text;
    return {Expanded::Kind::kValue, json::value(out, storage_)};
  }

  const ExpandContext& ctx_;
  TemplateRenderer texts_;
  json::storage_ptr storage_;
  int depth_ = 0;
};

}  // namespace

void add_templates(CatalogData& data) {
  for (const auto& [path, document] : data.lib) data.templates.add_strings_of(document);
  for (const auto& [path, text] : data.files) {
    if (!path.ends_with(".yaml")) data.templates.add(text);
  }
}

boost::json::value expand_document(const boost::json::value& document, const ExpandContext& ctx) {
  return Expander(ctx).document(document);
}

}  // namespace nvcre::catalog::detail
