// `nvcrectl validate` on the measurement kinds: the example manifests of each kind are admitted
// (schema and typed model agree), the broken LogProfile is rejected with kubectl's wording.
#include "cli/validate_command.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace {

std::string example(const std::string& relative) {
  return std::string(NVCRE_SOURCE_DIR) + "/examples/" + relative;
}

TEST(CliValidate, AdmitsEveryMeasurementKind) {
  nvcre::cli::ValidateOptions options;
  options.files = {example("measurements.yaml")};
  std::ostringstream out, err;
  EXPECT_EQ(nvcre::cli::run_validate(options, out, err), 0) << out.str() << err.str();
  const std::string file = example("measurements.yaml");
  EXPECT_EQ(out.str(), file + ": LogProfile/my-trainer-logs is valid\n" + file +
                           ": GoodputMeasurement/train-job-goodput is valid\n" + file +
                           ": BandwidthMeasurement/ar-job-bandwidth is valid\n");
  EXPECT_EQ(err.str(), "");
}

TEST(CliValidate, RejectsABrokenLogProfileWithEveryCause) {
  nvcre::cli::ValidateOptions options;
  options.files = {example("invalid/logprofile-invalid.yaml")};
  std::ostringstream out, err;
  EXPECT_EQ(nvcre::cli::run_validate(options, out, err), 1);
  EXPECT_EQ(out.str(),
            options.files.front() +
                ": The LogProfile \"broken-logs\" is invalid:\n"
                "* spec.patterns.checkpointSave.regex: Required value\n"
                "* spec.patterns.trainingStep.units.stepTiming: Unsupported value: \"sec\": "
                "supported values: \"s\", \"ms\", \"us\"\n"
                "* spec.workerStrategy.type: Unsupported value: \"Double\": supported values: "
                "\"Single\", \"Multi\"\n");
}

}  // namespace
