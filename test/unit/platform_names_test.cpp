#include "platform/platform_names.hpp"

#include <gtest/gtest.h>

using namespace nvcre::platform;

TEST(PlatformNames, ListIsInCanonicalOrder) {
  EXPECT_EQ(platform_names_list(),
            "aws, gcp, azure, oci, onprem, togetherai, mistral, forge, nscale");
}

TEST(PlatformNames, FlagValidationUsesTheReferenceMessage) {
  EXPECT_NO_THROW(validate_platform_flag(""));
  EXPECT_NO_THROW(validate_platform_flag("nscale"));
  try {
    validate_platform_flag("x");
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(
        error.what(),
        "invalid --platform \"x\": must be one of aws, gcp, azure, oci, onprem, togetherai, "
        "mistral, forge, nscale");
  }
  EXPECT_THROW(validate_platform_flag("AWS"), std::invalid_argument);
}
