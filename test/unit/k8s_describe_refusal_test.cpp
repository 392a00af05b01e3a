// What the manager logs for a refused request: the server's message, and what to grant when the
// message itself names no permission (a refusal to set blockOwnerDeletion).
#include "k8s/api_error.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::k8s::ApiError;
using nvcre::k8s::describe_refusal;

TEST(DescribeRefusal, NamesTheMethodPathMessageAndWhatToChange) {
  const ApiError error(403, "Forbidden",
                       "pods is forbidden: User \"u\" cannot list resource \"pods\" in API group "
                       "\"\" in the namespace \"n\"");
  EXPECT_EQ(describe_refusal("GET", "/api/v1/namespaces/n/pods", error),
            "API request refused (403 Forbidden): GET /api/v1/namespaces/n/pods: pods is "
            "forbidden: User \"u\" cannot list resource \"pods\" in API group \"\" in the "
            "namespace \"n\": the client's role lacks this permission (grant it, e.g. in the "
            "manager's ClusterRole)");
}

TEST(DescribeRefusal, ABlockOwnerDeletionRefusalNamesTheOwnersFinalizers) {
  const ApiError error(403, "Forbidden",
                       "jobs.nvcre.nvidia.com \"j\" is forbidden: cannot set blockOwnerDeletion if "
                       "an ownerReference refers to a resource you can't set finalizers on: , "
                       "<nil>");
  const std::string body = R"({"metadata":{"name":"j","ownerReferences":[
      {"apiVersion":"nvcre.nvidia.com/v1alpha1","kind":"Workflow","name":"w","uid":"1",
       "controller":true,"blockOwnerDeletion":true},
      {"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"2"}]}})";
  const std::string line =
      describe_refusal("POST", "/apis/nvcre.nvidia.com/v1alpha1/namespaces/n/jobs", error, body);
  EXPECT_NE(line.find("you can't set finalizers on: , <nil> (needs: cannot update resource "
                      "\"workflows/finalizers\" in API group \"nvcre.nvidia.com\")"),
            std::string::npos)
      << line;
  // Without a body (or an unreadable one) the server's words stand alone.
  EXPECT_NE(describe_refusal("POST", "/x", error, "not json").find("<nil>: the client's role"),
            std::string::npos);
}

}  // namespace
