// Compiled LogProfiles are kept per name and version: the same version compiles once, a new
// resourceVersion or a recreated profile (new uid) compiles again, a bad profile is reported on
// every call and never kept, and the cache stays within its capacity.
#include "jsonkit/yaml.hpp"
#include "measure/log_profile.hpp"
#include "measurement/profile_cache.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::measurement::CompiledProfileCache;

boost::json::value profile(const std::string& name, const std::string& uid,
                           const std::string& version, const std::string& regex = "step (\\d+)") {
  return nvcre::jsonkit::parse_yaml(
      "apiVersion: nvcre.nvidia.com/v1alpha1\nkind: LogProfile\n"
      "metadata: {name: " +
      name + ", uid: " + uid + ", resourceVersion: '" + version + "'}\n" +
      "spec:\n  patterns:\n    trainingStep: {regex: '" + regex + "'}\n");
}

TEST(CompiledProfileCache, TheSameVersionCompilesOnce) {
  CompiledProfileCache cache;
  const auto first = cache.get(profile("p", "u1", "7"));
  const auto second = cache.get(profile("p", "u1", "7"));
  EXPECT_EQ(cache.compilations(), 1U);
  EXPECT_EQ(second.name, "p");
  ASSERT_NE(second.pattern("trainingStep"), nullptr);
  EXPECT_TRUE(second.pattern("trainingStep")->matches("step 12"));
}

TEST(CompiledProfileCache, ANewVersionOrARecreatedProfileCompilesAgain) {
  CompiledProfileCache cache;
  (void)cache.get(profile("p", "u1", "7"));
  const auto edited = cache.get(profile("p", "u1", "8", "iteration (\\d+)"));
  EXPECT_EQ(cache.compilations(), 2U);
  EXPECT_TRUE(edited.pattern("trainingStep")->matches("iteration 3"));
  EXPECT_FALSE(edited.pattern("trainingStep")->matches("step 3"));
  (void)cache.get(profile("p", "u2", "8"));
  EXPECT_EQ(cache.compilations(), 3U);
}

TEST(CompiledProfileCache, AProfileWithoutUidOrVersionIsNeverKept) {
  CompiledProfileCache cache;
  (void)cache.get(profile("p", "''", "7"));
  const auto other = cache.get(profile("p", "''", "7", "iteration (\\d+)"));
  EXPECT_TRUE(other.pattern("trainingStep")->matches("iteration 3"));
  (void)cache.get(profile("p", "u1", ""));
  (void)cache.get(profile("p", "u1", ""));
  EXPECT_EQ(cache.compilations(), 4U);
}

TEST(CompiledProfileCache, ABadProfileFailsEveryTimeAndIsNotKept) {
  CompiledProfileCache cache;
  (void)cache.get(profile("p", "u1", "7"));
  EXPECT_THROW((void)cache.get(profile("p", "u1", "8", "step (?P<bad")),
               nvcre::measure::ProfileError);
  EXPECT_THROW((void)cache.get(profile("p", "u1", "8", "step (?P<bad")),
               nvcre::measure::ProfileError);
  EXPECT_EQ(cache.compilations(), 1U);
  const auto fixed = cache.get(profile("p", "u1", "9"));
  EXPECT_EQ(cache.compilations(), 2U);
  EXPECT_TRUE(fixed.pattern("trainingStep")->matches("step 1"));
}

TEST(CompiledProfileCache, ANameBeyondTheCapacityStartsOver) {
  CompiledProfileCache cache(2);
  (void)cache.get(profile("a", "u", "1"));
  (void)cache.get(profile("b", "u", "1"));
  (void)cache.get(profile("a", "u", "1"));
  EXPECT_EQ(cache.compilations(), 2U);
  (void)cache.get(profile("c", "u", "1"));  // a third name: the cache starts over
  (void)cache.get(profile("a", "u", "1"));
  EXPECT_EQ(cache.compilations(), 4U);
}

}  // namespace
