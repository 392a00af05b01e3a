#pragma once
// YAML <-> JSON. Every document we read (YAML or JSON) becomes a boost::json::value first; typed
// decoding and schema validation work on that one representation.
#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::jsonkit {

// Malformed input; what() names the line and column and what was wrong.
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses a YAML stream (JSON is YAML too). Plain scalars resolve per the YAML 1.2 core schema
// (null, true/false, integers, floats); quoted scalars are always strings. Duplicate mapping keys,
// aliases to nowhere and other malformed input raise ParseError. Empty documents are skipped.
std::vector<boost::json::value> parse_yaml_documents(std::string_view text);

// Exactly one document; ParseError when the text holds none or several.
boost::json::value parse_yaml(std::string_view text);

// Block-style YAML; strings that would read back as another type are quoted.
std::string to_yaml(const boost::json::value& value);

// JSON indented by two spaces, keys in stored order; the format of golden files.
std::string to_pretty_json(const boost::json::value& value);

}  // namespace nvcre::jsonkit
