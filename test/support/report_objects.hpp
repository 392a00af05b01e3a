#pragma once
// Recorded objects of a report golden case (report-build, report-html), as the CLI would fetch
// them:
//   objects.yaml       the Certification and what it left in its namespace (Workflows, Jobs,
//                      BandwidthMeasurements, GoodputMeasurements), several YAML documents
//   failed-nodes.yaml  (optional) failed-nodes ConfigMap name -> its decoded entries
//   succeeded-nodes.yaml (optional) succeeded-nodes ConfigMap name -> its node names
//   now.txt            (optional) the RFC 3339 time of the report (default 2026-10-01T12:00:00Z)
#include "api/codec.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/rfc3339.hpp"
#include "report/build.hpp"
#include "test/support/golden.hpp"

#include <stdexcept>
#include <string>

namespace nvcre::testing {

inline nvcre::report::ReportObjects objects_of(const GoldenCase& golden_case) {
  nvcre::report::ReportObjects objects;
  for (auto& document : nvcre::jsonkit::parse_yaml_documents(golden_case.input("objects.yaml"))) {
    const std::string kind = nvcre::jsonkit::string_at(document, {"kind"});
    if (kind == "Certification")
      objects.certification = std::move(document);
    else if (kind == "Workflow")
      objects.workflows.push_back(std::move(document));
    else if (kind == "Job")
      objects.jobs.push_back(std::move(document));
    else if (kind == "BandwidthMeasurement")
      objects.bandwidth_measurements.push_back(std::move(document));
    else if (kind == "GoodputMeasurement")
      objects.goodput_measurements.push_back(std::move(document));
    else
      throw std::invalid_argument("objects.yaml: unexpected kind \"" + kind + "\"");
  }
  if (golden_case.has_input("failed-nodes.yaml")) {
    const auto lists = nvcre::jsonkit::parse_yaml(golden_case.input("failed-nodes.yaml"));
    for (const auto& [name, entries] : lists.as_object())
      objects.failed_nodes[std::string(name)] =
          nvcre::api::decode<std::vector<nvcre::api::FailedNode>>(entries, std::string(name));
  }
  if (golden_case.has_input("succeeded-nodes.yaml")) {
    const auto lists = nvcre::jsonkit::parse_yaml(golden_case.input("succeeded-nodes.yaml"));
    for (const auto& [name, nodes] : lists.as_object())
      for (const auto& node : nodes.as_array())
        objects.succeeded_nodes[std::string(name)].emplace_back(node.as_string());
  }
  return objects;
}

inline nvcre::k8s::Clock::time_point now_of(const GoldenCase& golden_case) {
  std::string text = "2026-10-01T12:00:00Z";
  if (golden_case.has_input("now.txt")) {
    text = golden_case.input("now.txt");
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  }
  auto time = nvcre::k8s::parse_rfc3339(text);
  if (!time) throw std::invalid_argument("now.txt: not an RFC 3339 time");
  return *time;
}

}  // namespace nvcre::testing
