#include "report/model.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

namespace nvcre::report {
namespace json = boost::json;
namespace {

// Go's omitempty: empty strings, zero numbers, false and empty lists are left out.
void put(json::object& out, std::string_view key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}
void put(json::object& out, std::string_view key, std::int64_t value) {
  if (value != 0) out[key] = value;
}
void put(json::object& out, std::string_view key, const std::vector<std::string>& values) {
  if (!values.empty()) out[key] = json::value_from(values);
}

template <class Row, class Encode>
void put_rows(json::object& out, std::string_view key, const std::vector<Row>& rows,
              Encode encode) {
  if (rows.empty()) return;
  json::array array;
  for (const auto& row : rows) array.push_back(encode(row));
  out[key] = std::move(array);
}

json::value failed_group_json(const FailedGroup& group) {
  json::object out{{"name", group.name}, {"nodeCount", group.node_count}};
  put(out, "nodes", group.nodes);
  out["reason"] = group.reason;
  if (group.failure_log) {
    const auto& log = *group.failure_log;
    json::object log_json{{"podName", log.pod_name}, {"nodeName", log.node_name}};
    put(log_json, "exitCode", std::int64_t{log.exit_code});
    put(log_json, "reason", log.reason);
    put(log_json, "tail", log.tail);
    out["failureLog"] = std::move(log_json);
  }
  return out;
}

json::value group_bandwidth_json(const GroupBandwidthRow& row) {
  json::object out{{"group", row.group},
                   {"groupName", row.label},
                   {"nodes", json::value_from(row.nodes)},
                   {"busBW", row.bus_bw}};
  put(out, "transport", row.transport);
  out["belowMin"] = row.below_min;
  out["failed"] = row.failed;
  if (row.provisional) {
    out["provisional"] = true;
    put(out, "provisionalReason", row.provisional_reason);
  }
  return out;
}

json::value bandwidth_json(const BandwidthRow& row) {
  json::object out{
      {"size", row.size}, {"algBW", row.alg_bw}, {"busBW", row.bus_bw}, {"samples", row.samples}};
  if (row.provisional) {
    out["provisional"] = true;
    put(out, "provisionalReason", row.provisional_reason);
  }
  return out;
}

}  // namespace

json::value to_json(const CategoryReport& category) {
  json::object out{
      {"domain", category.domain}, {"variant", category.variant}, {"status", category.status}};
  put(out, "failureReason", category.failure_reason);
  put(out, "runtime", category.runtime);
  put(out, "testScale", category.test_scale);
  put(out, "nodesPerJob", category.nodes_per_job);
  put(out, "jobs", category.jobs);
  put(out, "mnnvl", category.mnnvl);
  put_rows(out, "failedGroups", category.failed_groups, failed_group_json);
  put_rows(out, "cliques", category.cliques, [](const CliqueRow& row) {
    return json::object{{"name", row.name},
                        {"total", row.total},
                        {"validated", row.validated},
                        {"passed", row.passed}};
  });
  put_rows(out, "domains", category.domains, [](const DomainMetrics& row) {
    return json::object{{"name", row.name},
                        {"nodeCount", row.node_count},
                        {"goodput", row.goodput},
                        {"tflops", row.tflops},
                        {"stepTime", row.step_time}};
  });
  put(out, "transport", category.transport);
  put_rows(out, "bandwidth", category.bandwidth, bandwidth_json);
  put_rows(out, "groupBandwidth", category.group_bandwidth, group_bandwidth_json);
  put_rows(out, "iterations", category.iterations, [](const IterationRow& row) {
    return json::object{{"number", row.number}, {"status", row.status}, {"duration", row.duration}};
  });
  return out;
}

json::value to_json(const CertificationReport& report) {
  json::object out;
  put(out, "title", report.title);
  out["name"] = report.name;
  out["platform"] = report.platform;
  out["gpu"] = report.gpu;
  out["totalNodes"] = report.total_nodes;
  put(out, "excludedNodes", report.excluded_nodes);
  put(out, "exclusionReason", report.exclusion_reason);
  json::array categories;
  for (const auto& category : report.categories) categories.push_back(to_json(category));
  out["categories"] = std::move(categories);
  out["failedNodes"] =
      report.failed_nodes.empty() ? json::value(nullptr) : json::value_from(report.failed_nodes);
  out["result"] = report.result;
  put_rows(out, "nodeResults", report.node_results, [](const NodeResultRow& row) {
    json::object node{{"name", row.name}, {"group", row.group}};
    put(node, "rack", row.rack);
    node["status"] = row.status;
    return node;
  });
  return out;
}

std::string results_json(const std::vector<CertificationReport>& reports) {
  if (reports.size() == 1) return jsonkit::to_pretty_json(to_json(reports.front()));
  json::array array;
  for (const auto& report : reports) array.push_back(to_json(report));
  return jsonkit::to_pretty_json(array);
}

}  // namespace nvcre::report
