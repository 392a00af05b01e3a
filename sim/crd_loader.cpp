#include "sim/crd_loader.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace nvcre::sim {

void install_crds_from_directory(ApiServer& api, const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw std::runtime_error(
        "CRD directory " + dir.string() +
        " not found: run from the repository root or pass the deploy/crds path");
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& doc : jsonkit::parse_yaml_documents(text.str())) {
      if (doc.is_object() && doc.as_object().contains("kind") &&
          doc.at("kind") == "CustomResourceDefinition") {
        api.add_crd(doc);
      }
    }
  }
}

}  // namespace nvcre::sim
