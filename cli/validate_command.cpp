#include "cli/validate_command.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <ostream>

#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "cli/read_file.hpp"
#include "workflow/workflow_document.hpp"

namespace nvcre::cli {
namespace json = boost::json;

namespace {

std::string name_of(const json::value& object) {
  return jsonkit::string_at(object, {"metadata", "name"});
}

std::vector<json::value> load_documents(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return jsonkit::parse_yaml_documents(text);
  } catch (const jsonkit::ParseError& error) {
    throw std::runtime_error("parse " + path + ": " + error.what());
  }
}

// Admission passed; the typed model must take the object too, or our model and our CRDs disagree.
// It decodes what the API server would store: defaults applied, non-nullable nulls dropped, and no
// status (a kind with a status subresource ignores it on create and update; a kind without one,
// LogProfile, was already rejected by admission for carrying it).
std::optional<std::string> typed_decode_problem(const json::value& object) {
  json::value stored = object;
  api::apply_defaults(stored);
  if (auto* fields = stored.if_object()) fields->erase("status");
  try {
    // A Workflow is read as the controller reads it: with the fields carried beside the typed
    // model (orchestration placement), which the CRD admits.
    if (jsonkit::string_at(stored, {"kind"}) == "Workflow" &&
        jsonkit::string_at(stored, {"apiVersion"}) == "nvcre.nvidia.com/v1alpha1") {
      (void)workflow::read_workflow(stored);
    } else {
      (void)api::decode_any_object(stored);
    }
    return std::nullopt;
  } catch (const std::exception& error) {
    return std::string(error.what());
  }
}

}  // namespace

std::string format_rejection(std::string_view kind, std::string_view name,
                             const std::vector<api::Cause>& causes) {
  std::string text = "The " + std::string(kind.empty() ? "object" : kind) + " \"" +
                     std::string(name) + "\" is invalid:";
  for (const auto& cause : causes) {
    text += "\n* " + (cause.field.empty() ? cause.message : cause.field + ": " + cause.message);
  }
  return text;
}

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<json::value> old_object;
  if (options.old_file) {
    try {
      auto documents = load_documents(*options.old_file);
      if (documents.size() != 1) {
        err << "Error: --old " << *options.old_file << " must hold exactly one object, found "
            << documents.size() << "\n";
        return 1;
      }
      old_object = std::move(documents.front());
    } catch (const std::exception& error) {
      err << "Error: read old object: " << error.what() << "\n";
      return 1;
    }
  }

  bool all_admitted = true;
  json::array report;
  for (const auto& path : options.files) {
    std::vector<json::value> documents;
    try {
      documents = load_documents(path);
    } catch (const std::exception& error) {
      err << "Error: " << error.what() << "\n";
      all_admitted = false;
      continue;
    }
    if (documents.empty()) {
      err << "Error: " << path << ": no objects in file\n";
      all_admitted = false;
      continue;
    }
    for (const auto& object : documents) {
      const std::string kind = jsonkit::string_at(object, {"kind"});
      const std::string name = name_of(object);
      api::ValidationResult result =
          old_object ? api::validate_update(*old_object, object) : api::validate_create(object);
      if (result.accepted) {
        if (auto problem = typed_decode_problem(object)) {
          result.accepted = false;
          result.causes.push_back(
              {"", "InternalError",
               "admitted by the schema but not by the typed model: " + *problem});
        }
      }
      all_admitted = all_admitted && result.accepted;
      if (options.output == "json") {
        json::object entry;
        entry["file"] = path;
        entry["kind"] = kind;
        entry["name"] = name;
        entry["result"] = api::causes_to_json(result);
        report.push_back(std::move(entry));
      } else if (result.accepted) {
        out << path << ": " << kind << "/" << name << " is valid\n";
      } else {
        out << path << ": " << format_rejection(kind, name, result.causes) << "\n";
      }
    }
  }
  if (options.output == "json") out << jsonkit::to_pretty_json(report);
  return all_admitted ? 0 : 1;
}

}  // namespace nvcre::cli
