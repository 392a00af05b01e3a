#pragma once
// `nvcrectl mcp serve`: the MCP server (cli/mcp_server.hpp) on stdio: one JSON-RPC message per
// line in, one per line out, until stdin closes. Nothing but protocol messages goes to stdout;
// anything said to a person goes to stderr. The cluster is reached lazily through the kubectl
// connection flags, so list_categories works without one.
#include "cli/connection_flags.hpp"

#include <iosfwd>

namespace CLI {
class App;
}

namespace nvcre::cli {

struct McpServeOptions {
  ConnectionFlags connection;
};

// Registers `mcp serve` under `app`; returns the `serve` command.
CLI::App* add_mcp_commands(CLI::App& app, McpServeOptions& options);

// Serves until `in` ends; returns the exit code.
int run_mcp_serve(const McpServeOptions& options, std::istream& in, std::ostream& out,
                  std::ostream& err);

}  // namespace nvcre::cli
