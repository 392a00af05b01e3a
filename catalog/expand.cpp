#include "catalog/expand.hpp"

#include "catalog/catalog.hpp"

#include <kainjow/mustache.hpp>

#include <boost/json.hpp>

#include <optional>
#include <regex>

namespace nvcre::catalog::detail {
namespace {

namespace json = boost::json;
namespace mstch = kainjow::mustache;

// Result of expanding one node: absent (dropped), a value, or a list to splice into a parent list.
struct Expanded {
  enum class Kind { kAbsent, kValue, kSplice } kind = Kind::kAbsent;
  json::value value;
};

[[noreturn]] void fail(const std::string& where, const std::string& message) {
  throw CatalogError(where + ": " + message);
}

mstch::data to_mustache(const json::value& value) {
  switch (value.kind()) {
    case json::kind::string: return mstch::data(std::string(value.get_string()));
    case json::kind::bool_: return mstch::data(value.get_bool());
    case json::kind::int64: return mstch::data(std::to_string(value.get_int64()));
    case json::kind::uint64: return mstch::data(std::to_string(value.get_uint64()));
    case json::kind::double_: return mstch::data(json::serialize(value));
    case json::kind::null: return mstch::data(mstch::data::type::bool_false);
    case json::kind::array: {
      mstch::list list;
      for (const auto& item : value.get_array()) list.push_back(to_mustache(item));
      return mstch::data(list);
    }
    case json::kind::object: {
      mstch::object object;
      for (const auto& [key, item] : value.get_object()) object[std::string(key)] = to_mustache(item);
      return mstch::data(object);
    }
  }
  return mstch::data();
}

// `{{ name }}` tags (not sections, comments or partials) must name known parameters.
void check_placeholders(std::string_view text, const json::object& params, const std::string& where) {
  static const std::regex tag(R"(\{\{\{?\s*([&#^/!>]?)\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}?\}\})");
  const std::string subject(text);
  for (auto it = std::sregex_iterator(subject.begin(), subject.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string sigil = (*it)[1];
    const std::string name = (*it)[2];
    if (sigil == "!" || sigil == ">" || sigil == "/" || name == ".") continue;
    const std::string head = name.substr(0, name.find('.'));
    if (!params.contains(head) && sigil != "&") fail(where, "unknown parameter \"" + head + "\"");
  }
}

// Exactly one placeholder and nothing else: the name, else nullopt.
std::optional<std::string> sole_placeholder(std::string_view text) {
  static const std::regex whole(R"(^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$)");
  std::match_results<std::string_view::const_iterator> match;
  if (std::regex_match(text.begin(), text.end(), match, whole)) return match[1].str();
  return std::nullopt;
}

bool truthy(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return false;
    case json::kind::bool_: return value.get_bool();
    case json::kind::int64: return value.get_int64() != 0;
    case json::kind::uint64: return value.get_uint64() != 0;
    case json::kind::double_: return value.get_double() != 0;
    case json::kind::string: return !value.get_string().empty();
    case json::kind::array: return !value.get_array().empty();
    case json::kind::object: return !value.get_object().empty();
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
  explicit Expander(const ExpandContext& ctx) : ctx_(ctx) {}

  json::value document(const json::value& doc) {
    Expanded out = node(doc, "");
    if (out.kind != Expanded::Kind::kValue) fail("(root)", "entry must expand to one value");
    return std::move(out.value);
  }

 private:
  Expanded node(const json::value& in, const std::string& where) {
    if (in.is_string()) return {Expanded::Kind::kValue, string_value(in.get_string(), where)};
    if (in.is_array()) return {Expanded::Kind::kValue, list(in.get_array(), where)};
    if (in.is_object()) return object(in.get_object(), where);
    return {Expanded::Kind::kValue, in};
  }

  json::value string_value(json::string_view text, const std::string& where) {
    if (text.find("{{") == json::string_view::npos) return json::value(text);
    if (auto name = sole_placeholder(text)) {
      const json::value* param = ctx_.params.if_contains(*name);
      if (param == nullptr) fail(where, "unknown parameter \"" + *name + "\"");
      return *param;
    }
    return json::value(render_string(text, ctx_.params, where));
  }

  json::array list(const json::array& in, const std::string& where) {
    json::array out;
    for (std::size_t i = 0; i < in.size(); ++i) {
      Expanded item = node(in[i], where + "[" + std::to_string(i) + "]");
      if (item.kind == Expanded::Kind::kValue) out.push_back(std::move(item.value));
      if (item.kind == Expanded::Kind::kSplice) {
        for (auto& spliced : item.value.as_array()) out.push_back(std::move(spliced));
      }
    }
    return out;
  }

  Expanded object(const json::object& in, const std::string& where) {
    if (in.contains("$if")) return conditional(in, where);
    if (const json::value* s = in.if_contains("$str")) {
      only_keys(in, {"$str"}, where);
      return {Expanded::Kind::kValue, json::value(scalar_text(node(*s, where + ".$str").value))};
    }
    if (const json::value* env = in.if_contains("$mpiEnvArgs")) {
      only_keys(in, {"$mpiEnvArgs"}, where);
      return {Expanded::Kind::kSplice, mpi_env_args(node(*env, where + ".$mpiEnvArgs").value, where)};
    }
    if (in.contains("$repeat")) return repeat(in, where);
    if (const json::value* file = in.if_contains("$file")) {
      only_keys(in, {"$file"}, where);
      // `_lib/...` names a shared file; anything else lives in the entry's own folder.
      const std::string name = scalar_text(*file);
      const std::string path = name.starts_with("_lib/") ? name : ctx_.entry_dir + name;
      auto found = ctx_.data.files.find(path);
      if (found == ctx_.data.files.end()) fail(where, "$file " + path + ": not found");
      return {Expanded::Kind::kValue, json::value(render_string(found->second, ctx_.params, path))};
    }
    json::object out;
    if (const json::value* include = in.if_contains("$include")) {
      const std::string path = "_lib/" + scalar_text(*include);
      auto found = ctx_.data.lib.find(path);
      if (found == ctx_.data.lib.end()) fail(where, "$include " + path + ": not found");
      if (++depth_ > 16) fail(where, "$include nested too deeply");
      Expanded fragment = node(found->second, path);
      --depth_;
      if (fragment.kind == Expanded::Kind::kAbsent) {  // a conditional fragment that chose nothing
        only_keys(in, {"$include"}, where);
        return {};
      }
      if (fragment.value.is_array()) {
        only_keys(in, {"$include"}, where);
        return {Expanded::Kind::kSplice, std::move(fragment.value)};
      }
      if (!fragment.value.is_object()) fail(where, "$include " + path + ": fragment must be a list or a map");
      out = std::move(fragment.value.get_object());
    }
    for (const auto& [key, value] : in) {
      if (key == "$include") continue;
      if (key.starts_with("$")) fail(where, "unknown directive \"" + std::string(key) + "\"");
      const std::string child_where = where.empty() ? std::string(key) : where + "." + std::string(key);
      Expanded child = node(value, child_where);
      if (child.kind == Expanded::Kind::kAbsent) continue;
      // A key may be rendered too (a resource named by a parameter); an empty key is dropped.
      const std::string name = key.find("{{") == json::string_view::npos
                                   ? std::string(key)
                                   : render_string(key, ctx_.params, child_where);
      if (name.empty()) continue;
      out[name] = std::move(child.value);
    }
    return {Expanded::Kind::kValue, json::value(std::move(out))};
  }

  void only_keys(const json::object& in, std::initializer_list<std::string_view> allowed, const std::string& where) {
    for (const auto& [key, value] : in) {
      if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end()) {
        fail(where, "unexpected key \"" + std::string(key) + "\" next to " + std::string(*allowed.begin()));
      }
    }
  }

  Expanded conditional(const json::object& in, const std::string& where) {
    only_keys(in, {"$if", "$then", "$else"}, where);
    const char* branch = condition(in.at("$if"), where + ".$if") ? "$then" : "$else";
    const json::value* chosen = in.if_contains(branch);
    if (chosen == nullptr) return {};
    Expanded out = node(*chosen, where + "." + branch);
    if (out.kind == Expanded::Kind::kValue && out.value.is_array() && chosen->is_array()) {
      out.kind = Expanded::Kind::kSplice;  // a list branch splices into an enclosing list
    }
    return out;
  }

  bool condition(const json::value& cond, const std::string& where) {
    if (!cond.is_object()) fail(where, "condition must be a map");
    const json::object& c = cond.get_object();
    if (const json::value* inner = c.if_contains("not")) return !condition(*inner, where + ".not");
    if (const json::value* all = c.if_contains("all")) {
      for (const auto& item : all->as_array()) if (!condition(item, where + ".all")) return false;
      return true;
    }
    if (const json::value* any = c.if_contains("any")) {
      for (const auto& item : any->as_array()) if (condition(item, where + ".any")) return true;
      return false;
    }
    const json::value* name = c.if_contains("param");
    if (name == nullptr || !name->is_string()) fail(where, "condition needs param, not, all or any");
    const json::value* value = ctx_.params.if_contains(name->get_string());
    if (value == nullptr) fail(where, "unknown parameter \"" + std::string(name->get_string()) + "\"");
    for (const auto& [key, operand] : c) {
      if (key != "param" && key != "equals" && key != "in" && key != "gt") {
        fail(where, "unknown condition operator \"" + std::string(key) + "\"");
      }
    }
    if (const json::value* equals = c.if_contains("equals")) return scalar_text(*value) == scalar_text(*equals);
    if (const json::value* in = c.if_contains("in")) {
      for (const auto& option : in->as_array()) if (scalar_text(*value) == scalar_text(option)) return true;
      return false;
    }
    if (const json::value* gt = c.if_contains("gt")) {
      if (!value->is_number() || !gt->is_number()) fail(where, "gt needs numbers");
      return value->to_number<double>() > gt->to_number<double>();
    }
    return truthy(*value);
  }

  json::value mpi_env_args(const json::value& env, const std::string& where) {
    if (!env.is_array()) fail(where, "$mpiEnvArgs needs a list of {name, value}");
    json::array out;
    for (const auto& item : env.get_array()) {
      const json::object* var = item.if_object();
      if (var == nullptr || !var->contains("name")) fail(where, "$mpiEnvArgs item without name");
      std::string operand = scalar_text(var->at("name"));
      if (const json::value* value = var->if_contains("value")) operand += "=" + scalar_text(*value);
      out.emplace_back("-x");
      out.emplace_back(operand);
    }
    return out;
  }

  Expanded repeat(const json::object& in, const std::string& where) {
    only_keys(in, {"$repeat", "$count", "$separator"}, where);
    const std::string text = scalar_text(node(in.at("$repeat"), where).value);
    const json::value count = in.contains("$count") ? node(in.at("$count"), where).value : json::value(0);
    const std::string separator = in.contains("$separator") ? scalar_text(in.at("$separator")) : "";
    if (!count.is_int64()) fail(where, "$count must be an integer");
    std::string out;
    for (std::int64_t i = 0; i < count.get_int64(); ++i) out += (i == 0 ? "" : separator) + text;
    return {Expanded::Kind::kValue, json::value(out)};
  }

  const ExpandContext& ctx_;
  int depth_ = 0;
};

}  // namespace

std::string render_string(std::string_view text, const boost::json::object& params, std::string_view where) {
  const std::string location(where);
  check_placeholders(text, params, location);
  mstch::mustache tmpl{std::string(text)};
  if (!tmpl.is_valid()) fail(location, "template: " + tmpl.error_message());
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  mstch::data data = to_mustache(json::value(params));
  std::string out = tmpl.render(data);
  if (!tmpl.is_valid()) fail(location, "template: " + tmpl.error_message());
  return out;
}

boost::json::value expand_document(const boost::json::value& document, const ExpandContext& ctx) {
  return Expander(ctx).document(document);
}

}  // namespace nvcre::catalog::detail
