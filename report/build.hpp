#pragma once
// Builds a CertificationReport from the objects a Certification left in its namespace. Pure: the
// caller fetches the objects (nvcrectl over the REST client, tests from recorded files) and
// passes the time, used only for the runtime of groups still running.
#include "api/certification.hpp"
#include "api/common_types.hpp"
#include "api/job.hpp"
#include "k8s/rfc3339.hpp"
#include "report/model.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace nvcre::report {

struct ReportObjects {
  boost::json::value certification;
  // Objects of the Certification's namespace; the builder picks what the Certification refers to
  // (Workflows by the categories' workflowRef, Jobs by the groups' jobRef, measurements by their
  // spec.jobRef), so passing the whole namespace is fine.
  std::vector<boost::json::value> workflows;
  std::vector<boost::json::value> jobs;
  std::vector<boost::json::value> bandwidth_measurements;
  std::vector<boost::json::value> goodput_measurements;
  // The failed-nodes ConfigMaps, decoded: ConfigMap name -> its entries. A ConfigMap that is
  // missing or cannot be decoded is simply absent (its nodes then stay unknown).
  std::map<std::string, std::vector<api::FailedNode>> failed_nodes;
  // The succeeded-nodes ConfigMaps, decoded the same way: ConfigMap name -> the node names.
  std::map<std::string, std::vector<std::string>> succeeded_nodes;
};

// Throws std::invalid_argument naming the object (kind and name) and field when an object is not
// a valid nvcre object of its kind.
CertificationReport build_certification_report(const ReportObjects& objects,
                                               k8s::Clock::time_point now);

// The rounds a diagnose-mode Workflow named `workflow` ran, from its Jobs (labelled with the
// Workflow and their group; the group-nodes annotation lists the nodes): in run order, each with
// its stage (from the group name) and every Job's nodes and verdict. `jobs` may hold other
// Workflows' Jobs: only this one's are read.
std::vector<DiagnoseRound> diagnose_rounds(const std::string& workflow,
                                           const std::vector<const api::Job*>& jobs);
// A WorkloadRun's report: one category workloadrun/<name>, titled "WorkloadRun Report", with per
// node results flattened from its Workflow's groups (a failed group fails all its nodes). `objects`
// are the namespace's objects; its `certification` is not read.
CertificationReport build_workloadrun_report(const boost::json::value& workloadrun,
                                             const ReportObjects& objects,
                                             k8s::Clock::time_point now);

// "Enabled" / "Disabled" when the category (or the spec, for every category) sets enableMNNVL;
// "" when the architecture decides. Shared with the CLI's watch lines, which name duplicated
// categories by it.
std::string category_mnnvl(const api::Certification& certification, std::size_t index);

// Exposed for tests and the renderers.
std::string human_size(std::int64_t bytes);        // 1024-based: "512 B", "4 KB", "1 MB", "16 GB"
std::string format_seconds(std::int64_t seconds);  // "" (<= 0), "45s", "5m 30s", "2h 5m"

}  // namespace nvcre::report
