// The golden suites' sanitiser: volatile server fields and clock strings go, names and spec stay.
#include "test/support/sanitize.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::testing {
namespace {

namespace json = boost::json;

TEST(SanitizeObject, DropsServerBookkeepingAndClocksButKeepsNamesAndSpec) {
  json::value object = json::parse(R"({
    "metadata": {"name": "c1", "namespace": "ns", "uid": "u-1", "resourceVersion": "42", "generation": 3,
                 "creationTimestamp": "2026-11-30T01:02:03Z", "managedFields": [{}],
                 "annotations": {"nvcre.nvidia.com/workflow-uid": "u-9", "keep": "me"},
                 "ownerReferences": [{"kind": "Certification", "name": "c1", "uid": "u-0", "controller": true}]},
    "spec": {"nodesPerJob": 4},
    "status": {"conditions": [{"type": "Succeeded", "status": "True", "lastTransitionTime": "2026-11-30T01:02:04Z"}],
               "startTime": "2026-11-30T01:02:05Z", "workflowRef": {"name": "w", "uid": "u-2"}}})");
  json::value expected = json::parse(R"({
    "metadata": {"name": "c1", "namespace": "ns",
                 "annotations": {"nvcre.nvidia.com/workflow-uid": "<uid>", "keep": "me"},
                 "ownerReferences": [{"kind": "Certification", "name": "c1", "controller": true}]},
    "spec": {"nodesPerJob": 4},
    "status": {"conditions": [{"type": "Succeeded", "status": "True", "lastTransitionTime": "<time>"}],
               "startTime": "<time>", "workflowRef": {"name": "w"}}})");
  EXPECT_EQ(sanitize_object(object), expected) << json::serialize(sanitize_object(object));
}

}  // namespace
}  // namespace nvcre::testing
