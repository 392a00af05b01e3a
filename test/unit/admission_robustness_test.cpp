// Property tests over every manifest the repository holds (examples and golden inputs), mutated one
// value at a time into every other JSON type, and cut short at many points:
//   - parsing, validation and typed decoding never crash; they accept or give reasons;
//   - whatever the CRD schema admits, the typed model decodes as stored (schema and model agree);
//   - the typed model re-encodes what it decoded to an object the schema still admits.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <variant>

#include "api/objects.hpp"
#include "api/validation.hpp"
#include "jsonkit/yaml.hpp"

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace nvcre::api;
using namespace nvcre::jsonkit;

namespace {

struct Manifest {
  std::string path;
  std::string text;
  json::value object;
};

bool is_nvcre_object(const json::value& value) {
  const auto* object = value.if_object();
  if (object == nullptr) return false;
  const auto* api_version = object->if_contains("apiVersion");
  return api_version && api_version->is_string() &&
         api_version->get_string() == "nvcre.nvidia.com/v1alpha1";
}

// Every admitted nvcre object the repository holds as an example or golden input.
std::vector<Manifest> admitted_manifests() {
  std::vector<Manifest> manifests;
  const std::vector<fs::path> roots = {fs::path(NVCRE_SOURCE_DIR) / "examples",
                                       fs::path(NVCRE_TESTDATA_DIR) / "roundtrip",
                                       fs::path(NVCRE_TESTDATA_DIR) / "validation"};
  for (const auto& root : roots) {
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      std::vector<json::value> documents;
      try {
        documents = parse_yaml_documents(text.str());
      } catch (const ParseError&) {
        continue;  // deliberately malformed inputs of negative cases
      }
      for (auto& document : documents) {
        if (is_nvcre_object(document) && validate_create(document).accepted) {
          manifests.push_back({entry.path().string(), text.str(), std::move(document)});
        }
      }
    }
  }
  return manifests;
}

// A step from a JSON value to one of its children: an object key or an array index.
using JsonPath = std::vector<std::variant<std::string, std::size_t>>;

void collect_paths(const json::value& node, JsonPath& path, std::vector<JsonPath>& paths) {
  paths.push_back(path);
  if (const auto* object = node.if_object()) {
    for (const auto& entry : *object) {
      path.emplace_back(std::string(entry.key()));
      collect_paths(entry.value(), path, paths);
      path.pop_back();
    }
  } else if (const auto* array = node.if_array()) {
    for (std::size_t i = 0; i < array->size(); ++i) {
      path.emplace_back(i);
      collect_paths((*array)[i], path, paths);
      path.pop_back();
    }
  }
}

json::value& at_path(json::value& root, const JsonPath& path) {
  json::value* node = &root;
  for (const auto& step : path) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      node = &node->as_object().at(*key);
    } else {
      node = &node->as_array().at(std::get<std::size_t>(step));
    }
  }
  return *node;
}

// Calls `visit` with a copy of `root` in which one value (not the root) has been replaced by a
// value of another JSON type, for every value in the tree and every such replacement.
void for_each_type_mutation(const json::value& root,
                            const std::function<void(const json::value&)>& visit) {
  const std::vector<json::value> replacements = {
      json::value("x"),  json::value(7),       json::value(-1), json::value(2.5),
      json::value(true), json::value(nullptr), json::object{},  json::array{}};
  std::vector<JsonPath> paths;
  JsonPath path;
  collect_paths(root, path, paths);
  for (const auto& target : paths) {
    if (target.empty()) continue;
    json::value copy = root;
    const json::value original = at_path(copy, target);
    for (const auto& replacement : replacements) {
      if (replacement.kind() == original.kind()) continue;
      at_path(copy, target) = replacement;
      visit(copy);
    }
  }
}

void expect_model_agrees_with_schema(const json::value& object, const std::string& where) {
  const ValidationResult verdict = validate_create(object);
  if (!verdict.accepted) {
    EXPECT_FALSE(verdict.causes.empty()) << where << ": rejected without a cause";
    return;
  }
  // The typed model sees what the API server stores: defaults applied, non-nullable nulls dropped,
  // and no status, which a create through the main resource ignores (status subresource).
  json::value stored = object;
  ASSERT_TRUE(apply_defaults(stored)) << where;
  stored.as_object().erase("status");
  try {
    const AnyObject decoded = decode_any_object(stored);
    json::value reencoded = encode_any_object(decoded);
    EXPECT_TRUE(validate_create(reencoded).accepted) << where << ": re-encoded object rejected:\n"
                                                     << to_pretty_json(reencoded);
  } catch (const std::exception& error) {
    ADD_FAILURE() << where << ": admitted by the schema but the typed model says: " << error.what()
                  << "\n"
                  << to_pretty_json(stored);
  }
}

}  // namespace

TEST(AdmissionRobustness, EveryMutationIsJudgedAndAdmittedOnesDecode) {
  const auto manifests = admitted_manifests();
  ASSERT_GE(manifests.size(), 10u)
      << "expected the examples and golden inputs to provide manifests";
  std::size_t mutations = 0;
  for (const auto& manifest : manifests) {
    expect_model_agrees_with_schema(manifest.object, manifest.path);
    for_each_type_mutation(manifest.object, [&](const json::value& mutated) {
      ++mutations;
      expect_model_agrees_with_schema(mutated, manifest.path + " (mutated)");
    });
    if (HasFailure()) break;  // one manifest's report is enough to act on
  }
  RecordProperty("mutations", static_cast<int>(mutations));
}

TEST(AdmissionRobustness, TruncatedManifestsFailCleanly) {
  for (const auto& manifest : admitted_manifests()) {
    for (std::size_t cut = 1; cut < manifest.text.size(); cut += 7) {
      const std::string truncated = manifest.text.substr(0, cut);
      try {
        for (const auto& document : parse_yaml_documents(truncated)) {
          (void)validate_create(document);
          try {
            (void)decode_any_object(document);
          } catch (const DecodeError&) {
          }
        }
      } catch (const ParseError&) {
      }
    }
  }
}

// Status arrives through the status subresource: every admitted status mutation must decode too.
TEST(AdmissionRobustness, AdmittedStatusUpdatesDecode) {
  std::size_t status_mutations = 0;
  for (const auto& manifest : admitted_manifests()) {
    const auto* status = manifest.object.as_object().if_contains("status");
    if (status == nullptr) continue;
    for_each_type_mutation(*status, [&](const json::value& mutated_status) {
      ++status_mutations;
      json::value updated = manifest.object;
      updated.as_object()["status"] = mutated_status;
      if (!validate_status_update(manifest.object, updated).accepted) return;
      json::value stored = updated;
      ASSERT_TRUE(apply_defaults(stored));
      try {
        (void)decode_any_object(stored);
      } catch (const std::exception& error) {
        ADD_FAILURE() << manifest.path
                      << ": status update admitted but the typed model says: " << error.what()
                      << "\n"
                      << to_pretty_json(stored.at("status"));
      }
    });
    if (HasFailure()) break;
  }
  EXPECT_GT(status_mutations, 100u) << "expected golden inputs with populated status";
}
