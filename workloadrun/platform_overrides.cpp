#include "workloadrun/platform_overrides.hpp"

#include <boost/json.hpp>

#include <stdexcept>

#include "api/codec.hpp"
#include "catalog/fragments.hpp"
#include "catalog/tcpxo.hpp"

namespace nvcre::workloadrun {
namespace json = boost::json;

namespace {

constexpr std::string_view kFragment = "overrides/workloadrun.yaml";

const api::EnvVar* user_var(const std::vector<api::EnvVar>& user_env, std::string_view name) {
  for (auto it = user_env.rbegin(); it != user_env.rend();
       ++it) {  // the last duplicate is the effective one
    if (it->name == name) return &*it;
  }
  return nullptr;
}

// Replaces, in place, the entries of an env list whose name the user set.
void apply_user_env(json::value* env, const std::vector<api::EnvVar>& user_env) {
  if (env == nullptr || !env->is_array()) return;
  for (auto& item : env->as_array()) {
    auto* entry = item.if_object();
    const auto* name = entry ? entry->if_contains("name") : nullptr;
    if (name == nullptr || !name->is_string()) continue;
    if (const auto* user = user_var(user_env, name->get_string())) item = api::encode(*user);
  }
}

json::value* at_path(json::value& root, std::initializer_list<std::string_view> path) {
  json::value* node = &root;
  for (auto key : path) {
    auto* object = node->if_object();
    node = object ? object->if_contains(key) : nullptr;
    if (node == nullptr) return nullptr;
  }
  return node;
}

void apply_user_env_to_runtime(json::object& resource, const std::vector<api::EnvVar>& user_env) {
  const auto* kind = resource.if_contains("kind");
  if (kind == nullptr || !kind->is_string() || kind->get_string() != "TrainingRuntime") return;
  json::value root(resource);
  auto* jobs = at_path(root, {"spec", "template", "spec", "replicatedJobs"});
  if (jobs == nullptr || !jobs->is_array()) return;
  for (auto& job : jobs->as_array()) {
    auto* containers = at_path(job, {"template", "spec", "template", "spec", "containers"});
    if (containers == nullptr || !containers->is_array()) continue;
    for (auto& container : containers->as_array()) {
      if (auto* object = container.if_object())
        apply_user_env(object->if_contains("env"), user_env);
    }
  }
  resource = std::move(root.as_object());
}

void apply_user_env_to_mpi_args(std::vector<std::string>& args,
                                const std::vector<api::EnvVar>& user_env) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != "-x") continue;
    const std::string& operand = args[i + 1];
    const std::string name = operand.substr(0, operand.find('='));
    if (const auto* user = user_var(user_env, name)) {
      args[i + 1] = user->valueFrom.empty() ? user->name + "=" + user->value : user->name;
    }
    ++i;
  }
}

std::vector<std::string> string_list(const json::value& value, std::string_view where) {
  std::vector<std::string> out;
  if (!value.is_array())
    throw std::runtime_error(std::string(where) + " must be a list of strings");
  for (const auto& item : value.as_array()) {
    if (!item.is_string())
      throw std::runtime_error(std::string(where) + " must be a list of strings");
    out.emplace_back(item.get_string());
  }
  return out;
}

json::object params_of(const OverrideConfig& config) {
  json::object params{{"entryName", config.entryName},
                      {"nodesPerJob", config.nodesPerJob},
                      {"gpusPerNode", config.gpusPerNode},
                      {"mlnxPerNode", config.mlnxPerNode},
                      {"nicResourceName", config.nicResourceName},
                      {"enableMNNVL", config.enableMNNVL},
                      {"mnnvl", config.enableMNNVL ? "1" : "0"},
                      {"frameworkType", config.frameworkType},
                      {"testScale", config.testScale}};
  catalog::add_tcpxo_params(params, config.tcpxoPluginVersion, config.gkeTcpxoNetworks);
  return params;
}

}  // namespace

std::vector<WorkloadRunOverride> build_platform_overrides(const OverrideConfig& config) {
  json::value rendered;
  try {
    rendered = catalog::expand_lib_fragment(kFragment, params_of(config));
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("platform overrides: render: ") + error.what());
  }
  if (!rendered.is_array())
    throw std::runtime_error("platform overrides: parse: the document must be a list");
  std::vector<WorkloadRunOverride> overrides;
  for (std::size_t i = 0; i < rendered.as_array().size(); ++i) {
    const std::string where = "platform overrides: item " + std::to_string(i);
    auto* item = rendered.as_array()[i].if_object();
    if (item == nullptr) throw std::runtime_error(where + ": must be a map");
    WorkloadRunOverride result;
    if (const auto* pre = item->if_contains("preCommand"))
      result.preCommand = string_list(*pre, where + ": preCommand");
    if (const auto* args = item->if_contains("mpiArgs"))
      result.mpiArgs = string_list(*args, where + ": mpiArgs");
    item->erase("preCommand");
    item->erase("mpiArgs");
    if (auto* patch = item->if_contains("jobTemplatePatch");
        patch != nullptr && patch->is_string()) {
      try {
        *patch = json::parse(patch->get_string());
      } catch (const std::exception& error) {
        throw std::runtime_error(where + ": jobTemplatePatch: " + error.what());
      }
    }
    try {
      result.spec = api::decode<api::OverrideSpec>(*item);
    } catch (const std::exception& error) {
      throw std::runtime_error(where + ": decode: " + error.what());
    }
    if (!config.userEnv.empty()) {
      apply_user_env(
          at_path(result.spec.jobTemplate, {"spec", "workload", "trainJob", "trainer", "env"}),
          config.userEnv);
      for (auto& dependency : result.spec.dependencies)
        apply_user_env_to_runtime(dependency.resource, config.userEnv);
      apply_user_env_to_mpi_args(result.mpiArgs, config.userEnv);
    }
    overrides.push_back(std::move(result));
  }
  return overrides;
}

}  // namespace nvcre::workloadrun
