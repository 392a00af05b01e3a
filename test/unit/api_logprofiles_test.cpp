// The shipped LogProfiles: every deploy/logprofiles/*.yaml is embedded, and each embedded document
// is a valid LogProfile; load_logprofile_manifests rejects what the API server or the model would.
#include "api/logprofiles.hpp"

#include "jsonkit/yaml.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

using nvcre::EmbeddedFile;
using nvcre::api::load_logprofile_manifests;

std::string profile(const std::string& name, const std::string& unit = "ms") {
  return "apiVersion: nvcre.nvidia.com/v1alpha1\nkind: LogProfile\nmetadata: {name: " + name +
         "}\nspec:\n  timestamp: {layout: \"2006-01-02 15:04:05\"}\n  patterns:\n"
         "    trainingStep: {regex: 'step (?P<globalStep>\\d+)', units: {stepTiming: " +
         unit + "}}\n";
}

std::string load_error(std::initializer_list<EmbeddedFile> files) {
  try {
    (void)load_logprofile_manifests(std::span<const EmbeddedFile>(files.begin(), files.size()));
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(loaded)";
}

TEST(ApiLogProfiles, LoadsEveryDocumentInOrder) {
  const std::string first = profile("throwaway-a") + "---\n" + profile("throwaway-b");
  const std::string second = profile("throwaway-c");
  const EmbeddedFile files[] = {{"a.yaml", first}, {"b.yaml", second}};
  const auto manifests = load_logprofile_manifests(files);
  ASSERT_EQ(manifests.size(), 3u);
  EXPECT_EQ(manifests[0].at("metadata").at("name"), "throwaway-a");
  EXPECT_EQ(manifests[1].at("metadata").at("name"), "throwaway-b");
  EXPECT_EQ(manifests[2].at("metadata").at("name"), "throwaway-c");
  EXPECT_EQ(manifests[0].at("spec").at("patterns").at("trainingStep").at("regex"),
            "step (?P<globalStep>\\d+)");
  EXPECT_TRUE(load_logprofile_manifests({}).empty());
}

TEST(ApiLogProfiles, RejectsWhatIsNotAValidUniqueLogProfile) {
  EXPECT_EQ(load_error({{"x.yaml", "apiVersion: nvcre.nvidia.com/v1alpha1\nkind: Job\n"}}),
            "x.yaml, document 1: expected a LogProfile, got kind Job");
  const std::string bad_unit = profile("throwaway-a", "ns");
  EXPECT_EQ(load_error({{"x.yaml", bad_unit}}),
            "x.yaml, document 1: LogProfile \"throwaway-a\" is invalid: "
            "spec.patterns.trainingStep.units.stepTiming: Unsupported value: \"ns\": supported "
            "values: \"s\", \"ms\", \"us\"");
  const std::string twice = profile("throwaway-a");
  const std::string again = profile("throwaway-a");
  EXPECT_EQ(load_error({{"x.yaml", twice}, {"y.yaml", again}}),
            "y.yaml, document 1: LogProfile \"throwaway-a\" is defined twice; give each profile "
            "its own name");
  EXPECT_NE(load_error({{"x.yaml", "kind: [unclosed"}}).find("x.yaml: "), std::string::npos);
}

// Counts the documents of deploy/logprofiles/*.yaml on disk: the build must have embedded all of
// them, and all of them must load.
TEST(ApiLogProfiles, EveryShippedManifestIsEmbeddedAndValid) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(NVCRE_SOURCE_DIR) / "deploy" / "logprofiles";
  std::size_t files_on_disk = 0, documents_on_disk = 0;
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
      ++files_on_disk;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      documents_on_disk += nvcre::jsonkit::parse_yaml_documents(text.str()).size();
    }
  }
  EXPECT_EQ(nvcre::api::embedded_logprofile_files().size(), files_on_disk)
      << "deploy/logprofiles changed since the last configure? re-run cmake";
  for (const auto& file : nvcre::api::embedded_logprofile_files())
    EXPECT_EQ(file.name.substr(0, 19), "deploy/logprofiles/");
  std::size_t loaded = 0;
  ASSERT_NO_THROW(loaded = nvcre::api::shipped_logprofiles().size());
  EXPECT_EQ(loaded, documents_on_disk);
}

}  // namespace
