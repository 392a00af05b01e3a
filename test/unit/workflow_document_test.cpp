// read_workflow: the placement fields the typed model does not describe are read into
// WorkflowExtras without copying the object, and every other unknown field is still an error.
#include "workflow/workflow_document.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::workflow {
namespace {

namespace json = boost::json;

json::value workflow_with(std::string_view spec_extra, std::string_view override_extra,
                          std::string_view status_extra) {
  return json::parse(std::string(R"({"apiVersion":"nvcre.nvidia.com/v1alpha1","kind":"Workflow",
    "metadata":{"name":"demo","namespace":"gpu","uid":"u-1","generation":1},
    "spec":{"jobTemplate":{"spec":{"workload":{"trainJob":{"trainer":{"numNodes":2}}}}},
            "orchestration":{"iterations":2)") +
                     std::string(spec_extra) + R"(},
            "overrides":[{"when":{}},{"when":{},"orchestration":{"iterations":1)" +
                     std::string(override_extra) + R"(}}]},
    "status":{"orchestration":{"totalNodes":4,"nodesPerJob":2,"totalGroups":2)" +
                     std::string(status_extra) + "}}}");
}

TEST(WorkflowDocument, ReadsThePlacementFieldsTheModelLeavesOut) {
  const json::value object =
      workflow_with(R"(,"placement":"Unpinned")", R"(,"placement":"Pinned")",
                    R"(,"gpuProducts":["NVIDIA-H100-80GB-HBM3"],"placement":"Unpinned")");
  const WorkflowDocument doc = read_workflow(object);
  EXPECT_EQ(doc.extras.placement, "Unpinned");
  EXPECT_EQ(doc.extras.override_placements, (std::map<std::size_t, std::string>{{1, "Pinned"}}));
  EXPECT_EQ(doc.extras.gpu_products, std::vector<std::string>{"NVIDIA-H100-80GB-HBM3"});
  EXPECT_EQ(doc.extras.status_placement, "Unpinned");
  EXPECT_EQ(doc.workflow.spec.orchestration.iterations, 2);
  ASSERT_TRUE(doc.workflow.status && doc.workflow.status->orchestration);
  EXPECT_EQ(doc.workflow.status->orchestration->totalNodes, 4);
  // The status as read keeps the extras, so a pass that changes nothing writes nothing.
  EXPECT_EQ(doc.status_json, object.at("status"));
}

TEST(WorkflowDocument, AnyOtherUnknownFieldIsStillReported) {
  const json::value object = workflow_with(R"(,"placementt":"Unpinned")", R"(,"gpuProducts":[])",
                                           R"(,"placement":"Unpinned","products":[])");
  try {
    read_workflow(object);
    FAIL() << "expected DecodeError";
  } catch (const api::DecodeError& error) {
    std::vector<std::string> fields;
    for (const auto& problem : error.problems()) fields.push_back(problem.field);
    EXPECT_EQ(fields, (std::vector<std::string>{"spec.orchestration.placementt",
                                                "spec.overrides[1].orchestration.gpuProducts",
                                                "status.orchestration.products"}))
        << error.what();
  }
}

}  // namespace
}  // namespace nvcre::workflow
