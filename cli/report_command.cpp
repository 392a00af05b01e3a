#include "cli/report_command.hpp"

#include "api/codec.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "report/html.hpp"
#include "report/junit.hpp"
#include "report/text.hpp"
#include "workflow/node_results.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <ostream>
#include <set>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;
namespace {

const k8s::ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications", true};
const k8s::ResourceRef kWorkflows{"nvcre.nvidia.com", "v1alpha1", "workflows", true};
const k8s::ResourceRef kJobs{"nvcre.nvidia.com", "v1alpha1", "jobs", true};
const k8s::ResourceRef kBandwidthMeasurements{"nvcre.nvidia.com", "v1alpha1",
                                              "bandwidthmeasurements", true};
const k8s::ResourceRef kGoodputMeasurements{"nvcre.nvidia.com", "v1alpha1", "goodputmeasurements",
                                            true};
const k8s::ResourceRef kConfigMaps{"", "v1", "configmaps", true};

std::vector<json::value> items_of(k8s::RestClient& client, const k8s::ResourceRef& resource,
                                  const std::string& ns) {
  json::value list = client.list(resource, ns);
  std::vector<json::value> out;
  if (const auto* items = list.as_object().if_contains("items"); items && items->is_array())
    for (auto& item : items->as_array()) out.push_back(std::move(item));
  return out;
}

// The node-result ConfigMaps (`ref`: failedNodesRef or succeededNodesRef) the Certification's
// categories and Workflows name.
std::set<std::string> node_result_refs(const report::ReportObjects& objects, const char* ref) {
  std::set<std::string> names;
  const auto add = [&](const json::value* ref) {
    if (ref != nullptr && ref->is_object())
      if (const auto* name = ref->as_object().if_contains("name"); name && name->is_string())
        names.insert(std::string(name->as_string()));
  };
  const auto* statuses = jsonkit::value_at(objects.certification, {"status", "categoryStatuses"});
  if (statuses != nullptr && statuses->is_array())
    for (const auto& status : statuses->as_array()) add(jsonkit::value_at(status, {ref}));
  for (const auto& workflow : objects.workflows) add(jsonkit::value_at(workflow, {"status", ref}));
  return names;
}

// The namespace's Workflows, Jobs and measurements, and the failed-nodes ConfigMaps they (and
// `extra_refs`) name.
void fill_namespace_objects(k8s::RestClient& client, const std::string& ns,
                            report::ReportObjects& objects, std::set<std::string> extra_refs) {
  objects.workflows = items_of(client, kWorkflows, ns);
  objects.jobs = items_of(client, kJobs, ns);
  objects.bandwidth_measurements = items_of(client, kBandwidthMeasurements, ns);
  objects.goodput_measurements = items_of(client, kGoodputMeasurements, ns);
  extra_refs.merge(node_result_refs(objects, "failedNodesRef"));
  for (const auto& configmap : extra_refs) {
    // A ConfigMap that is gone or unreadable leaves its nodes unknown; it does not stop the report.
    try {
      objects.failed_nodes[configmap] =
          failed_nodes_of_configmap(client.get(kConfigMaps, ns, configmap));
    } catch (const k8s::ApiError&) {
    } catch (const std::runtime_error&) {
    }
  }
  for (const auto& configmap : node_result_refs(objects, "succeededNodesRef")) {
    try {
      objects.succeeded_nodes[configmap] =
          succeeded_nodes_of_configmap(client.get(kConfigMaps, ns, configmap));
    } catch (const k8s::ApiError&) {
    } catch (const std::runtime_error&) {
    }
  }
}

}  // namespace

void write_report_file(const std::string& path, const std::string& content,
                       const std::string& what) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << content;
  file.close();
  if (!file)
    throw std::runtime_error("write " + what + ": " + path +
                             ": cannot write the file (does its directory exist?)");
}

void write_html_report(const std::vector<report::CertificationReport>& reports,
                       const std::string& path, std::ostream& err) {
  write_report_file(path, report::render_html(reports), "HTML report");
  err << "HTML report written to " << path << "\n";
}

std::vector<api::FailedNode> failed_nodes_of_configmap(const json::value& configmap) {
  const json::value* entry =
      jsonkit::value_at(configmap, {"binaryData", std::string(workflow::kFailedNodesKey)});
  if (entry == nullptr || !entry->is_string()) return {};
  auto bytes = k8s::decode_base64(std::string(entry->as_string()));
  if (!bytes) throw std::runtime_error("failed-nodes ConfigMap: the payload is not base64");
  if (bytes->empty()) return {};
  const json::value list = json::parse(workflow::gunzip(*bytes));
  return api::decode<std::vector<api::FailedNode>>(list, "failed-nodes");
}

std::vector<std::string> succeeded_nodes_of_configmap(const json::value& configmap) {
  const json::value* entry =
      jsonkit::value_at(configmap, {"binaryData", std::string(workflow::kSucceededNodesKey)});
  if (entry == nullptr || !entry->is_string()) return {};
  auto bytes = k8s::decode_base64(std::string(entry->as_string()));
  if (!bytes) throw std::runtime_error("succeeded-nodes ConfigMap: the payload is not base64");
  std::vector<std::string> nodes;
  if (bytes->empty()) return nodes;
  const std::string csv = workflow::gunzip(*bytes);
  for (std::size_t start = 0; start < csv.size();) {
    std::size_t end = csv.find(',', start);
    if (end == std::string::npos) end = csv.size();
    if (end > start) nodes.push_back(csv.substr(start, end - start));
    start = end + 1;
  }
  return nodes;
}

report::ReportObjects fetch_report_objects(k8s::RestClient& client, const std::string& ns,
                                           const std::string& name) {
  report::ReportObjects objects;
  try {
    objects.certification = client.get(kCertifications, ns, name);
  } catch (const k8s::ApiError& error) {
    if (error.code == 404)
      throw std::runtime_error("certification \"" + name + "\" not found in namespace \"" + ns +
                               "\"");
    throw std::runtime_error("get certification \"" + name + "\": " + error.what());
  }
  fill_namespace_objects(client, ns, objects, {});
  return objects;
}

std::pair<json::value, report::ReportObjects> fetch_workloadrun_objects(k8s::RestClient& client,
                                                                        const std::string& ns,
                                                                        const std::string& name) {
  const k8s::ResourceRef workloadruns{"nvcre.nvidia.com", "v1alpha1", "workloadruns", true};
  json::value run;
  try {
    run = client.get(workloadruns, ns, name);
  } catch (const k8s::ApiError& error) {
    if (error.code == 404)
      throw std::runtime_error("workloadrun \"" + name + "\" not found in namespace \"" + ns +
                               "\"");
    throw std::runtime_error("get workloadrun \"" + name + "\": " + error.what());
  }
  report::ReportObjects objects;
  std::set<std::string> refs;
  if (const auto ref = jsonkit::string_at(run, {"status", "failedNodesRef", "name"}); !ref.empty())
    refs.insert(ref);
  fill_namespace_objects(client, ns, objects, refs);
  return {std::move(run), std::move(objects)};
}

std::string report_verdict(const std::vector<report::CertificationReport>& reports) {
  std::string message;
  for (const auto& report : reports) {
    std::string problem;
    if (report.result == report::kResultRunning)
      problem = "certification \"" + report.name + "\" is still running";
    else if (report.result == report::kResultFailed)
      problem = "certification \"" + report.name + "\" failed";
    if (!problem.empty()) message += (message.empty() ? "" : "; ") + problem;
  }
  return message;
}

int run_certification_report(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  auto client = connect(options.connection);
  const std::string& ns = client->config().ns;
  std::vector<report::CertificationReport> reports;
  for (const auto& name : options.names) {
    report::ReportObjects objects;
    try {
      objects = fetch_report_objects(*client, ns, name);
    } catch (const k8s::TransportError& error) {
      throw std::runtime_error(describe_connection_failure(client->config(), error.what()));
    }
    reports.push_back(report::build_certification_report(objects, k8s::Clock::now()));
  }
  if (options.output == "json")
    out << report::results_json(reports);
  else
    out << report::render_text(reports);
  if (!options.results_file.empty()) {
    write_report_file(options.results_file, report::results_json(reports), "results file");
    err << "Results written to " << options.results_file << "\n";
  }
  if (!options.junit_file.empty()) {
    write_report_file(options.junit_file, report::render_junit(reports), "JUnit report");
    err << "JUnit report written to " << options.junit_file << "\n";
  }
  if (!options.html_file.empty()) write_html_report(reports, options.html_file, err);
  if (auto verdict = report_verdict(reports); !verdict.empty()) {
    err << "Error: " << verdict << "\n";
    return 1;
  }
  return 0;
}

}  // namespace nvcre::cli
