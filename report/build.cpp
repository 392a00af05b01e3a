#include "report/build.hpp"

#include "jsonkit/paths.hpp"

#include "api/certification.hpp"
#include "api/conditions.hpp"
#include "api/objects.hpp"
#include "api/workloadrun.hpp"
#include "report/build_parts.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace nvcre::report {
namespace json = boost::json;
using namespace detail;

namespace {

inline constexpr std::string_view kRequestedTestScaleAnnotation =
    "nvcre.nvidia.com/requested-test-scale";

// Fields this build does not know are skipped, not errors: a newer controller (or NVCRE's) may
// write more than the report reads, and the report must still be printed.
template <class Kind>
Kind decode(const json::value& object) {
  try {
    api::DecodeContext context;
    context.tolerate_unknown_fields([](std::string_view) { return true; });
    return api::decode<Kind>(object, context);
  } catch (const api::DecodeError& error) {
    std::string label(Kind::kKind);
    if (const auto* name = jsonkit::value_at(object, {"metadata", "name"});
        name && name->is_string())
      label += " \"" + std::string(name->get_string()) + "\"";
    throw std::invalid_argument(label + ": not a valid object: " + error.what());
  }
}

// The decoded objects, looked up by name.
struct Objects {
  api::Certification certification;
  std::map<std::string, api::Workflow> workflows;
  std::map<std::string, api::Job> jobs;
  std::vector<api::BandwidthMeasurement> bandwidth;
  std::vector<api::GoodputMeasurement> goodput;
  const std::map<std::string, std::vector<api::FailedNode>>* failed_nodes = nullptr;
  const std::map<std::string, std::vector<std::string>>* succeeded_nodes = nullptr;

  std::vector<api::FailedNode> failed_nodes_of(
      const std::optional<api::TypedLocalObjectReference>& ref) const {
    if (!ref || ref->name.empty()) return {};
    auto it = failed_nodes->find(ref->name);
    return it == failed_nodes->end() ? std::vector<api::FailedNode>{} : it->second;
  }
  std::vector<std::string> succeeded_nodes_of(
      const std::optional<api::TypedLocalObjectReference>& ref) const {
    if (!ref || ref->name.empty()) return {};
    auto it = succeeded_nodes->find(ref->name);
    return it == succeeded_nodes->end() ? std::vector<std::string>{} : it->second;
  }
};

Objects decode_all(const ReportObjects& in) {
  Objects out;
  if (!in.certification.is_null()) out.certification = decode<api::Certification>(in.certification);
  for (const auto& object : in.workflows) {
    auto workflow = decode<api::Workflow>(object);
    out.workflows.emplace(workflow.metadata.name, std::move(workflow));
  }
  for (const auto& object : in.jobs) {
    auto job = decode<api::Job>(object);
    out.jobs.emplace(job.metadata.name, std::move(job));
  }
  for (const auto& object : in.bandwidth_measurements)
    out.bandwidth.push_back(decode<api::BandwidthMeasurement>(object));
  for (const auto& object : in.goodput_measurements)
    out.goodput.push_back(decode<api::GoodputMeasurement>(object));
  out.failed_nodes = &in.failed_nodes;
  out.succeeded_nodes = &in.succeeded_nodes;
  return out;
}

std::int64_t unix_seconds(const std::string& rfc3339) {
  auto time = k8s::parse_rfc3339(rfc3339);
  if (!time) return 0;
  return std::chrono::duration_cast<std::chrono::seconds>(time->time_since_epoch()).count();
}

// The span from the earliest start to the latest completion (now while a group still runs).
template <class Group>
std::int64_t span_seconds(const std::vector<Group>& groups, std::int64_t now) {
  std::int64_t earliest = 0, latest = 0;
  for (const auto& group : groups) {
    if (std::int64_t start = unix_seconds(group.startTime);
        start && (!earliest || start < earliest))
      earliest = start;
    latest = std::max(latest, unix_seconds(group.completionTime));
  }
  if (earliest == 0) return 0;
  return (latest == 0 ? now : latest) - earliest;
}

// Runtime summed over the iterations; the per-iteration list only when there is more than one.
void fill_iterations(CategoryReport& category, const api::OrchestrationStatus& orchestration,
                     std::int64_t now) {
  std::int64_t total = 0;
  std::vector<IterationRow> rows;
  for (const auto& iteration : orchestration.iterationHistory) {
    const bool failed =
        std::any_of(iteration.groups.begin(), iteration.groups.end(),
                    [](const auto& g) { return g.phase == api::group_phase::kFailed; });
    const std::int64_t seconds = span_seconds(iteration.groups, now);
    total += seconds;
    rows.push_back({iteration.iteration, failed ? "Failed" : "Succeeded", format_seconds(seconds)});
  }
  if (orchestration.currentIteration.value_or(0) > 0 && !orchestration.groups.empty()) {
    bool failed = false, terminal = true;
    for (const auto& group : orchestration.groups) {
      failed = failed || group.phase == api::group_phase::kFailed;
      terminal = terminal && (group.phase == api::group_phase::kSucceeded ||
                              group.phase == api::group_phase::kFailed);
    }
    const std::int64_t seconds = span_seconds(orchestration.groups, now);
    total += seconds;
    rows.push_back({*orchestration.currentIteration,
                    !terminal ? "Running" : (failed ? "Failed" : "Succeeded"),
                    format_seconds(seconds)});
  }
  category.runtime = format_seconds(total);
  if (rows.size() > 1) category.iterations = std::move(rows);
}

std::string test_scale_of(const api::Workflow& workflow) {
  if (auto it = workflow.metadata.annotations.find(std::string(kRequestedTestScaleAnnotation));
      it != workflow.metadata.annotations.end() && !it->second.empty())
    return it->second;
  const auto& spec = workflow.spec.orchestration;
  if (spec.topology && spec.topology->strictDomain) return std::string(api::test_scale::kIntraRack);
  if (spec.diagnose) return std::string(api::test_scale::kDiagnose);
  if (workflow.status && workflow.status->orchestration &&
      workflow.status->orchestration->nodesPerJob == 1)
    return std::string(api::test_scale::kIntraNode);
  return std::string(api::test_scale::kFullScale);
}

// A failed group's cause from its Job: Failed, then HardwareFailed, then ValidationFailed (a
// threshold violation leaves the Job Succeeded with ValidationFailed True).
std::string job_failure_reason(const api::Job& job) {
  if (!job.status) return {};
  for (std::string_view type : {api::kConditionFailed, std::string_view("HardwareFailed"),
                                api::kConditionValidationFailed}) {
    const auto* condition = api::find_condition(job.status->conditions, type);
    if (condition != nullptr && condition->status == "True") return condition->message;
  }
  return {};
}

// The cause from the failed-nodes entries of the group's nodes, a threshold violation first;
// used when the Job is gone (replaced by a retry, or deleted).
std::string failed_nodes_reason(const std::vector<api::FailedNode>& failed,
                                const std::vector<std::string>& group_nodes) {
  const std::set<std::string> in_group(group_nodes.begin(), group_nodes.end());
  std::string fallback;
  for (const auto& node : failed) {
    if (node.message.empty() || !in_group.count(node.name)) continue;
    if (node.reason == api::node_failure_reason::kThresholdViolation) return node.message;
    if (fallback.empty()) fallback = node.message;
  }
  return fallback;
}

std::vector<FailedGroup> failed_groups(const Objects& objects,
                                       const api::OrchestrationStatus& orchestration,
                                       const std::vector<api::FailedNode>& failed_nodes) {
  std::vector<FailedGroup> out;
  for (const auto& group : orchestration.groups) {
    if (group.phase != api::group_phase::kFailed || !group.jobRef) continue;
    FailedGroup row{group.name, static_cast<std::int64_t>(group.nodes.size()), group.nodes, {}, {}};
    if (auto it = objects.jobs.find(group.jobRef->name); it != objects.jobs.end()) {
      row.reason = job_failure_reason(it->second);
      if (it->second.status && it->second.status->failureLog) {
        const auto& log = *it->second.status->failureLog;
        row.failure_log =
            FailureLogReport{log.podName, log.nodeName, log.exitCode, log.reason, log.tail};
      }
    }
    if (row.reason.empty()) row.reason = failed_nodes_reason(failed_nodes, group.nodes);
    out.push_back(std::move(row));
  }
  return out;
}

std::string bandwidth_threshold(const api::Workflow& workflow) {
  const auto& validation = workflow.spec.validation;
  if (validation && validation->performance && validation->performance->thresholds) {
    const auto& thresholds = validation->performance->thresholds->thresholds;
    if (auto it = thresholds.find("busBandwidthGBps"); it != thresholds.end()) return it->second;
  }
  const auto& job_thresholds = workflow.spec.jobTemplate.spec.thresholds;
  auto it = job_thresholds.find("busBandwidthGBps");
  return it == job_thresholds.end() ? std::string() : it->second;
}

// The jobs a Workflow ran: its groups' Jobs, current and past iterations.
std::set<std::string> workflow_jobs(const api::OrchestrationStatus& orchestration) {
  std::set<std::string> jobs;
  for (const auto& group : orchestration.groups)
    if (group.jobRef) jobs.insert(group.jobRef->name);
  for (const auto& iteration : orchestration.iterationHistory)
    for (const auto& group : iteration.groups)
      if (!group.jobName.empty()) jobs.insert(group.jobName);
  return jobs;
}

void fill_measurements(CategoryReport& category, const Objects& objects,
                       const api::Workflow& workflow,
                       const api::OrchestrationStatus& orchestration) {
  const auto jobs = workflow_jobs(orchestration);
  std::vector<const api::GoodputMeasurement*> goodput;
  for (const auto& m : objects.goodput)
    if (jobs.count(m.spec.jobRef.name)) goodput.push_back(&m);
  if (!goodput.empty()) category.domains = domain_metrics(&orchestration, goodput);

  std::vector<const api::BandwidthMeasurement*> bandwidth;
  std::set<std::string> transport;
  for (const auto& m : objects.bandwidth) {
    if (!jobs.count(m.spec.jobRef.name)) continue;
    bandwidth.push_back(&m);
    if (m.status) transport.insert(m.status->transport.begin(), m.status->transport.end());
  }
  category.transport.assign(transport.begin(), transport.end());
  category.curves = bandwidth_curves(orchestration, bandwidth);
  category.threshold = threshold_of(bandwidth_threshold(workflow));
  if (!bandwidth.empty() && orchestration.totalGroups > 1)
    category.group_bandwidth =
        group_bandwidth_rows(orchestration, bandwidth, bandwidth_threshold(workflow));
  if (auto row = aggregate_bandwidth_row(bandwidth)) category.bandwidth.push_back(*row);
}

void fill_from_workflow(CategoryReport& category, const Objects& objects,
                        const api::Workflow& workflow, std::int64_t now) {
  category.test_scale = test_scale_of(workflow);
  if (!workflow.status || !workflow.status->orchestration) return;
  const auto& status = *workflow.status;
  const auto& orchestration = *status.orchestration;
  category.nodes_per_job = orchestration.nodesPerJob;
  category.jobs = orchestration.totalGroups;
  const auto failed_nodes = objects.failed_nodes_of(status.failedNodesRef);
  if (workflow.spec.orchestration.topology)
    category.cliques = clique_rows(orchestration, failed_nodes);
  category.failed_groups = failed_groups(objects, orchestration, failed_nodes);
  fill_iterations(category, orchestration, now);
  fill_measurements(category, objects, workflow, orchestration);
  if (workflow.spec.orchestration.diagnose) {
    std::vector<const api::Job*> jobs;
    for (const auto& [name, job] : objects.jobs) jobs.push_back(&job);
    category.diagnose_rounds = diagnose_rounds(workflow.metadata.name, jobs);
    if (orchestration.diagnose) category.diagnose_stage = orchestration.diagnose->stage;
  }
}

const api::Workflow* workflow_of(const Objects& objects,
                                 const api::CertificationCategoryStatus& category) {
  if (!category.workflowRef) return nullptr;
  auto it = objects.workflows.find(category.workflowRef->name);
  return it == objects.workflows.end() ? nullptr : &it->second;
}

void fill_header(CertificationReport& report, const Objects& objects,
                 const std::vector<api::CertificationCategoryStatus>& categories) {
  for (const auto& category : categories) {
    const api::Workflow* workflow = workflow_of(objects, category);
    if (workflow == nullptr || !workflow->status || !workflow->status->orchestration) continue;
    const auto& orchestration = *workflow->status->orchestration;
    report.platform = orchestration.detectedPlatform;
    report.gpu = orchestration.detectedGPUArchitecture;
    report.total_nodes = orchestration.totalNodes;
    report.excluded_nodes = orchestration.excludedNodes;
    report.exclusion_reason = orchestration.exclusionReason;
    for (const auto& [node, result] : workflow->status->nodeResults)
      report.node_results.push_back({node, result.group, result.domain, result.status});
    return;
  }
}

void add_node_verdicts(NodeVerdicts& verdicts, const Objects& objects,
                       const api::CertificationCategoryStatus& category,
                       const api::Workflow* workflow, const std::vector<api::FailedNode>& failed) {
  const bool has_status = workflow != nullptr && workflow->status;
  const api::OrchestrationStatus* orchestration =
      has_status && workflow->status->orchestration ? &*workflow->status->orchestration : nullptr;
  verdicts.add_category(category.domain + "/" + category.variant, orchestration,
                        has_status ? &workflow->status->nodeResults : nullptr, failed,
                        objects.succeeded_nodes_of(category.succeededNodesRef));
}

}  // namespace

CertificationReport build_certification_report(const ReportObjects& in,
                                               k8s::Clock::time_point now) {
  const Objects objects = decode_all(in);
  const auto& certification = objects.certification;
  const std::int64_t now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  static const api::CertificationStatus no_status;
  const auto& status = certification.status ? *certification.status : no_status;

  CertificationReport report;
  report.name = certification.metadata.name;
  report.result = std::string(kResultRunning);
  if (api::condition_is_true(status.conditions, api::kConditionFailed))
    report.result = std::string(kResultFailed);
  else if (api::condition_is_true(status.conditions, api::kConditionSucceeded))
    report.result = std::string(kResultPassed);

  std::set<std::string> failed_nodes;
  NodeVerdicts verdicts;
  for (std::size_t i = 0; i < status.categoryStatuses.size(); ++i) {
    const auto& category_status = status.categoryStatuses[i];
    const auto category_failed = objects.failed_nodes_of(category_status.failedNodesRef);
    for (const auto& node : category_failed)
      if (!node.name.empty()) failed_nodes.insert(node.name);
    CategoryReport category;
    category.domain = category_status.domain;
    category.variant = category_status.variant;
    category.status = category_status.status == api::category_phase::kInProgress
                          ? "Running"
                          : category_status.status;
    category.mnnvl = category_mnnvl(certification, i);
    if (const api::Workflow* workflow = workflow_of(objects, category_status)) {
      fill_from_workflow(category, objects, *workflow, now_seconds);
      if (category.status == api::category_phase::kFailed && workflow->status)
        if (const auto* failed =
                api::find_condition(workflow->status->conditions, api::kConditionFailed);
            failed != nullptr && failed->status == "True")
          category.failure_reason = failed->message;
    }
    add_node_verdicts(verdicts, objects, category_status, workflow_of(objects, category_status),
                      category_failed);
    report.categories.push_back(std::move(category));
  }
  report.failed_nodes.assign(failed_nodes.begin(), failed_nodes.end());
  fill_header(report, objects, status.categoryStatuses);
  verdicts.exclude(report.excluded_nodes, report.exclusion_reason);
  report.nodes = verdicts.rows();
  // Fewer nodes certified than targeted is not a failure (nothing was observed to fail), but it
  // is not a pass either.
  if (report.result == kResultPassed && !report.excluded_nodes.empty())
    report.result = std::string(kResultIncomplete);
  return report;
}

CertificationReport build_workloadrun_report(const boost::json::value& workloadrun,
                                             const ReportObjects& in, k8s::Clock::time_point now) {
  const api::WorkloadRun run = decode<api::WorkloadRun>(workloadrun);
  const Objects objects = decode_all(in);
  const std::int64_t now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  static const api::WorkloadRunStatus no_status;
  const auto& status = run.status ? *run.status : no_status;

  CertificationReport report;
  report.title = "WorkloadRun Report";
  report.name = run.metadata.name;
  CategoryReport category;
  category.domain = "workloadrun";
  category.variant = run.metadata.name;
  report.result = std::string(kResultRunning);
  category.status = "Running";
  if (const auto* failed = api::find_condition(status.conditions, api::kConditionFailed);
      failed != nullptr && failed->status == "True") {
    report.result = std::string(kResultFailed);
    category.status = "Failed";
    category.failure_reason = failed->message;
  } else if (api::condition_is_true(status.conditions, api::kConditionSucceeded)) {
    report.result = std::string(kResultPassed);
    category.status = "Succeeded";
  } else if (!api::condition_is_true(status.conditions, api::kConditionInProgress)) {
    category.status = "Pending";
  }
  const auto failed_nodes = objects.failed_nodes_of(status.failedNodesRef);
  std::set<std::string> failed_names;
  for (const auto& node : failed_nodes)
    if (!node.name.empty()) failed_names.insert(node.name);
  const std::string workflow_name =
      status.workflowRef ? status.workflowRef->name : run.metadata.name;
  if (auto it = objects.workflows.find(workflow_name); it != objects.workflows.end()) {
    const api::Workflow& workflow = it->second;
    fill_from_workflow(category, objects, workflow, now_seconds);
    if (workflow.status && workflow.status->orchestration) {
      const auto& orchestration = *workflow.status->orchestration;
      report.platform = orchestration.detectedPlatform;
      report.gpu = orchestration.detectedGPUArchitecture;
      report.total_nodes = orchestration.totalNodes;
      report.excluded_nodes = orchestration.excludedNodes;
      report.exclusion_reason = orchestration.exclusionReason;
      // A failed group fails all its nodes; a node named failed fails on its own too.
      for (const auto& group : orchestration.groups)
        for (const auto& node : group.nodes) {
          const bool failed =
              group.phase == api::group_phase::kFailed || failed_names.count(node) > 0;
          if (failed) failed_names.insert(node);
          report.node_results.push_back({node, group.name,
                                         group.domains.empty() ? "" : group.domains.front(),
                                         failed ? "Failed" : "Passed"});
        }
    }
  }
  if (report.platform.empty()) report.platform = status.detectedPlatform;
  if (report.gpu.empty()) report.gpu = status.detectedGPUArchitecture;
  report.categories.push_back(std::move(category));
  report.failed_nodes.assign(failed_names.begin(), failed_names.end());
  return report;
}

std::string category_mnnvl(const api::Certification& certification, std::size_t index) {
  const auto& categories = certification.spec.categories;
  if (index >= categories.size()) return {};
  std::optional<bool> enabled = certification.spec.options.enableMNNVL;
  if (const auto& options = categories[index].options; options && options->enableMNNVL)
    enabled = options->enableMNNVL;
  if (!enabled) return {};
  return *enabled ? "Enabled" : "Disabled";
}

std::string human_size(std::int64_t bytes) {
  constexpr std::int64_t kb = 1024, mb = 1024 * kb, gb = 1024 * mb;
  if (bytes >= gb) return std::to_string(bytes / gb) + " GB";
  if (bytes >= mb) return std::to_string(bytes / mb) + " MB";
  if (bytes >= kb) return std::to_string(bytes / kb) + " KB";
  return std::to_string(bytes) + " B";
}

std::string format_seconds(std::int64_t seconds) {
  if (seconds <= 0) return {};
  if (seconds < 60) return std::to_string(seconds) + "s";
  if (seconds < 3600)
    return std::to_string(seconds / 60) + "m " + std::to_string(seconds % 60) + "s";
  return std::to_string(seconds / 3600) + "h " + std::to_string(seconds % 3600 / 60) + "m";
}

}  // namespace nvcre::report
