#include "workflow/node_results.hpp"
#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"

#include "api/codec.hpp"
#include "k8s/kubeconfig.hpp"
#include "workflow/dependency_plan.hpp"
#include "workflow/group_launch.hpp"
#include "workflow/node_discovery.hpp"

#include <boost/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace nvcre::workflow {
namespace json = boost::json;

std::string gzip(std::string_view data) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip wrapper with mtime 0, so equal input gives equal bytes.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw std::runtime_error("gzip: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) throw std::runtime_error("gzip: deflate failed");
  return out;
}

std::string gunzip(std::string_view data) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 32) != Z_OK)
    throw std::runtime_error("gunzip: inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buffer[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    rc = inflate(&stream, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&stream);
      throw std::runtime_error("gunzip: corrupt gzip data");
    }
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      throw std::runtime_error("gunzip: truncated gzip data");
    }
  }
  inflateEnd(&stream);
  return out;
}

std::string base64_encode(std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(data[i]) << 16) |
                       (static_cast<unsigned char>(data[i + 1]) << 8) |
                       static_cast<unsigned char>(data[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 0x3F];
  }
  if (const std::size_t rest = data.size() - i; rest > 0) {
    unsigned v = static_cast<unsigned char>(data[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(data[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 0x3F];
    out += kAlphabet[(v >> 12) & 0x3F];
    out += rest == 2 ? kAlphabet[(v >> 6) & 0x3F] : '=';
    out += '=';
  }
  return out;
}

std::string succeeded_nodes_configmap_name(std::string_view workflow_uid) {
  return "succeeded-nodes-" + std::string(workflow_uid.substr(0, 8));
}

std::string failed_nodes_configmap_name(std::string_view workflow_uid) {
  return "failed-nodes-" + std::string(workflow_uid.substr(0, 8));
}

std::vector<api::FailedNode> merge_failed_nodes(const std::vector<api::FailedNode>& existing,
                                                const std::vector<api::FailedNode>& incoming) {
  std::vector<api::FailedNode> merged;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto* list : {&existing, &incoming}) {
    for (const auto& node : *list) {
      if (!node.name.empty() && seen.insert({node.name, node.reason}).second)
        merged.push_back(node);
    }
  }
  std::stable_sort(merged.begin(), merged.end(),
                   [](const api::FailedNode& a, const api::FailedNode& b) {
                     return a.name != b.name ? a.name < b.name : a.reason < b.reason;
                   });
  return merged;
}

namespace {

// The stored payload under `key`, decompressed ("" when absent).
std::string stored_payload(const json::value* configmap, std::string_view key) {
  if (configmap == nullptr || !configmap->is_object()) return {};
  const json::value* data = configmap->get_object().if_contains("binaryData");
  const json::value* entry =
      data == nullptr || !data->is_object() ? nullptr : data->get_object().if_contains(key);
  if (entry == nullptr || !entry->is_string()) return {};
  auto bytes = k8s::decode_base64(std::string(entry->get_string()));
  if (!bytes)
    throw std::runtime_error("node results ConfigMap entry " + std::string(key) + " is not base64");
  return bytes->empty() ? std::string() : gunzip(*bytes);
}

std::string merged_csv(const std::string& existing, const std::vector<std::string>& nodes) {
  std::set<std::string> names;
  auto add = [&](std::string name) {
    name.erase(0, name.find_first_not_of(" \t\n"));
    name.erase(name.find_last_not_of(" \t\n") + 1);
    if (!name.empty()) names.insert(std::move(name));
  };
  for (std::size_t start = 0; start <= existing.size() && !existing.empty();) {
    const std::size_t comma = existing.find(',', start);
    add(existing.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& n : nodes) add(n);
  return join({names.begin(), names.end()}, ",");
}

std::string merged_failed_json(const std::string& existing,
                               const std::vector<api::FailedNode>& incoming) {
  std::vector<api::FailedNode> stored;
  if (!existing.empty())
    stored = api::decode<std::vector<api::FailedNode>>(json::parse(existing), "failedNodes");
  return json::serialize(api::encode(merge_failed_nodes(stored, incoming)));
}

}  // namespace

std::optional<NodeResultWrite> node_results_write(NodeResultKind kind,
                                                  const api::Workflow& workflow,
                                                  const json::value* existing,
                                                  const std::vector<std::string>& succeeded,
                                                  const std::vector<api::FailedNode>& failed) {
  const bool is_succeeded = kind == NodeResultKind::Succeeded;
  if (is_succeeded ? succeeded.empty() : failed.empty()) return std::nullopt;
  const std::string_view key = is_succeeded ? kSucceededNodesKey : kFailedNodesKey;
  const std::string name = is_succeeded ? succeeded_nodes_configmap_name(workflow.metadata.uid)
                                        : failed_nodes_configmap_name(workflow.metadata.uid);
  const std::string before = stored_payload(existing, key);
  const std::string after =
      is_succeeded ? merged_csv(before, succeeded) : merged_failed_json(before, failed);
  const bool owned = existing != nullptr && k8s::is_controlled_by(*existing, workflow.metadata.uid);
  if (existing != nullptr && !owned && k8s::controller_reference(*existing) != nullptr) {
    throw std::runtime_error("ConfigMap " + name + " is already controlled by another object");
  }
  if (existing != nullptr && owned && before == after) return std::nullopt;

  NodeResultWrite write;
  write.name = name;
  write.action.target = {"v1", "ConfigMap", workflow.metadata.namespace_, name};
  json::object body;
  if (existing != nullptr && existing->is_object()) {
    body = existing->get_object();
    write.action.verb = k8s::ActionVerb::Update;
  } else {
    body = json::object{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", json::object{{"name", name}, {"namespace", workflow.metadata.namespace_}}}};
    write.action.verb = k8s::ActionVerb::Create;
  }
  json::value& metadata = body["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  if (!owned) {
    json::value& refs = metadata.get_object()["ownerReferences"];
    if (!refs.is_array()) refs = json::array();
    refs.get_array().push_back(workflow_owner_reference(workflow, true));
  }
  json::value& data = body["binaryData"];
  if (!data.is_object()) data = json::object();
  data.get_object()[key] = base64_encode(gzip(after));
  write.action.body = std::move(body);
  return write;
}

}  // namespace nvcre::workflow
