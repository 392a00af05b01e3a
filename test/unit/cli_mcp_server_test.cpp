// The MCP server's protocol half (cli/mcp_server.hpp) with a recorded fetcher: JSON-RPC framing
// (notifications, invalid requests, unknown methods and tools, bad arguments), tool errors as
// results, and the tools' answers built from recorded objects. The stdio command against a real
// cluster is test/integration/cli_mcp_test.cpp.
#include "cli/mcp_server.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::cli {
namespace {

namespace json = boost::json;

report::ReportObjects recorded() {
  report::ReportObjects objects;
  objects.certification = json::parse(R"({
    "apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Certification",
    "metadata": {"name": "c1", "namespace": "lab"},
    "spec": {"target": {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
             "categories": [{"domain": "communication", "variant": "nccl-all-reduce"}]},
    "status": {
      "conditions": [{"type": "Failed", "status": "True", "reason": "CategoryFailed",
                      "message": "1 category failed", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
      "categoryStatuses": [{"domain": "communication", "variant": "nccl-all-reduce",
                            "status": "Failed", "failedNodesRef": {"name": "cm-failed"}}]}})");
  objects.failed_nodes["cm-failed"] = {{"n2", "JobFailed", "XID 79"},
                                       {"n2", "JobFailed", "XID 79 again"},
                                       {"n1", "HealthCheckFailed", "cordoned"}};
  return objects;
}

class McpServerTest : public ::testing::Test {
 protected:
  McpServer server{[this](const std::string& ns, const std::string& name) {
                     asked.push_back(ns + "/" + name);
                     if (name != "c1")
                       throw std::runtime_error("certification \"" + name +
                                                "\" not found in namespace \"" + ns + "\"");
                     return recorded();
                   },
                   "lab", "0.1.0", [] { return k8s::Clock::time_point{}; }};
  std::vector<std::string> asked;

  json::value request(const std::string& line) {
    auto answer = server.handle_line(line);
    EXPECT_TRUE(answer.has_value()) << line;
    return answer ? *answer : json::value();
  }
  json::value call(const std::string& tool, const std::string& arguments) {
    return request(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":")" + tool +
                   R"(","arguments":)" + arguments + "}}");
  }
};

TEST_F(McpServerTest, InitializeAnswersWithToolsCapabilityAndVersion) {
  const auto answer = request(R"({"jsonrpc":"2.0","id":"a","method":"initialize","params":{}})");
  EXPECT_EQ(answer.at("id"), "a");
  EXPECT_EQ(answer.at("result").at("serverInfo").at("version"), "0.1.0");
  EXPECT_FALSE(answer.at("result").at("protocolVersion").as_string().empty());
  EXPECT_EQ(answer.at("result").at("capabilities").at("tools").at("listChanged"), false);
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_EQ(request(R"({"jsonrpc":"2.0","id":2,"method":"ping"})").at("result"), json::object{});
}

TEST_F(McpServerTest, FramingErrorsUseJsonRpcCodes) {
  EXPECT_EQ(request("[1,").at("error").at("code"), kParseError);
  EXPECT_TRUE(request("[1,").at("id").is_null());
  EXPECT_EQ(request(R"({"id":1,"method":"ping"})").at("error").at("code"), kInvalidRequest);
  EXPECT_EQ(request(R"({"jsonrpc":"2.0","id":1,"method":"tools/delete"})").at("error").at("code"),
            kMethodNotFound);
  EXPECT_EQ(call("drop_table", "{}").at("error").at("code"), kInvalidParams);
  const auto no_name = call("get_certification_status", "{}");
  EXPECT_EQ(no_name.at("error").at("code"), kInvalidParams);
  EXPECT_EQ(no_name.at("error").at("message"),
            "get_certification_status: arguments.name (string) is required");
  EXPECT_EQ(
      call("get_certification_report", R"({"name":"c1","format":"xml"})").at("error").at("code"),
      kInvalidParams);
  EXPECT_TRUE(asked.empty()) << "nothing fetched for a bad call";
}

TEST_F(McpServerTest, AFailedFetchIsAToolErrorTheModelCanRead) {
  const auto answer = call("get_certification_status", R"({"name":"nope","namespace":"x"})");
  EXPECT_EQ(answer.at("result").at("isError"), true);
  EXPECT_EQ(answer.at("result").at("content").at(0).at("text"),
            "certification \"nope\" not found in namespace \"x\"");
  EXPECT_EQ(asked, std::vector<std::string>{"x/nope"});
}

TEST_F(McpServerTest, StatusComesFromTheReportBuilder) {
  const auto answer = call("get_certification_status", R"({"name":"c1"})");
  ASSERT_EQ(answer.at("result").at("isError"), false) << json::serialize(answer);
  const auto& status = answer.at("result").at("structuredContent");
  EXPECT_EQ(asked, std::vector<std::string>{"lab/c1"}) << "the default namespace";
  EXPECT_EQ(status.at("namespace"), "lab");
  EXPECT_EQ(status.at("result"), "FAILED");
  EXPECT_EQ(status.at("conditions").at(0).at("reason"), "CategoryFailed");
  EXPECT_EQ(status.at("categories").at(0).at("status"), "Failed");
  EXPECT_EQ(status.at("failedNodes"), (json::array{"n1", "n2"}));
  EXPECT_EQ(json::parse(answer.at("result").at("content").at(0).at("text").as_string()), status);
}

TEST_F(McpServerTest, FailedNodesAreOneRowPerNodeAndReason) {
  const auto answer = call("list_failed_nodes", R"({"name":"c1"})");
  const auto& nodes = answer.at("result").at("structuredContent").at("nodes").as_array();
  ASSERT_EQ(nodes.size(), 2u) << json::serialize(nodes);
  EXPECT_EQ(nodes[0].at("node"), "n1");
  EXPECT_EQ(nodes[1].at("node"), "n2");
  EXPECT_EQ(nodes[1].at("message"), "XID 79");
  EXPECT_EQ(nodes[1].at("categories"), json::array{"communication/nccl-all-reduce"});
}

TEST_F(McpServerTest, ToolsAreAllReadOnly) {
  const auto tools = McpServer::tool_list().as_array();
  ASSERT_EQ(tools.size(), 4u);
  for (const auto& tool : tools) {
    EXPECT_EQ(tool.at("annotations").at("readOnlyHint"), true);
    EXPECT_EQ(tool.at("inputSchema").at("type"), "object");
  }
}

}  // namespace
}  // namespace nvcre::cli
