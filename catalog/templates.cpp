#include "catalog/templates.hpp"

#include "catalog/catalog.hpp"

#include <kainjow/mustache.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <regex>
#include <vector>

namespace nvcre::catalog::detail {

namespace json = boost::json;
namespace mstch = kainjow::mustache;

struct ParsedText {
  explicit ParsedText(std::string_view text);

  std::optional<std::string> sole;  // the text is exactly this one placeholder
  // Parameters named by `{{ name }}` tags (not sections, comments, partials or `{{& }}`), in text
  // order: each must exist when the text is rendered.
  std::vector<std::string> required;
  // Parameters any tag may look up (sections and `{{& }}` too): the mustache data a render needs.
  std::vector<std::string> referenced;
  // Every `{{` opens a tag the pattern above recognised; otherwise (partials, `{{=` delimiter
  // changes, `{{{`, names outside the pattern) a render gets every parameter, as it always did.
  bool all_tags_known = true;
  // A partial (`{{> name}}`) renders a parameter as a template and may record an error in the
  // template object; such texts are parsed again per render instead of sharing one object.
  bool has_partial = false;
  std::string source;  // kept only when has_partial
  // Rendering reads the parsed tree only (no partials, and our data has no lambdas), so renders on
  // several threads may share it; `mutable` because kainjow's render() is not declared const.
  mutable mstch::mustache tmpl;
};

namespace {

mstch::data to_mustache(const json::value& value);

mstch::object to_mustache_object(const json::object& object) {
  mstch::object out;
  for (const auto& [key, item] : object) out[std::string(key)] = to_mustache(item);
  return out;
}

mstch::data to_mustache(const json::value& value) {
  switch (value.kind()) {
    case json::kind::string:
      return mstch::data(std::string(value.get_string()));
    case json::kind::bool_:
      return mstch::data(value.get_bool());
    case json::kind::int64:
      return mstch::data(std::to_string(value.get_int64()));
    case json::kind::uint64:
      return mstch::data(std::to_string(value.get_uint64()));
    case json::kind::double_:
      return mstch::data(json::serialize(value));
    case json::kind::null:
      return mstch::data(mstch::data::type::bool_false);
    case json::kind::array: {
      mstch::list list;
      for (const auto& item : value.get_array()) list.push_back(to_mustache(item));
      return mstch::data(list);
    }
    case json::kind::object:
      return mstch::data(to_mustache_object(value.get_object()));
  }
  return mstch::data();
}

std::optional<std::string> sole_placeholder_of(std::string_view text) {
  static const std::regex whole(R"(^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$)");
  std::match_results<std::string_view::const_iterator> match;
  if (std::regex_match(text.begin(), text.end(), match, whole)) return match[1].str();
  return std::nullopt;
}

}  // namespace

ParsedText::ParsedText(std::string_view text)
    : sole(sole_placeholder_of(text)), tmpl(std::string(text)) {
  static const std::regex tag(R"(\{\{\{?\s*([&#^/!>]?)\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}?\}\})");
  const std::string subject(text);
  std::size_t tags = 0;
  for (auto it = std::sregex_iterator(subject.begin(), subject.end(), tag);
       it != std::sregex_iterator(); ++it) {
    ++tags;
    const std::string sigil = (*it)[1];
    const std::string name = (*it)[2];
    if (sigil == ">") has_partial = true;
    if (sigil == "!" || sigil == ">" || sigil == "/" || name == ".") continue;
    const std::string head = name.substr(0, name.find('.'));
    referenced.push_back(head);
    if (sigil != "&") required.push_back(head);
  }
  std::size_t openers = 0;
  for (auto at = subject.find("{{"); at != std::string::npos; at = subject.find("{{", at + 1))
    ++openers;
  all_tags_known = openers == tags && !has_partial;
  if (has_partial) source = subject;
  tmpl.set_custom_escape([](const std::string& s) { return s; });  // YAML values, not HTML
}

void TextTemplates::add(std::string_view text) {
  if (parsed_.find(text) != parsed_.end()) return;
  parsed_.emplace(std::string(text), std::make_shared<const ParsedText>(text));
}

void TextTemplates::add_strings_of(const json::value& document) {
  if (const json::string* text = document.if_string()) {
    if (text->find("{{") != json::string::npos) add(*text);
  } else if (const json::array* list = document.if_array()) {
    for (const auto& item : *list) add_strings_of(item);
  } else if (const json::object* map = document.if_object()) {
    for (const auto& [key, item] : *map) {
      if (key.find("{{") != json::string_view::npos) add(key);
      add_strings_of(item);
    }
  }
}

const ParsedText* TextTemplates::find(std::string_view text) const {
  auto it = parsed_.find(text);
  return it == parsed_.end() ? nullptr : it->second.get();
}

// Only the parameters the rendered texts look up are converted (all of them for a text with tags
// outside the placeholder pattern): converting every parameter for every render cost more than
// most renders.
struct TemplateRenderer::Data {
  mstch::data value{mstch::data::type::object};
  std::vector<std::string_view> converted;  // names already looked up in the parameters
  bool complete = false;                    // every parameter converted

  void add(std::string_view name, const json::object& params) {
    if (complete || std::find(converted.begin(), converted.end(), name) != converted.end()) return;
    converted.push_back(name);
    if (const json::value* param = params.if_contains(name))
      value.set(std::string(name), to_mustache(*param));
  }
  void add_all(const json::object& params) {
    if (complete) return;
    value = mstch::data(to_mustache_object(params));
    complete = true;
  }
};

TemplateRenderer::TemplateRenderer(const TextTemplates& templates, const json::object& params)
    : templates_(templates), params_(params) {}

TemplateRenderer::~TemplateRenderer() = default;

const ParsedText& TemplateRenderer::parsed(std::string_view text) {
  if (const ParsedText* known = templates_.find(text)) return *known;
  unlisted_.push_back(std::make_shared<const ParsedText>(text));
  return *unlisted_.back();
}

const std::string* TemplateRenderer::sole_placeholder(std::string_view text) {
  const ParsedText& text_info = parsed(text);
  return text_info.sole ? &*text_info.sole : nullptr;
}

std::string TemplateRenderer::render(std::string_view text) {
  const ParsedText& parsed_text = parsed(text);
  for (const auto& name : parsed_text.required) {
    if (!params_.contains(name)) throw CatalogError("unknown parameter \"" + name + "\"");
  }
  std::optional<mstch::mustache> own;  // a template with partials: a fresh parse per render
  if (parsed_text.has_partial) {
    own.emplace(parsed_text.source);
    own->set_custom_escape([](const std::string& s) { return s; });
  }
  mstch::mustache& tmpl = own ? *own : parsed_text.tmpl;
  if (!tmpl.is_valid()) throw CatalogError("template: " + tmpl.error_message());
  if (!data_) data_ = std::make_unique<Data>();
  if (parsed_text.all_tags_known) {
    for (const auto& name : parsed_text.referenced) data_->add(name, params_);
  } else {
    data_->add_all(params_);
  }
  std::string out;
  tmpl.render(data_->value, [&out](const std::string& piece) { out += piece; });
  if (!tmpl.is_valid()) throw CatalogError("template: " + tmpl.error_message());
  return out;
}

}  // namespace nvcre::catalog::detail
