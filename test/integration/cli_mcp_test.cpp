// `nvcrectl mcp serve` as an MCP client runs it: the real binary with JSON-RPC 2.0 lines piped to
// its stdin, against an embedded kube-sim with the real manager, after a Certification failed on a
// faulty node. Every request gets one reply line, in order, on stdout; the tools agree with
// `nvcrectl certification report -o json`.
#include "test/support/child_process.hpp"
#include "test/support/cli_workspace.hpp"
#include "test/support/embedded_manager.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/wait.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using nvcre::testing::kCertifications;

using nvcre::testing::read_text;

json::value call(int id, const std::string& tool, json::object arguments) {
  return json::object{{"jsonrpc", "2.0"},
                      {"id", id},
                      {"method", "tools/call"},
                      {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}};
}

class CliMcp : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void TearDown() override {
    EmbeddedManagerTest::TearDown();
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Pipes `lines` into `nvcrectl mcp serve`; its stdout lines, parsed.
  std::vector<json::value> serve(const std::vector<std::string>& lines, int& exit_code) {
    const fs::path in = dir_ / "requests", out = dir_ / "stdout", err = dir_ / "stderr";
    std::ofstream requests(in);
    for (const auto& line : lines) requests << line << "\n";
    requests.close();
    const std::string command = "cat " + in.string() + " | " + std::string(NVCRECTL_BINARY) +
                                " mcp serve -n it --kubeconfig " + (dir_ / "kubeconfig").string() +
                                " >" + out.string() + " 2>" + err.string();
    const int status = std::system(command.c_str());
    exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::vector<json::value> replies;
    std::istringstream text(read_text(out));
    for (std::string line; std::getline(text, line);) replies.push_back(json::parse(line));
    return replies;
  }

  std::string report_json(const std::string& name) {
    const fs::path out = dir_ / "report";
    const std::string command = std::string(NVCRECTL_BINARY) + " certification report " + name +
                                " -n it -o json --kubeconfig " + (dir_ / "kubeconfig").string() +
                                " >" + out.string() + " 2>/dev/null";
    std::system(command.c_str());
    return read_text(out);
  }

  fs::path dir_;
};

TEST_F(CliMcp, ServesTheReadOnlyToolsOverStdio) {
  manager::EmbeddedClusterOptions options;
  options.faulty_nodes = {"gpu-node-02=XID 79: GPU has fallen off the bus"};
  start(options);
  std::random_device random;
  dir_ = fs::temp_directory_path() / ("nvcre-cli-mcp-" + std::to_string(random()));
  fs::create_directories(dir_);
  nvcre::testing::write_sim_kubeconfig((dir_ / "kubeconfig").string(), cluster_->sim().url());
  client_->create(kCertifications, "it",
                  json::parse(R"({"apiVersion":"nvcre.nvidia.com/v1alpha1","kind":"Certification",
        "metadata":{"name":"faulty","namespace":"it"},
        "spec":{"target":{"nodeSelector":{"nvidia.com/gpu.present":"true"}},
                "categories":[{"domain":"communication","variant":"nccl-all-reduce",
                               "options":{"nodesPerJob":4}}]}})"));
  ASSERT_EQ(wait_for_verdict("faulty").type, "Failed");

  const std::vector<std::string> lines = {
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})",
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
      R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
      json::serialize(call(3, "list_categories", {})),
      json::serialize(call(4, "get_certification_status", {{"name", "faulty"}})),
      json::serialize(call(5, "get_certification_report", {{"name", "faulty"}})),
      json::serialize(call(6, "list_failed_nodes", {{"name", "faulty"}})),
      json::serialize(call(7, "get_certification_status", {{"name", "missing"}})),
      json::serialize(call(8, "delete_certification", {{"name", "faulty"}})),
      "{not json",
      R"({"jsonrpc":"2.0","id":9,"method":"resources/list"})"};
  int exit_code = -1;
  const auto replies = serve(lines, exit_code);
  EXPECT_EQ(exit_code, 0);
  ASSERT_EQ(replies.size(), 10u) << "one reply per request, none for the notification";
  const json::value expected_ids[] = {1, 2, 3, 4, 5, 6, 7, 8, nullptr, 9};
  for (std::size_t i = 0; i < replies.size(); ++i) {
    EXPECT_EQ(replies[i].at("jsonrpc"), "2.0");
    EXPECT_EQ(replies[i].at("id"), expected_ids[i]) << json::serialize(replies[i]);
  }

  EXPECT_EQ(replies[0].at("result").at("serverInfo").at("name"), "nvcrectl");
  EXPECT_TRUE(replies[0].at("result").at("capabilities").as_object().contains("tools"));
  const auto& tools = replies[1].at("result").at("tools").as_array();
  ASSERT_EQ(tools.size(), 4u);
  for (const auto& tool : tools)
    EXPECT_EQ(tool.at("annotations").at("readOnlyHint"), true) << json::serialize(tool);

  const auto& categories = replies[2].at("result").at("structuredContent").at("categories");
  EXPECT_NE(std::find(categories.as_array().begin(), categories.as_array().end(),
                      json::value{{"domain", "communication"}, {"variant", "nccl-all-reduce"}}),
            categories.as_array().end());

  const auto& status = replies[3].at("result").at("structuredContent");
  EXPECT_EQ(status.at("result"), "FAILED");
  EXPECT_EQ(status.at("categories").at(0).at("status"), "Failed");
  const auto& failed = status.at("failedNodes").as_array();
  EXPECT_NE(std::find(failed.begin(), failed.end(), json::value("gpu-node-02")), failed.end());
  EXPECT_FALSE(status.at("conditions").as_array().empty());

  // The same builder as the CLI report: the same document.
  const auto& report = replies[4].at("result");
  EXPECT_EQ(report.at("structuredContent"), json::parse(report_json("faulty")));
  EXPECT_EQ(json::parse(report.at("content").at(0).at("text").as_string()),
            report.at("structuredContent"));

  const auto& rows = replies[5].at("result").at("structuredContent").at("nodes").as_array();
  ASSERT_FALSE(rows.empty());
  bool faulty_row = false;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("categories"), json::array{"communication/nccl-all-reduce"});
    faulty_row |= row.at("node") == "gpu-node-02";
  }
  EXPECT_TRUE(faulty_row) << json::serialize(rows);

  EXPECT_EQ(replies[6].at("result").at("isError"), true);
  EXPECT_NE(std::string(replies[6].at("result").at("content").at(0).at("text").as_string())
                .find("certification \"missing\" not found in namespace \"it\""),
            std::string::npos);
  EXPECT_EQ(replies[7].at("error").at("code"), -32602);
  EXPECT_EQ(replies[8].at("error").at("code"), -32700);
  EXPECT_EQ(replies[9].at("error").at("code"), -32601);
  EXPECT_EQ(client_->list(kCertifications, "it").at("items").as_array().size(), 1u) << "read-only";
}

}  // namespace
}  // namespace nvcre::actors
