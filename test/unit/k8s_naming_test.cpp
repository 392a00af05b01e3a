#include "k8s/naming.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace nvcre::k8s {
namespace {

// Expected hashes below were computed independently (FNV-1a: offset 2166136261, prime 16777619).

TEST(K8sNaming, Fnv32aKnownVectors) {
  EXPECT_EQ(fnv32a(""), 0x811c9dc5u);
  EXPECT_EQ(fnv32a("a"), 0xe40c292cu);
  EXPECT_EQ(fnv32a("foobar"), 0xbf9cf968u);
  EXPECT_EQ(fnv32a("abc"), 0x1a47e90bu);
}

TEST(K8sNaming, NameHashIsFirstFiveCharsOfPercent05x) {
  EXPECT_EQ(name_hash("a"), "e40c2");
  // 0x000b4828: "%05x" prints "b4828" (no padding to 8 digits), so the hash is not "000b4".
  EXPECT_EQ(fnv32a("w1467"), 0x000b4828u);
  EXPECT_EQ(name_hash("w1467"), "b4828");
  // 0x0000c598: "%05x" pads to five digits.
  EXPECT_EQ(fnv32a("w172220"), 0x0000c598u);
  EXPECT_EQ(name_hash("w172220"), "0c598");
}

TEST(K8sNaming, LimitsMatchReference) {
  EXPECT_EQ(kMaxDnsLabelLength, 63u);
  EXPECT_EQ(kMaxWorkflowNameLength, 31u);
  EXPECT_EQ(kMaxJobNameLength, 35u);
  EXPECT_EQ(kMaxWorkloadNameLength, 44u);
}

TEST(K8sNaming, TruncateKeepsNamesThatFit) {
  EXPECT_EQ(truncate_name("", kMaxWorkflowNameLength), "");
  EXPECT_EQ(truncate_name("short", kMaxWorkflowNameLength), "short");
  const std::string exactly31(31, 'a');
  EXPECT_EQ(truncate_name(exactly31, 31), exactly31);
}

TEST(K8sNaming, TruncateOneOverTheLimit) {
  const std::string name(32, 'a');
  const std::string truncated = truncate_name(name, 31);
  EXPECT_EQ(truncated, std::string(25, 'a') + "-4d504");
  EXPECT_EQ(truncated.size(), 31u);
}

TEST(K8sNaming, TruncateRealisticWorkflowName) {
  const std::string name = "rack7-burnin-communication-nccl-all-reduce";  // 42 chars
  EXPECT_EQ(truncate_name(name, kMaxWorkflowNameLength), "rack7-burnin-communicatio-53e86");
  EXPECT_EQ(truncate_name(std::string(70, 'x'), kMaxDnsLabelLength),
            std::string(57, 'x') + "-77f3c");
}

TEST(K8sNaming, TruncateStripsTrailingDashesOfThePrefix) {
  // Prefix "abcdefghijklmnopqrstuvwx-" loses its dash: no "--" before the hash.
  EXPECT_EQ(truncate_name("abcdefghijklmnopqrstuvwx--yz-tail", 31),
            "abcdefghijklmnopqrstuvwx-227db");
  // Several dashes go; the result may then be shorter than max.
  EXPECT_EQ(truncate_name("ab---cdefghijk", 11), "ab-f57d1");
}

TEST(K8sNaming, TruncateHashesTheFullName) {
  // Same kept prefix, different tails: different names.
  const std::string a = std::string(40, 'p') + "-one";
  const std::string b = std::string(40, 'p') + "-two";
  EXPECT_NE(truncate_name(a, 31), truncate_name(b, 31));
  EXPECT_EQ(truncate_name(a, 31).substr(0, 25), truncate_name(b, 31).substr(0, 25));
}

TEST(K8sNaming, TruncateSmallMax) {
  EXPECT_EQ(truncate_name("abcdefg", 6), "-2a9eb");  // as Go: empty prefix, dash, hash
  EXPECT_THROW(truncate_name("abcdefg", 5), std::invalid_argument);
  EXPECT_EQ(truncate_name("abcde", 5), "abcde");  // fits, so max < 6 is fine
}

TEST(K8sNaming, ExtractHash) {
  EXPECT_EQ(extract_hash("my-workflow-abcde"), "abcde");
  EXPECT_EQ(extract_hash("rack7-burnin-communicatio-53e86"), "53e86");
  // Trailing segment not exactly 5 chars: hash of the full name.
  EXPECT_EQ(extract_hash("foo-abcdef"), "e81d6");
  EXPECT_EQ(extract_hash("foo-abcd"), name_hash("foo-abcd"));
  EXPECT_EQ(extract_hash("foo"), "a9f37");
  EXPECT_EQ(extract_hash("nodash"), "83d57");
  EXPECT_EQ(extract_hash("-abcde"), "abcde");
  EXPECT_EQ(extract_hash("abcde-"), name_hash("abcde-"));
}

TEST(K8sNaming, ExtractHashOfTruncatedNameIsItsHash) {
  const std::string name(50, 'z');
  EXPECT_EQ(extract_hash(truncate_name(name, 31)), name_hash(name));
}

}  // namespace
}  // namespace nvcre::k8s
