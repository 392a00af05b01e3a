#include "cli/mcp_command.hpp"

#include "cli/completion.hpp"
#include "cli/mcp_server.hpp"
#include "cli/report_command.hpp"
#include "cli/version.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <istream>
#include <memory>
#include <ostream>
#include <stdexcept>

namespace nvcre::cli {

CLI::App* add_mcp_commands(CLI::App& app, McpServeOptions& options) {
  auto* mcp_cmd = app.add_subcommand("mcp", "Model Context Protocol server for AI assistants");
  mcp_cmd->require_subcommand(1);
  auto* serve_cmd = mcp_cmd->add_subcommand(
      "serve", "Serve read-only Certification tools over MCP on stdin/stdout (JSON-RPC 2.0)");
  add_connection_flags(*serve_cmd, options.connection,
                       "Namespace the tools use when a call names none (default: the kubeconfig "
                       "context's namespace, else \"default\")");
  serve_cmd->footer(
      "Tools (all read-only): list_categories, get_certification_status,\n"
      "get_certification_report, list_failed_nodes. The cluster is the caller's kubeconfig\n"
      "(--kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster).\n\n"
      "Example (an MCP client's server entry):\n"
      "  {\"command\": \"nvcrectl\", \"args\": [\"mcp\", \"serve\", \"--context\", \"lab\"]}");
  return serve_cmd;
}

int run_mcp_serve(const McpServeOptions& options, std::istream& in, std::ostream& out,
                  std::ostream& err) {
  std::unique_ptr<k8s::RestClient> client;
  // The first call that needs the cluster connects; a bad kubeconfig fails that call, not the
  // server (the catalog still answers).
  const auto ensure_client = [&]() -> k8s::RestClient& {
    if (!client) client = connect(options.connection);
    return *client;
  };
  const auto fetch = [&](const std::string& ns, const std::string& name) {
    auto& rest = ensure_client();
    try {
      return fetch_report_objects(rest, ns, name);
    } catch (const k8s::TransportError& error) {
      throw std::runtime_error(describe_connection_failure(rest.config(), error.what()));
    }
  };
  std::string fallback_namespace = options.connection.overrides.ns;
  if (fallback_namespace.empty()) {
    try {
      fallback_namespace = ensure_client().config().ns;
    } catch (const std::exception& error) {
      err << "nvcrectl mcp serve: no cluster yet (" << error.what() << ")\n";
    }
  }
  if (fallback_namespace.empty()) fallback_namespace = "default";
  McpServer server(fetch, fallback_namespace, kVersion, [] { return k8s::Clock::now(); });
  err << "nvcrectl mcp serve: " << version_line() << ", reading JSON-RPC from stdin\n";
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (auto answer = server.handle_line(line)) {
      out << boost::json::serialize(*answer) << "\n";
      out.flush();
    }
  }
  return 0;
}

}  // namespace nvcre::cli
