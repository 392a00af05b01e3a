#include "cli/mcp_server.hpp"

#include "catalog/catalog.hpp"
#include "jsonkit/paths.hpp"
#include "report/model.hpp"
#include "report/text.hpp"

#include <boost/json.hpp>

#include <map>
#include <set>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;

namespace {

// The MCP revision this server speaks; a client asking for another gets this one back and decides.
constexpr std::string_view kProtocolVersion = "2025-06-18";

// A bad call the client can fix: answered as a JSON-RPC error, not as a tool result.
struct RpcError : std::runtime_error {
  RpcError(int code_value, const std::string& message)
      : std::runtime_error(message), code(code_value) {}
  int code;
};

json::object reply(const json::value& id, json::value result) {
  return json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json::object error_reply(const json::value& id, int code, const std::string& message) {
  return json::object{{"jsonrpc", "2.0"},
                      {"id", id},
                      {"error", json::object{{"code", code}, {"message", message}}}};
}

json::object name_schema(bool with_format) {
  json::object properties{
      {"name", json::object{{"type", "string"}, {"description", "Certification name"}}},
      {"namespace",
       json::object{{"type", "string"},
                    {"description", "Namespace (default: the server's --namespace / context)"}}}};
  if (with_format) {
    properties["format"] =
        json::object{{"type", "string"},
                     {"enum", json::array{"json", "text"}},
                     {"description", "json (the report model, default) or text (the CLI layout)"}};
  }
  return json::object{
      {"type", "object"}, {"properties", std::move(properties)}, {"required", json::array{"name"}}};
}

json::object tool(std::string_view name, std::string_view title, std::string_view description,
                  json::object schema) {
  return json::object{
      {"name", name},
      {"title", title},
      {"description", description},
      {"inputSchema", std::move(schema)},
      {"annotations", json::object{{"readOnlyHint", true}, {"openWorldHint", false}}}};
}

std::string string_argument(const json::object& arguments, std::string_view key,
                            const std::string& tool_name, bool required) {
  const json::value* value = arguments.if_contains(key);
  if (value == nullptr || (value->is_string() && value->get_string().empty())) {
    if (required)
      throw RpcError(kInvalidParams,
                     tool_name + ": arguments." + std::string(key) + " (string) is required");
    return {};
  }
  if (!value->is_string())
    throw RpcError(kInvalidParams,
                   tool_name + ": arguments." + std::string(key) + " must be a string");
  return std::string(value->get_string());
}

std::string string_at(const json::value& value, std::initializer_list<std::string_view> path) {
  const json::value* found = jsonkit::value_at(value, path);
  return found != nullptr && found->is_string() ? std::string(found->get_string()) : "";
}

json::array conditions_of(const json::value& certification) {
  json::array out;
  const json::value* conditions = jsonkit::value_at(certification, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return out;
  for (const auto& condition : conditions->get_array()) {
    json::object row;
    for (const char* key : {"type", "status", "reason", "message"})
      row[key] = string_at(condition, {key});
    out.push_back(std::move(row));
  }
  return out;
}

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& item : items) out.emplace_back(item);
  return out;
}

// ConfigMap name -> "domain/variant", from the categories' and the Workflows' failedNodesRef.
std::map<std::string, std::string> configmap_categories(const report::ReportObjects& objects) {
  std::map<std::string, std::string> out;
  const json::value* statuses =
      jsonkit::value_at(objects.certification, {"status", "categoryStatuses"});
  if (statuses != nullptr && statuses->is_array())
    for (const auto& status : statuses->get_array())
      if (auto name = string_at(status, {"failedNodesRef", "name"}); !name.empty())
        out[name] = string_at(status, {"domain"}) + "/" + string_at(status, {"variant"});
  for (const auto& workflow : objects.workflows) {
    const std::string name = string_at(workflow, {"status", "failedNodesRef", "name"});
    if (name.empty() || out.count(name)) continue;
    const json::value* labels = jsonkit::value_at(workflow, {"metadata", "labels"});
    if (labels == nullptr || !labels->is_object()) continue;
    out[name] = string_at(*labels, {"nvcre.nvidia.com/category-domain"}) + "/" +
                string_at(*labels, {"nvcre.nvidia.com/category-variant"});
  }
  return out;
}

json::object failed_node_rows(const report::ReportObjects& objects, const std::string& name,
                              const std::string& ns) {
  const auto categories = configmap_categories(objects);
  // One row per node and reason; the categories it failed that way are listed on the row.
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::set<std::string>>> rows;
  for (const auto& [configmap, entries] : objects.failed_nodes) {
    auto category = categories.find(configmap);
    for (const auto& entry : entries) {
      auto& row = rows[{entry.name, entry.reason}];
      if (row.first.empty()) row.first = entry.message;
      if (category != categories.end()) row.second.insert(category->second);
    }
  }
  json::array nodes;
  for (const auto& [key, row] : rows) {
    nodes.push_back(json::object{
        {"node", key.first},
        {"reason", key.second},
        {"message", row.first},
        {"categories", strings(std::vector<std::string>(row.second.begin(), row.second.end()))}});
  }
  return json::object{{"name", name}, {"namespace", ns}, {"nodes", std::move(nodes)}};
}

json::object status_of(const report::ReportObjects& objects, const report::CertificationReport& r,
                       const std::string& ns) {
  json::array categories;
  for (const auto& category : r.categories) {
    json::object row{
        {"domain", category.domain}, {"variant", category.variant}, {"status", category.status}};
    if (!category.failure_reason.empty()) row["failureReason"] = category.failure_reason;
    categories.push_back(std::move(row));
  }
  return json::object{{"name", r.name},
                      {"namespace", ns},
                      {"result", r.result},
                      {"conditions", conditions_of(objects.certification)},
                      {"categories", std::move(categories)},
                      {"excludedNodes", strings(r.excluded_nodes)},
                      {"failedNodes", strings(r.failed_nodes)}};
}

// A tool's answer: the structured result, and the same JSON as text for clients without
// structured content (or the text layout when that was asked for).
json::object tool_result(json::value structured, const std::string& text) {
  return json::object{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}},
                      {"structuredContent", std::move(structured)},
                      {"isError", false}};
}

}  // namespace

McpServer::McpServer(ReportFetcher fetch, std::string default_namespace, std::string version,
                     std::function<k8s::Clock::time_point()> now)
    : fetch_(std::move(fetch)),
      default_namespace_(std::move(default_namespace)),
      version_(std::move(version)),
      now_(std::move(now)) {}

json::value McpServer::tool_list() {
  return json::array{
      tool("list_categories", "List certification categories",
           "The catalog's categories (domain/variant) a Certification can run.",
           json::object{{"type", "object"}, {"properties", json::object{}}}),
      tool("get_certification_status", "Certification status",
           "Overall result (PASSED, INCOMPLETE, FAILED, RUNNING), conditions, per-category "
           "status, excluded nodes and the names of failed nodes.",
           name_schema(false)),
      tool("get_certification_report", "Certification report",
           "The full report `nvcrectl certification report` prints: categories, failed groups, "
           "bandwidth, training metrics, node results.",
           name_schema(true)),
      tool("list_failed_nodes", "Failed nodes",
           "One row per failed node and reason, with the categories it failed in.",
           name_schema(false))};
}

json::value McpServer::run_tool(const std::string& name, const json::object& arguments) {
  if (name == "list_categories") {
    json::array categories;
    for (const auto& key : catalog::Catalog::builtin().list())
      categories.push_back(json::object{{"domain", key.domain}, {"variant", key.variant}});
    json::value structured = json::object{{"categories", std::move(categories)}};
    return tool_result(structured, json::serialize(structured));
  }
  if (name != "get_certification_status" && name != "get_certification_report" &&
      name != "list_failed_nodes")
    throw RpcError(kInvalidParams, "unknown tool \"" + name + "\"");
  const std::string certification = string_argument(arguments, "name", name, true);
  std::string ns = string_argument(arguments, "namespace", name, false);
  if (ns.empty()) ns = default_namespace_;
  const std::string format = string_argument(arguments, "format", name, false);
  if (!format.empty() && format != "json" && format != "text")
    throw RpcError(kInvalidParams, name + ": arguments.format must be json or text");

  const report::ReportObjects objects = fetch_(ns, certification);
  if (name == "list_failed_nodes") {
    json::value rows = failed_node_rows(objects, certification, ns);
    return tool_result(rows, json::serialize(rows));
  }
  const auto built = report::build_certification_report(objects, now_());
  if (name == "get_certification_status") {
    json::value status = status_of(objects, built, ns);
    return tool_result(status, json::serialize(status));
  }
  json::value full = report::to_json(built);
  return tool_result(full, format == "text" ? report::render_text({built}) : json::serialize(full));
}

json::value McpServer::call_tool(const json::value& params) {
  const auto* object = params.if_object();
  const json::value* name = object ? object->if_contains("name") : nullptr;
  if (name == nullptr || !name->is_string())
    throw RpcError(kInvalidParams, "tools/call: params.name (string) is required");
  static const json::object kNoArguments;
  const json::value* arguments = object->if_contains("arguments");
  if (arguments != nullptr && !arguments->is_object() && !arguments->is_null())
    throw RpcError(kInvalidParams, "tools/call: params.arguments must be an object");
  const json::object& args =
      arguments != nullptr && arguments->is_object() ? arguments->get_object() : kNoArguments;
  try {
    return run_tool(std::string(name->get_string()), args);
  } catch (const RpcError&) {
    throw;
  } catch (const std::exception& error) {
    // The tool ran and failed (not found, cluster unreachable): a result the model can read.
    return json::object{
        {"content", json::array{json::object{{"type", "text"}, {"text", error.what()}}}},
        {"isError", true}};
  }
}

std::optional<json::value> McpServer::handle(const json::value& message) {
  const auto* object = message.if_object();
  const json::value* id = object ? object->if_contains("id") : nullptr;
  const json::value* method = object ? object->if_contains("method") : nullptr;
  const json::value reply_id = id != nullptr ? *id : json::value(nullptr);
  if (object == nullptr || method == nullptr || !method->is_string() ||
      string_at(message, {"jsonrpc"}) != "2.0")
    return error_reply(reply_id, kInvalidRequest,
                       "invalid request: a JSON-RPC 2.0 object with a method is expected");
  if (id == nullptr) return std::nullopt;  // a notification (notifications/initialized, ...)
  const std::string name(method->get_string());
  const json::value params = object->contains("params") ? object->at("params") : json::value();
  try {
    if (name == "initialize") {
      return reply(*id, json::object{{"protocolVersion", kProtocolVersion},
                                     {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                     {"serverInfo", {{"name", "nvcrectl"}, {"version", version_}}},
                                     {"instructions",
                                      "Read-only access to nvcre Certifications in the cluster of "
                                      "the caller's kubeconfig."}});
    }
    if (name == "ping") return reply(*id, json::object{});
    if (name == "tools/list") return reply(*id, json::object{{"tools", tool_list()}});
    if (name == "tools/call") return reply(*id, call_tool(params));
  } catch (const RpcError& error) {
    return error_reply(*id, error.code, error.what());
  }
  return error_reply(*id, kMethodNotFound, "method not found: " + name);
}

std::optional<json::value> McpServer::handle_line(const std::string& line) {
  boost::system::error_code error;
  json::value message = json::parse(line, error);
  if (error) return error_reply(nullptr, kParseError, "parse error: " + error.message());
  return handle(message);
}

}  // namespace nvcre::cli
