#include "cli/render_dry_run.hpp"

#include "api/objects.hpp"
#include "certification/build.hpp"
#include "jsonkit/yaml.hpp"
#include "job/trainjob_adapter.hpp"
#include "overrides/overrides.hpp"
#include "platform/detect.hpp"
#include "workflow/dependency_plan.hpp"
#include "workflow/group_launch.hpp"
#include "workflow/node_discovery.hpp"
#include "workflow/workflow_document.hpp"
#include "workloadrun/build.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;

namespace {

const k8s::ResourceRef kWorkflows{"nvcre.nvidia.com", "v1alpha1", "workflows", true};
const k8s::ResourceRef kJobs{"nvcre.nvidia.com", "v1alpha1", "jobs", true};
constexpr std::string_view kDryRunJob = "dry-run-job";
constexpr std::string_view kDryRunWorkload = "dry-run-workload";

std::string string_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

// What a dry-run create of a child needs: our namespace, no owner (the owner does not exist: a
// dry run stores nothing), no server-set fields.
json::value dry_run_object(json::value object, const std::string& ns, bool namespaced) {
  auto& metadata = object.as_object()["metadata"];
  if (!metadata.is_object()) metadata = json::object{};
  auto& meta = metadata.as_object();
  meta.erase("ownerReferences");
  meta.erase("resourceVersion");
  meta.erase("uid");
  if (namespaced)
    meta["namespace"] = ns;
  else
    meta.erase("namespace");
  return object;
}

// One dry-run create and its row. `dependencies`: names a workload may refer to that only exist
// once the run has created them.
DryRunRow create_row(k8s::RestClient& client, const k8s::ResourceRef& resource,
                     const json::value& object, const std::string& ns,
                     const std::vector<std::string>& dependencies = {}) {
  const auto& meta = object.at("metadata").as_object();
  DryRunRow row{string_at(object.as_object(), "kind") + "/" + string_at(meta, "name"),
                std::string(kDryRunOk), ""};
  k8s::WriteOptions options;
  options.dry_run = true;
  options.field_manager = "nvcrectl";
  try {
    client.create(resource, ns, object, options);
  } catch (const k8s::ApiError& error) {
    row.status = std::string(kDryRunInvalid);
    row.message = error.what();
    if (error.reason == "AlreadyExists") {
      row.status = std::string(kDryRunWarn);
      row.message += " (the controller adopts or names its own copy)";
    }
    const bool names_dependency = std::any_of(
        dependencies.begin(), dependencies.end(),
        [&](const std::string& name) { return row.message.find(name) != std::string::npos; });
    if (error.code == 404 && names_dependency) {
      row.status = std::string(kDryRunWarn);
      row.message += " (created by the run before the workload)";
    }
  }
  return row;
}

// The effective spec, as the Workflow controller resolves it against the discovered nodes.
overrides::ResolvedOverrides resolve_against(const api::WorkflowSpec& spec,
                                             const DryRunSubject& subject,
                                             const std::vector<json::value>& nodes,
                                             overrides::MatchContext& context) {
  const auto& topology = spec.orchestration.topology;
  context = overrides::match_context_for(
      spec, subject.platform, subject.gpu_architecture,
      topology ? platform::count_topology_domains(topology->topologyKey, nodes) : 0);
  return overrides::resolve_overrides(spec, context);
}

// The first group's Job, as the Workflow controller would build it: the first N discovered nodes,
// N being what the TrainJob asks for (else every node).
api::Job first_group_job(const api::Workflow& effective, const std::vector<json::value>& nodes) {
  const workflow::WorkflowDocument document =
      workflow::read_workflow(api::encode_object(effective));
  std::size_t wanted = nodes.size();
  if (const auto& train_job = effective.spec.jobTemplate.spec.workload.trainJob) {
    try {
      if (const std::int64_t required = trainjob::nodes_required(*train_job); required > 0)
        wanted = std::min(wanted, static_cast<std::size_t>(required));
    } catch (const trainjob::AdapterError&) {
    }
  }
  api::GroupStatus group;
  group.name = "dry-run";
  for (std::size_t i = 0; i < wanted; ++i) group.nodes.push_back(workflow::node_name(nodes[i]));
  workflow::GroupJobInput input{document.workflow,
                                document.workflow.spec,
                                document.extras,
                                group,
                                workflow::job_spec_from_template(document.workflow.spec),
                                std::string(kDryRunJob)};
  return workflow::build_group_job(input);
}

void add_dependency_rows(k8s::RestClient& client, k8s::ResourceMapper& mapper,
                         const std::vector<api::DependencySpec>& dependencies,
                         const std::string& ns, DryRunTable& table) {
  for (const auto& dependency : workflow::order_dependencies(dependencies)) {
    const json::value resource(dependency.resource);
    const std::string api_version = string_at(dependency.resource, "apiVersion");
    const std::string kind = string_at(dependency.resource, "kind");
    try {
      const auto ref = mapper.resource_for(api_version, kind);
      table.rows.push_back(
          create_row(client, ref, dry_run_object(resource, ns, ref.namespace_scoped), ns));
    } catch (const std::invalid_argument& error) {
      table.rows.push_back({kind + "/" + workflow::dependency_name(dependency),
                            std::string(kDryRunInvalid),
                            std::string(error.what()) + " (is its CRD installed?)"});
    } catch (const k8s::ApiError& error) {
      table.rows.push_back({kind + "/" + workflow::dependency_name(dependency),
                            std::string(kDryRunInvalid),
                            "discovery of " + api_version + ": " + error.what()});
    }
  }
}

void add_workload_rows(k8s::RestClient& client, k8s::ResourceMapper& mapper,
                       const api::Workflow& effective, const std::vector<json::value>& nodes,
                       const std::vector<std::string>& dependency_names, const std::string& ns,
                       DryRunTable& table) {
  api::Job job;
  try {
    job = first_group_job(effective, nodes);
  } catch (const std::exception& error) {
    table.rows.push_back(
        {"Job/" + std::string(kDryRunJob), std::string(kDryRunInvalid), error.what()});
    return;
  }
  table.rows.push_back(
      create_row(client, kJobs, dry_run_object(api::encode_object(job), ns, true), ns));
  std::map<std::string, std::string> workload_labels;
  if (const auto& metadata = effective.spec.jobTemplate.spec.workloadMetadata)
    workload_labels = metadata->labels;
  json::value train_job = trainjob::build_train_job(job, workload_labels);
  train_job.at("metadata").as_object()["name"] = std::string(kDryRunWorkload);
  try {
    const auto ref = mapper.resource_for(trainjob::kApiVersion, trainjob::kKind);
    table.rows.push_back(
        create_row(client, ref, dry_run_object(train_job, ns, true), ns, dependency_names));
  } catch (const std::invalid_argument& error) {
    table.rows.push_back({std::string(trainjob::kKind) + "/" + std::string(kDryRunWorkload),
                          std::string(kDryRunInvalid),
                          std::string(error.what()) + " (is Kubeflow Trainer installed?)"});
  } catch (const k8s::ApiError& error) {
    table.rows.push_back(
        {std::string(trainjob::kKind) + "/" + std::string(kDryRunWorkload),
         std::string(kDryRunInvalid),
         "discovery of " + std::string(trainjob::kApiVersion) + ": " + error.what()});
  }
}

}  // namespace

std::string format_dry_run_table(const DryRunTable& table) {
  std::size_t resource_width = std::string_view("RESOURCE").size();
  std::size_t status_width = std::string_view("STATUS").size();
  for (const auto& row : table.rows) {
    resource_width = std::max(resource_width, row.resource.size());
    status_width = std::max(status_width, row.status.size());
  }
  const auto line = [&](const std::string& resource, const std::string& status,
                        const std::string& message) {
    std::string text = resource + std::string(resource_width - resource.size() + 2, ' ') + status;
    if (!message.empty()) text += std::string(status_width - status.size() + 2, ' ') + message;
    return text + "\n";
  };
  std::string out = "Dry-run validation: " + table.workflow + "\n";
  out += line("RESOURCE", "STATUS", "MESSAGE");
  for (const auto& row : table.rows) out += line(row.resource, row.status, row.message);
  return out;
}

DryRunTable validate_workflow(k8s::RestClient& client, k8s::ResourceMapper& mapper,
                              const DryRunSubject& subject, const std::vector<json::value>& nodes,
                              json::value& rendered) {
  DryRunTable table{subject.workflow.metadata.name, {}};
  const std::string& ns = subject.ns;
  api::Workflow as_created = subject.workflow;
  as_created.metadata.namespace_ = ns;
  table.rows.push_back(
      create_row(client, kWorkflows, dry_run_object(api::encode_object(as_created), ns, true), ns));

  overrides::MatchContext context;
  api::Workflow effective = as_created;
  std::vector<api::DependencySpec> dependencies;
  // The applied-overrides annotation lists both rounds, as the controller records both: those
  // the build applied and those the Workflow controller applies against the nodes.
  std::vector<api::AppliedOverride> applied = subject.applied;
  try {
    auto resolved = resolve_against(as_created.spec, subject, nodes, context);
    effective.spec = std::move(resolved.spec);
    applied.insert(applied.end(), resolved.applied.begin(), resolved.applied.end());
    dependencies = overrides::select_dependencies(effective.spec.dependencies, context);
  } catch (const std::exception& error) {
    table.rows.push_back(
        {"Workflow/" + table.workflow + " (overrides)", std::string(kDryRunInvalid), error.what()});
  }
  effective.spec.overrides.clear();
  auto& annotations = effective.metadata.annotations;
  annotations["nvcrectl.nvidia.com/detected-platform"] = subject.platform;
  annotations["nvcrectl.nvidia.com/detected-gpu-architecture"] = subject.gpu_architecture;
  annotations["nvcrectl.nvidia.com/applied-overrides"] = json::serialize(api::encode(applied));
  rendered = api::encode_object(effective);

  add_dependency_rows(client, mapper, dependencies, ns, table);
  std::vector<std::string> names;
  for (const auto& dependency : dependencies)
    names.push_back(workflow::dependency_name(dependency));
  add_workload_rows(client, mapper, effective, nodes, names, ns, table);
  return table;
}

int render_certification_dry_run(const RenderOptions& options, std::ostream& out,
                                 std::ostream& err) {
  if (!options.platform.empty() || !options.gpu_arch.empty())
    throw std::invalid_argument(
        "--dry-run discovers nodes from the cluster; cannot combine with --platform or --gpu-arch");
  api::Certification certification = load_certification_for_render(options);
  auto client = connect(options.connection);
  const std::string ns = client->config().ns.empty() ? "default" : client->config().ns;
  try {
    auto& selector = certification.spec.target.nodeSelector;
    const bool has_product = selector.count(std::string(platform::kGpuProductLabel)) != 0;
    TargetNodes target = discover_target(*client, certification.spec.target);
    // Like the reference: a selector without a product gets the discovered one, so the
    // architecture (and the catalog sizing) follow the cluster.
    if (!has_product) selector[std::string(platform::kGpuProductLabel)] = target.product;
    err << "Discovered " << target.nodes.size() << " nodes: " << target.product << "\n";

    certification::BuildInput input;
    input.nodes = target.nodes;
    k8s::ResourceMapper mapper(*client);
    json::array rendered;
    std::string tables;
    for (const auto& category : certification.spec.categories) {
      auto build = certification::build_category_workflow(certification, category, input);
      json::value manifest;
      const auto table = validate_workflow(
          *client, mapper,
          {build.workflow, build.platform, build.gpu_architecture, ns, build.applied_overrides},
          target.nodes, manifest);
      rendered.push_back(std::move(manifest));
      tables += (tables.empty() ? "" : "\n") + format_dry_run_table(table);
    }
    write_rendered(rendered, options.output, out);
    out.flush();
    err << "\n" << tables;
  } catch (const k8s::TransportError& error) {
    throw std::runtime_error(describe_connection_failure(client->config(), error.what()));
  }
  return 0;
}

int render_workloadrun_dry_run(const WorkloadRunRenderOptions& options, std::ostream& out,
                               std::ostream& err) {
  if (!options.platform.empty() || !options.gpu_arch.empty())
    throw std::invalid_argument(
        "--dry-run discovers nodes from the cluster; cannot combine with --platform or --gpu-arch");
  api::WorkloadRun run = load_workloadrun_for_render(options);
  auto client = connect(options.connection);
  const std::string ns = run.metadata.namespace_;
  try {
    TargetNodes target = discover_target(*client, run.spec.target);
    workloadrun::BuildInput input;
    input.nodes = target.nodes;
    auto build = workloadrun::build_workloadrun_workflow(run, input);
    err << "Discovered " << target.nodes.size() << " nodes: " << target.product << " ("
        << build.gpu_architecture << " on " << build.platform << ")\n";
    k8s::ResourceMapper mapper(*client);
    json::value manifest;
    const auto table = validate_workflow(
        *client, mapper,
        {build.workflow, build.platform, build.gpu_architecture, ns, build.applied_overrides},
        target.nodes, manifest);
    out << (options.output == "json" ? jsonkit::to_pretty_json(manifest)
                                     : jsonkit::to_yaml(manifest));
    out.flush();
    err << "\n" << format_dry_run_table(table);
  } catch (const k8s::TransportError& error) {
    throw std::runtime_error(describe_connection_failure(client->config(), error.what()));
  }
  return 0;
}

}  // namespace nvcre::cli
