#include "sim/selectors.hpp"

#include "jsonkit/paths.hpp"

#include "k8s/label_selector.hpp"

#include <boost/json.hpp>

#include <memory>
#include <optional>
#include <stdexcept>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

struct FieldRequirement {
  std::string path;
  std::string value;
  bool negate = false;
};

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::vector<FieldRequirement> parse_fields(const std::string& text) {
  std::vector<FieldRequirement> out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', start);
    std::string term =
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!term.empty()) {
      FieldRequirement req;
      std::size_t op = term.find("!=");
      std::size_t len = 2;
      if (op != std::string::npos) {
        req.negate = true;
      } else if ((op = term.find("==")) == std::string::npos) {
        op = term.find('=');
        len = 1;
      }
      if (op == std::string::npos)
        throw bad_request("invalid selector: '" + text + "'; can't understand '" + term + "'");
      req.path = trim(term.substr(0, op));
      req.value = trim(term.substr(op + len));
      out.push_back(std::move(req));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::optional<std::string> field_value(const json::value& object, const std::string& path) {
  const json::value* cur = &object;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object()) return std::nullopt;
    cur = cur->as_object().if_contains(key);
    if (!cur) return std::string();
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (cur->is_string()) return std::string(cur->as_string());
  if (cur->is_null()) return std::string();
  if (cur->is_object() || cur->is_array()) return std::nullopt;
  return json::serialize(*cur);
}

k8s::Labels labels_of(const json::value& object) {
  k8s::Labels labels;
  const auto* l = jsonkit::value_at(object, {"metadata", "labels"});
  if (!l || !l->is_object()) return labels;
  for (const auto& [k, v] : l->as_object())
    if (v.is_string()) labels.emplace(std::string(k), std::string(v.as_string()));
  return labels;
}

}  // namespace

Filter make_filter(const std::string& label_selector, const std::string& field_selector) {
  if (label_selector.empty() && field_selector.empty()) return {};
  std::shared_ptr<k8s::LabelSelector> labels;
  if (!label_selector.empty()) {
    try {
      labels = std::make_shared<k8s::LabelSelector>(k8s::LabelSelector::parse(label_selector));
    } catch (const std::invalid_argument& e) {
      throw bad_request(std::string("unable to parse requirement: ") + e.what());
    }
  }
  auto fields = std::make_shared<std::vector<FieldRequirement>>(parse_fields(field_selector));
  return [labels, fields](const json::value& object) {
    if (labels && !labels->matches(labels_of(object))) return false;
    for (const auto& req : *fields) {
      auto value = field_value(object, req.path);
      if (!value) return false;
      if ((*value == req.value) == req.negate) return false;
    }
    return true;
  };
}

}  // namespace nvcre::sim
