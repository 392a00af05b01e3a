// `nvcrectl certification render` per platform block, projected the way the upstream render suites
// project their cases (so each case reads field for field against them): per Workflow its name,
// target product, dependency kind/name list, trainer image / command / args / env, orchestration
// topology, and per TrainingRuntime replicated job the mlPolicy kind, pod annotations, tolerations,
// resource claims, volumes, containers (image, resources, claims, env, mounts, privileged,
// capabilities) and init containers (name, image). Suite certification-render-platforms: one case
// per platform block, input.yaml (a Certification) + input_flags.yaml {platform, gpuArch}.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <sstream>
#include <string>

#include "cli/certification_commands.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"
#include "test/support/golden_inputs.hpp"

namespace json = boost::json;
using nvcre::testing::find;
using nvcre::testing::flag;
using nvcre::testing::GoldenCase;
using nvcre::testing::or_null;

namespace {

const json::array& list_at(const json::value* root, std::initializer_list<std::string_view> path) {
  static const json::array empty;
  const json::value* value = root ? find(*root, path) : nullptr;
  return value && value->is_array() ? value->get_array() : empty;
}

std::string scalar(const json::value* value) {
  if (value == nullptr) return "";
  return value->is_string() ? std::string(value->get_string()) : json::serialize(*value);
}

// "limits/<name>=<value>" (JSON form, so a quoted count differs from a number), then requests.
json::array resources(const json::value& container) {
  json::array out;
  for (const char* side : {"limits", "requests"}) {
    const json::value* map = find(container, {"resources", side});
    if (map == nullptr || !map->is_object()) continue;
    for (const auto& [name, value] : map->get_object())
      out.push_back(
          json::string(std::string(side) + "/" + std::string(name) + "=" + json::serialize(value)));
  }
  return out;
}

json::array env(const json::value* container) {
  json::array out;
  for (const auto& var : list_at(container, {"env"}))
    out.push_back(json::string(scalar(find(var, {"name"})) + "=" + scalar(find(var, {"value"}))));
  return out;
}

json::array names(const json::array& items, const char* key = "name") {
  json::array out;
  for (const auto& item : items) out.push_back(json::string(scalar(find(item, {key}))));
  return out;
}

json::object container_view(const json::value& container) {
  json::array mounts;
  for (const auto& mount : list_at(&container, {"volumeMounts"})) {
    mounts.push_back(json::string(scalar(find(mount, {"name"})) + "=" +
                                  scalar(find(mount, {"mountPath"})) +
                                  (find(mount, {"readOnly"}) ? ":ro" : "")));
  }
  return json::object{
      {"name", or_null(find(container, {"name"}))},
      {"image", or_null(find(container, {"image"}))},
      {"resources", resources(container)},
      {"claims", names(list_at(&container, {"resources", "claims"}))},
      {"env", env(&container)},
      {"volumeMounts", std::move(mounts)},
      {"privileged", or_null(find(container, {"securityContext", "privileged"}))},
      {"capabilities", or_null(find(container, {"securityContext", "capabilities", "add"}))}};
}

json::object job_view(const std::string& dependency, const json::value& job,
                      const json::value* ml_policy) {
  const json::value* pod = find(job, {"template", "spec", "template"});
  json::array containers, init_containers, claims, tolerations;
  for (const auto& container : list_at(pod, {"spec", "containers"}))
    containers.push_back(container_view(container));
  for (const auto& init : list_at(pod, {"spec", "initContainers"})) {
    init_containers.push_back(
        json::string(scalar(find(init, {"name"})) + "=" + scalar(find(init, {"image"}))));
  }
  for (const auto& claim : list_at(pod, {"spec", "resourceClaims"})) {
    claims.push_back(json::string(scalar(find(claim, {"name"})) + "=" +
                                  scalar(find(claim, {"resourceClaimTemplateName"}))));
  }
  for (const auto& t : list_at(pod, {"spec", "tolerations"})) {
    tolerations.push_back(
        json::string(scalar(find(t, {"key"})) + " " + scalar(find(t, {"operator"})) + " " +
                     scalar(find(t, {"value"})) + ":" + scalar(find(t, {"effect"}))));
  }
  json::array policies;
  if (ml_policy && ml_policy->is_object()) {
    for (const auto& [key, value] : ml_policy->get_object())
      if (key != "numNodes") policies.push_back(json::string(key));
  }
  json::array volumes;
  for (const auto& volume : list_at(pod, {"spec", "volumes"})) {
    json::object source = volume.as_object();
    source.erase("name");
    volumes.push_back(json::string(scalar(find(volume, {"name"})) + "=" + json::serialize(source)));
  }
  return json::object{
      {"dependency", dependency},
      {"replicatedJob", or_null(find(job, {"name"}))},
      {"mlPolicy", std::move(policies)},
      {"podAnnotations", or_null(pod ? find(*pod, {"metadata", "annotations"}) : nullptr)},
      {"tolerations", std::move(tolerations)},
      {"resourceClaims", std::move(claims)},
      {"initContainers", std::move(init_containers)},
      {"containers", std::move(containers)},
      {"volumes", std::move(volumes)}};
}

json::value project(const json::value& workflows) {
  json::array out;
  for (const auto& workflow : workflows.as_array()) {
    const json::value& spec = workflow.at("spec");
    const json::value* trainer =
        find(spec, {"jobTemplate", "spec", "workload", "trainJob", "trainer"});
    json::array kinds, jobs;
    for (const auto& dependency : list_at(&spec, {"dependencies"})) {
      const std::string name = scalar(find(dependency, {"metadata", "name"}));
      kinds.push_back(json::string(scalar(find(dependency, {"kind"})) + "/" + name));
      if (scalar(find(dependency, {"kind"})) != "TrainingRuntime") continue;
      for (const auto& job : list_at(&dependency, {"spec", "template", "spec", "replicatedJobs"}))
        jobs.push_back(job_view(name, job, find(dependency, {"spec", "mlPolicy"})));
    }
    out.push_back(
        json::object{{"workflow", or_null(find(workflow, {"metadata", "name"}))},
                     {"targetNodeSelector", or_null(find(spec, {"target", "nodeSelector"}))},
                     {"dependencies", std::move(kinds)},
                     {"trainerImage", or_null(trainer ? find(*trainer, {"image"}) : nullptr)},
                     {"trainerCommand", or_null(trainer ? find(*trainer, {"command"}) : nullptr)},
                     {"trainerArgs", or_null(trainer ? find(*trainer, {"args"}) : nullptr)},
                     {"trainerEnv", env(trainer)},
                     {"topology", or_null(find(spec, {"orchestration", "topology"}))},
                     {"diagnose", or_null(find(spec, {"orchestration", "diagnose"}))},
                     {"replicatedJobs", std::move(jobs)}});
  }
  return out;
}

class CertificationRenderPlatforms : public ::testing::TestWithParam<GoldenCase> {};

}  // namespace

TEST_P(CertificationRenderPlatforms, Projection) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    nvcre::cli::RenderOptions options;
    options.file = (golden_case.dir / "input.yaml").string();
    options.platform = flag(golden_case, "platform");
    options.gpu_arch = flag(golden_case, "gpuArch");
    options.output = "json";
    std::ostringstream out;
    nvcre::cli::render_certification(options, out);
    return nvcre::jsonkit::to_pretty_json(project(json::parse(out.str())));
  });
}

NVCRE_GOLDEN_SUITE(CertificationRenderPlatforms, "certification-render-platforms");
