#include "k8s/label_validation.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nvcre::k8s {
namespace {

using Errors = std::vector<std::string>;

// The apimachinery texts, spelled out here rather than shared with the implementation.
const std::string kNameRegexMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kValueRegexMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kSubdomainRegexMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kLabelRegexMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// A valid subdomain of exactly n characters: "aaa...a.aaa..." labels.
std::string subdomain_of_length(std::size_t n) {
  std::string s;
  while (s.size() < n) s += (s.size() % 10 == 9 && s.size() + 1 < n) ? '.' : 'a';
  return s;
}

TEST(K8sLabelValidation, QualifiedNameValid) {
  for (const std::string& key : std::vector<std::string>{
           "app", "a", "A_b-c.D", "123-abc", "app.kubernetes.io/name", "kai.scheduler/queue",
           "nvidia.com/gpu.present", "kueue.x-k8s.io/queue-name",
           "node.kubernetes.io/unschedulable", std::string(63, 'n'),
           subdomain_of_length(253) + "/" + std::string(63, 'n')}) {
    EXPECT_EQ(qualified_name_errors(key), Errors{}) << key;
    EXPECT_TRUE(is_qualified_name(key)) << key;
  }
}

TEST(K8sLabelValidation, QualifiedNameEmpty) {
  EXPECT_EQ(qualified_name_errors(""),
            (Errors{"name part must be non-empty", "name part " + kNameRegexMsg}));
}

TEST(K8sLabelValidation, QualifiedNameBadCharacters) {
  for (const char* key : {"-abc", "abc-", "_a", "a_", ".a", "a b", "a@b", "é", "a\tb"}) {
    EXPECT_EQ(qualified_name_errors(key), Errors{"name part " + kNameRegexMsg}) << key;
  }
}

TEST(K8sLabelValidation, QualifiedNameTooLong) {
  EXPECT_EQ(qualified_name_errors(std::string(64, 'a')),
            Errors{"name part must be no more than 63 characters"});
  EXPECT_EQ(qualified_name_errors("example.com/" + std::string(63, 'a') + "-"),
            (Errors{"name part must be no more than 63 characters", "name part " + kNameRegexMsg}));
}

TEST(K8sLabelValidation, QualifiedNameMoreThanOneSlash) {
  EXPECT_EQ(qualified_name_errors("a/b/c"),
            Errors{"a qualified name " + kNameRegexMsg +
                   " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"});
}

TEST(K8sLabelValidation, QualifiedNamePrefix) {
  EXPECT_EQ(qualified_name_errors("/a"), Errors{"prefix part must be non-empty"});
  EXPECT_EQ(qualified_name_errors("Example.com/a"), Errors{"prefix part " + kSubdomainRegexMsg});
  EXPECT_EQ(qualified_name_errors("example..com/a"), Errors{"prefix part " + kSubdomainRegexMsg});
  EXPECT_EQ(qualified_name_errors("under_score.io/a"), Errors{"prefix part " + kSubdomainRegexMsg});
  EXPECT_EQ(qualified_name_errors(subdomain_of_length(254) + "/a"),
            Errors{"prefix part must be no more than 253 characters"});
  EXPECT_EQ(qualified_name_errors("example.com/"),
            (Errors{"name part must be non-empty", "name part " + kNameRegexMsg}));
  EXPECT_EQ(qualified_name_errors("/"),
            (Errors{"prefix part must be non-empty", "name part must be non-empty",
                    "name part " + kNameRegexMsg}));
}

TEST(K8sLabelValidation, LabelValue) {
  for (const std::string& value : std::vector<std::string>{
           "", "a", "MyValue", "my_value", "12345", "true", "v1.2.3", std::string(63, 'v')}) {
    EXPECT_EQ(label_value_errors(value), Errors{}) << value;
    EXPECT_TRUE(is_valid_label_value(value));
  }
  EXPECT_EQ(label_value_errors(std::string(64, 'v')), Errors{"must be no more than 63 characters"});
  for (const char* value : {"-x", "x-", "a b", "a/b", ".", "_", "-1"}) {
    EXPECT_EQ(label_value_errors(value), Errors{kValueRegexMsg}) << value;
  }
  EXPECT_EQ(label_value_errors(std::string(63, 'v') + "-"),
            (Errors{"must be no more than 63 characters", kValueRegexMsg}));
}

TEST(K8sLabelValidation, Dns1123Subdomain) {
  for (const std::string& value :
       std::vector<std::string>{"example.com", "a", "0", "a-b.c-d", "1.2.3",
                                subdomain_of_length(253), std::string(100, 'a')}) {
    EXPECT_EQ(dns1123_subdomain_errors(value), Errors{}) << value;
  }
  for (const char* value : {"", "-a", "a-", ".a", "a.", "a..b", "A", "a_b", "a.-b", "a/b"}) {
    EXPECT_EQ(dns1123_subdomain_errors(value), Errors{kSubdomainRegexMsg}) << value;
  }
  EXPECT_EQ(dns1123_subdomain_errors(std::string(254, 'a')),
            Errors{"must be no more than 253 characters"});
}

TEST(K8sLabelValidation, Dns1123Label) {
  for (const std::string& value :
       std::vector<std::string>{"my-name", "123-abc", "a", "0", std::string(63, 'a')}) {
    EXPECT_EQ(dns1123_label_errors(value), Errors{}) << value;
  }
  EXPECT_EQ(dns1123_label_errors(std::string(64, 'a')),
            Errors{"must be no more than 63 characters"});
  for (const char* value : {"", "My", "-a", "a-", "a_b", "a.", ".a"}) {
    EXPECT_EQ(dns1123_label_errors(value), Errors{kLabelRegexMsg}) << value;
  }
  EXPECT_EQ(dns1123_label_errors("a.b"), Errors{"must not contain dots"});
  EXPECT_EQ(dns1123_label_errors("example.com"), Errors{"must not contain dots"});
}

}  // namespace
}  // namespace nvcre::k8s
