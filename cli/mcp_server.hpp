#pragma once
// `nvcrectl mcp serve`: a read-only Model Context Protocol server. This is its pure half: one
// JSON-RPC 2.0 message in, at most one message out (notifications get none). The tools read
// through a fetch function the command wires to the cluster (cli/report_command.hpp's
// fetch_report_objects) and build their answers with the report builder the CLI report uses, so an
// assistant and `nvcrectl certification report` never disagree.
//
// Methods: initialize, ping, tools/list, tools/call (list_categories, get_certification_status,
// get_certification_report, list_failed_nodes); notifications are accepted silently.
#include "k8s/rfc3339.hpp"
#include "report/build.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>

namespace nvcre::cli {

// Reads the objects of one Certification; throws std::runtime_error (`certification "<n>" not
// found in namespace "<ns>"`, connection failures) which the tool reports as a tool error.
using ReportFetcher =
    std::function<report::ReportObjects(const std::string& ns, const std::string& name)>;

// JSON-RPC error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;

class McpServer {
 public:
  McpServer(ReportFetcher fetch, std::string default_namespace, std::string version,
            std::function<k8s::Clock::time_point()> now);

  // One line of the stdio transport (a JSON-RPC message); the reply line's JSON, or nullopt for
  // a notification. A line that is not JSON answers a parse error with id null.
  std::optional<boost::json::value> handle_line(const std::string& line);
  std::optional<boost::json::value> handle(const boost::json::value& message);

  // The tool list (tools/list's result.tools).
  static boost::json::value tool_list();

 private:
  boost::json::value call_tool(const boost::json::value& params);
  boost::json::value run_tool(const std::string& name, const boost::json::object& arguments);

  ReportFetcher fetch_;
  std::string default_namespace_;
  std::string version_;
  std::function<k8s::Clock::time_point()> now_;
};

}  // namespace nvcre::cli
