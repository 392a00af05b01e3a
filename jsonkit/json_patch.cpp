#include "jsonkit/json_patch.hpp"

#include "jsonkit/merge_patch.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace nvcre::jsonkit {

namespace json = boost::json;

namespace {

// Failure of one operation; apply_json_patch prefixes it with the op index, name and path.
struct OpFailure {
  std::string message;
};

std::string pointer_of(const std::vector<std::string>& tokens, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    out += '/';
    for (char c : tokens[i])
      out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  }
  return out;
}

// RFC 6901 §4: an array index is "0" or digits without a leading zero.
std::optional<std::size_t> array_index(const std::string& token) {
  if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0'))
    return std::nullopt;
  if (!std::all_of(token.begin(), token.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(std::stoull(token));
}

std::string short_json(const json::value& value) {
  std::string text = json::serialize(value);
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

std::string quoted_location(const std::vector<std::string>& tokens, std::size_t count) {
  return count == 0 ? std::string("the document root") : "\"" + pointer_of(tokens, count) + "\"";
}

// The value at tokens[0, count); throws OpFailure `"<pointer>" does not exist (<why>)`, which
// callers prefix with "path ", "from " or "parent ".
json::value& locate(json::value& document, const std::vector<std::string>& tokens,
                    std::size_t count) {
  json::value* current = &document;
  const std::string where = "\"" + pointer_of(tokens, count) + "\" does not exist (";
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& token = tokens[i];
    if (current->is_object()) {
      current = current->get_object().if_contains(token);
      if (current == nullptr)
        throw OpFailure{where + "no member \"" + token + "\" in " + quoted_location(tokens, i) +
                        ")"};
    } else if (current->is_array()) {
      auto& array = current->get_array();
      const auto index = array_index(token);
      if (!index)
        throw OpFailure{where + "\"" + token + "\" is not an index of the array " +
                        quoted_location(tokens, i) + ")"};
      if (*index >= array.size()) {
        throw OpFailure{where + "index " + token + " is out of range, the array " +
                        quoted_location(tokens, i) + " has " + std::to_string(array.size()) +
                        " items)"};
      }
      current = &array[*index];
    } else {
      throw OpFailure{where + quoted_location(tokens, i) + " is " + short_json(*current) +
                      ", not an object or array)"};
    }
  }
  return *current;
}

json::value& locate_as(std::string_view role, json::value& document,
                       const std::vector<std::string>& tokens) {
  try {
    return locate(document, tokens, tokens.size());
  } catch (const OpFailure& failure) {
    throw OpFailure{std::string(role) + " " + failure.message};
  }
}

void add(json::value& document, const std::vector<std::string>& tokens, json::value value) {
  if (tokens.empty()) {
    document = std::move(value);
    return;
  }
  json::value* parent = nullptr;
  try {
    parent = &locate(document, tokens, tokens.size() - 1);
  } catch (const OpFailure& failure) {
    throw OpFailure{"parent " + failure.message};
  }
  const std::string& last = tokens.back();
  if (parent->is_object()) {
    parent->get_object()[last] = std::move(value);
  } else if (parent->is_array()) {
    auto& array = parent->get_array();
    if (last == "-") {
      array.push_back(std::move(value));
      return;
    }
    const auto index = array_index(last);
    if (!index) throw OpFailure{"\"" + last + "\" is not an array index or \"-\""};
    if (*index > array.size()) {
      throw OpFailure{"index " + last + " is out of range for add (array size " +
                      std::to_string(array.size()) + ")"};
    }
    array.insert(array.begin() + static_cast<std::ptrdiff_t>(*index), std::move(value));
  } else {
    throw OpFailure{"parent " + quoted_location(tokens, tokens.size() - 1) + " is " +
                    short_json(*parent) + ", not an object or array"};
  }
}

json::value remove(std::string_view role, json::value& document,
                   const std::vector<std::string>& tokens) {
  if (tokens.empty()) throw OpFailure{"cannot remove the whole document"};
  json::value removed = locate_as(role, document, tokens);  // throws when missing
  json::value& parent = locate(document, tokens, tokens.size() - 1);
  const std::string& last = tokens.back();
  if (parent.is_object()) {
    parent.get_object().stable_erase(last);  // stable: keep the order of the other members
  } else {
    auto& array = parent.get_array();
    array.erase(array.begin() + static_cast<std::ptrdiff_t>(*array_index(last)));
  }
  return removed;
}

const json::value& member(const json::object& op, std::string_view name, bool need_string) {
  const json::value* value = op.if_contains(name);
  if (value == nullptr) throw OpFailure{"missing \"" + std::string(name) + "\" member"};
  if (need_string && !value->is_string())
    throw OpFailure{"\"" + std::string(name) + "\" must be a string"};
  return *value;
}

std::vector<std::string> pointer_member(const json::object& op, std::string_view name) {
  try {
    return parse_json_pointer(member(op, name, true).get_string());
  } catch (const std::invalid_argument& error) {
    throw OpFailure{std::string(name) + ": " + error.what()};
  }
}

// What the copies of one patch have added so far, against JsonPatchLimits::max_copy_bytes.
struct CopyBudget {
  std::size_t used = 0;
  std::size_t limit = 0;
};

void apply_op(json::value& document, const json::object& op, const std::string& name,
              CopyBudget& copies) {
  const auto path = pointer_member(op, "path");
  if (name == "add") {
    add(document, path, member(op, "value", false));
  } else if (name == "remove") {
    remove("path", document, path);
  } else if (name == "replace") {
    const json::value& value = member(op, "value", false);
    locate_as("path", document, path) = value;
  } else if (name == "move") {
    const auto from = pointer_member(op, "from");
    locate_as("from", document, from);  // must exist even when it equals "path"
    if (from == path) return;
    if (path.size() > from.size() && std::equal(from.begin(), from.end(), path.begin())) {
      throw OpFailure{"cannot move \"" + pointer_of(from, from.size()) + "\" into its own child"};
    }
    add(document, path, remove("from", document, from));
  } else if (name == "copy") {
    const auto from = pointer_member(op, "from");
    json::value copy = locate_as("from", document, from);
    copies.used += json::serialize(copy).size();
    if (copies.used > copies.limit) {
      throw JsonPatchTooLarge(
          "the copies of this patch add more than " + std::to_string(copies.limit) +
          " bytes to the object; send the values themselves with add operations instead");
    }
    add(document, path, std::move(copy));
  } else if (name == "test") {
    const json::value& expected = member(op, "value", false);
    const json::value& actual = locate_as("path", document, path);
    if (!json_equal(actual, expected)) {
      throw OpFailure{"test failed: value is " + short_json(actual) + ", expected " +
                      short_json(expected)};
    }
  } else {
    throw OpFailure{"unknown operation; supported: add, remove, replace, move, copy, test"};
  }
}

}  // namespace

std::vector<std::string> parse_json_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer.front() != '/')
    throw std::invalid_argument("JSON pointer \"" + std::string(pointer) +
                                "\" must start with \"/\"");
  std::string token;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
    } else if (pointer[i] == '~') {
      const char next = i + 1 < pointer.size() ? pointer[i + 1] : '\0';
      if (next != '0' && next != '1') {
        throw std::invalid_argument("JSON pointer \"" + std::string(pointer) +
                                    "\" has an invalid escape at offset " + std::to_string(i) +
                                    " (only ~0 and ~1)");
      }
      token += next == '0' ? '~' : '/';
      ++i;
    } else {
      token += pointer[i];
    }
  }
  return tokens;
}

json::value apply_json_patch(const json::value& document, const json::value& patch,
                             const JsonPatchLimits& limits) {
  if (!patch.is_array())
    throw std::invalid_argument("JSON patch must be an array of operations, got " +
                                short_json(patch));
  const auto& ops = patch.get_array();
  if (ops.size() > limits.max_operations) {
    throw JsonPatchTooLarge("a JSON patch may hold at most " +
                            std::to_string(limits.max_operations) + " operations, this one has " +
                            std::to_string(ops.size()) + "; split it into several patches");
  }
  json::value result = document;
  CopyBudget copies{0, limits.max_copy_bytes};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::string label = "op[" + std::to_string(i) + "]";
    try {
      if (!ops[i].is_object())
        throw OpFailure{"operation must be an object, got " + short_json(ops[i])};
      const auto& op = ops[i].get_object();
      const json::value& name = member(op, "op", true);
      const json::value* path = op.if_contains("path");
      label +=
          " (" + std::string(name.get_string()) +
          (path != nullptr && path->is_string() ? " " + json::serialize(*path) : std::string()) +
          ")";
      apply_op(result, op, std::string(name.get_string()), copies);
    } catch (const OpFailure& failure) {
      throw std::invalid_argument(label + ": " + failure.message);
    } catch (const JsonPatchTooLarge& too_large) {
      throw JsonPatchTooLarge(label + ": " + too_large.what());
    }
  }
  return result;
}

}  // namespace nvcre::jsonkit
