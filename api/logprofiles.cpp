#include "api/logprofiles.hpp"

#include "api/measurement.hpp"
#include "api/objects.hpp"
#include "api/validation.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"

#include <set>
#include <stdexcept>
#include <string>

namespace nvcre::api {
namespace json = boost::json;

namespace {

std::string where(const nvcre::EmbeddedFile& file, std::size_t index) {
  return std::string(file.name) + ", document " + std::to_string(index + 1);
}

// Admission as the API server would answer it, then the typed model: both must take the profile.
void check_profile(const json::value& document, const std::string& at) {
  const std::string kind = jsonkit::string_at(document, {"kind"});
  if (kind != LogProfile::kKind) {
    throw std::invalid_argument(at + ": expected a LogProfile, got " +
                                (kind.empty() ? std::string("no kind") : "kind " + kind));
  }
  const std::string name = jsonkit::string_at(document, {"metadata", "name"});
  const ValidationResult verdict = validate_create(document);
  if (!verdict.accepted) {
    std::string text = at + ": LogProfile \"" + name + "\" is invalid:";
    for (const auto& cause : verdict.causes) {
      text +=
          " " + (cause.field.empty() ? cause.message : cause.field + ": " + cause.message) + ";";
    }
    text.pop_back();
    throw std::invalid_argument(text);
  }
  json::value stored = document;
  apply_defaults(stored);
  try {
    (void)decode_object<LogProfile>(stored);
  } catch (const DecodeError& error) {
    throw std::invalid_argument(at + ": LogProfile \"" + name +
                                "\" is admitted but not decoded: " + error.what());
  }
}

}  // namespace

std::vector<json::value> load_logprofile_manifests(std::span<const nvcre::EmbeddedFile> files) {
  std::vector<json::value> manifests;
  std::set<std::string> names;
  for (const auto& file : files) {
    std::vector<json::value> documents;
    try {
      documents = jsonkit::parse_yaml_documents(file.content);
    } catch (const jsonkit::ParseError& error) {
      throw std::invalid_argument(std::string(file.name) + ": " + error.what());
    }
    for (std::size_t i = 0; i < documents.size(); ++i) {
      const std::string at = where(file, i);
      check_profile(documents[i], at);
      const std::string name = jsonkit::string_at(documents[i], {"metadata", "name"});
      if (!names.insert(name).second) {
        throw std::invalid_argument(at + ": LogProfile \"" + name +
                                    "\" is defined twice; give each profile its own name");
      }
      manifests.push_back(std::move(documents[i]));
    }
  }
  return manifests;
}

const std::vector<json::value>& shipped_logprofiles() {
  static const std::vector<json::value> profiles =
      load_logprofile_manifests(embedded_logprofile_files());
  return profiles;
}

}  // namespace nvcre::api
