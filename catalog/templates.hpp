#pragma once
// The mustache texts of a catalog (string scalars, map keys and `$file` texts holding `{{`), parsed
// once when the catalog loads rather than on every render, and rendered against the parameters of
// one expansion converted to mustache data once (not once per string).
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace nvcre::catalog::detail {

struct ParsedText;  // templates.cpp: placeholder names and the parsed mustache template

class TextTemplates {
 public:
  // Parses `text` unless it is known. Never throws: a malformed template is kept and reported
  // where it is rendered, as an unparsed one would be (it may sit in a branch no render takes).
  void add(std::string_view text);
  // add() for every string scalar and map key holding `{{` in a parsed document.
  void add_strings_of(const boost::json::value& document);
  const ParsedText* find(std::string_view text) const;  // nullptr when never added

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };
  std::unordered_map<std::string, std::shared_ptr<const ParsedText>, Hash, std::equal_to<>> parsed_;
};

// Renders texts for one expansion (one parameter set). Errors are CatalogErrors without a location
// ("unknown parameter \"x\"", "template: ..."); the caller prefixes where the text sits.
class TemplateRenderer {
 public:
  TemplateRenderer(const TextTemplates& templates, const boost::json::object& params);
  ~TemplateRenderer();
  TemplateRenderer(const TemplateRenderer&) = delete;
  TemplateRenderer& operator=(const TemplateRenderer&) = delete;

  // The parameter name when `text` is exactly one placeholder (`{{ name }}`), else nullptr.
  const std::string* sole_placeholder(std::string_view text);
  std::string render(std::string_view text);

 private:
  struct Data;  // the parameters as mustache data, built on first render
  const ParsedText& parsed(std::string_view text);

  const TextTemplates& templates_;
  const boost::json::object& params_;
  std::unique_ptr<Data> data_;
  std::deque<std::shared_ptr<const ParsedText>> unlisted_;  // texts parsed here (not in templates_)
};

}  // namespace nvcre::catalog::detail
