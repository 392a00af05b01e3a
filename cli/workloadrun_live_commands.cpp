#include "cli/workloadrun_live_commands.hpp"
#include "cli/gpu_nodes.hpp"

#include "api/objects.hpp"
#include "cli/interrupts.hpp"
#include "cli/report_command.hpp"
#include "cli/run_progress.hpp"
#include "cli/run_support.hpp"
#include "cli/workloadrun_commands.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/duration.hpp"
#include "platform/detect.hpp"
#include "platform/topology_keys.hpp"
#include "report/text.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <ostream>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;

namespace {

const k8s::ResourceRef kWorkloadRuns{"nvcre.nvidia.com", "v1alpha1", "workloadruns", true};
const k8s::ResourceRef kWorkflows{"nvcre.nvidia.com", "v1alpha1", "workflows", true};
const k8s::ResourceRef kNodes{"", "v1", "nodes", false};

// How often --wait reads the WorkloadRun (a poll, as NVCRE's CLI does; the object changes a few
// times over a run).
constexpr std::chrono::seconds kPollInterval{2};
constexpr std::chrono::seconds kHeartbeat{15};

std::string condition_message(const json::value& run, std::string_view type) {
  const json::value* conditions = jsonkit::value_at(run, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return {};
  for (const auto& condition : conditions->as_array())
    if (jsonkit::string_at(condition, {"type"}) == type &&
        jsonkit::string_at(condition, {"status"}) == "True")
      return jsonkit::string_at(condition, {"message"});
  return {};
}

// target.matchExpressions += {key In [domain]}: the run takes the domain's nodes.
void add_topology_expression(json::value& run, const std::string& key, const std::string& domain) {
  auto& spec = run.as_object()["spec"].as_object();
  if (!spec["target"].is_object()) spec["target"] = json::object();
  auto& target = spec["target"].as_object();
  if (!target["matchExpressions"].is_array()) target["matchExpressions"] = json::array();
  target["matchExpressions"].as_array().push_back(
      json::object{{"key", key}, {"operator", "In"}, {"values", json::array{json::value(domain)}}});
}

std::vector<json::value> list_nodes(k8s::RestClient& client, const std::string& selector) {
  k8s::ListOptions list;
  list.label_selector = selector;
  try {
    const json::value nodes = client.list(kNodes, "", list);
    const auto& items = nodes.at("items").as_array();
    return {items.begin(), items.end()};
  } catch (const k8s::ApiError& error) {
    throw std::runtime_error(std::string("node discovery: ") + error.what());
  }
}

// The GPU nodes the run targets agree on one product (checked before anything is created). With
// --topology-domain the run takes every node of that domain; without --topology-key the domain's
// label is the platform's own (detected from the targeted nodes).
void check_target_nodes(k8s::RestClient& client, json::value& run,
                        const WorkloadRunRunOptions& options, std::ostream& err) {
  std::string selector = "nvidia.com/gpu.present=true";
  if (const auto* labels = jsonkit::object_at(run, {"spec", "target", "nodeSelector"}))
    for (const auto& [key, value] : *labels)
      if (value.is_string() && key != "nvidia.com/gpu.present")
        selector += "," + std::string(key) + "=" + std::string(value.as_string());
  std::string topology_key = options.topology_key;
  if (!options.topology_domain.empty() && topology_key.empty()) {
    const std::string platform = platform::detect_platform(list_nodes(client, selector));
    topology_key = std::string(platform::default_topology_key(platform));
    if (topology_key.empty())
      throw std::invalid_argument("--topology-domain requires --topology-key on platform \"" +
                                  platform + "\"");
    err << "Topology key (platform " << platform << "): " << topology_key << "\n";
    add_topology_expression(run, topology_key, options.topology_domain);
  }
  if (!options.topology_domain.empty())
    selector += "," + topology_key + "=" + options.topology_domain;
  const std::vector<json::value> found = list_nodes(client, selector);
  const std::string product = uniform_gpu_product(found);
  err << "Discovered " << found.size() << " nodes: " << product << "\n";
  if (!options.topology_domain.empty())
    run.as_object()["spec"].as_object()["numNodes"] = static_cast<std::int64_t>(found.size());
}

struct PollResult {
  json::value run;
  bool timed_out = false;
  bool interrupted = false;
};

PollResult poll_workloadrun(k8s::RestClient& client, const std::string& ns, const std::string& name,
                            std::chrono::nanoseconds timeout, std::stop_token interrupt,
                            std::ostream& err) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start);
  };
  std::mutex mutex;
  std::condition_variable_any sleeper;
  PollResult result;
  std::string last_phase;
  auto next_heartbeat = start + kHeartbeat;
  err << "[watch] Watching workloadrun progress...\n" << std::flush;
  while (true) {
    {
      std::unique_lock lock(mutex);
      sleeper.wait_until(lock, interrupt, std::min(start + timeout, Clock::now() + kPollInterval),
                         [] { return false; });
    }
    if (interrupt.stop_requested()) {
      result.interrupted = true;
      return result;
    }
    if (Clock::now() >= start + timeout) {
      result.timed_out = true;
      return result;
    }
    try {
      result.run = client.get(kWorkloadRuns, ns, name);
    } catch (const std::exception&) {
      continue;  // a failed read is retried on the next tick
    }
    const std::string phase = workloadrun_phase(result.run);
    if (phase == "Succeeded" || phase == "Failed") {
      err << "[watch] WorkloadRun " << (phase == "Succeeded" ? "succeeded." : "failed.") << " ("
          << format_elapsed(elapsed()) << ")\n";
      return result;
    }
    if (phase != last_phase || Clock::now() >= next_heartbeat) {
      err << workloadrun_watch_line(result.run, name, elapsed()) << "\n" << std::flush;
      last_phase = phase;
      if (Clock::now() >= next_heartbeat) next_heartbeat += kHeartbeat;
    }
  }
}

// The report from the freshest state, on stderr; --results-file next to it.
void report_run(k8s::RestClient& client, const std::string& ns, const std::string& name,
                const std::string& results_file, std::ostream& err) {
  try {
    auto [run, objects] = fetch_workloadrun_objects(client, ns, name);
    const auto built = report::build_workloadrun_report(run, objects, k8s::Clock::now());
    err << report::render_text({built});
    if (!results_file.empty()) {
      try {
        write_report_file(results_file, report::results_json({built}), "results file");
        err << "Results written to " << results_file << "\n";
      } catch (const std::exception& error) {
        err << "Warning: failed to write results: " << error.what() << "\n";
      }
    }
  } catch (const std::exception& error) {
    err << "Warning: no report for workloadrun \"" << name << "\": " << error.what() << "\n";
  }
}

}  // namespace

std::string workloadrun_phase(const json::value& run) {
  for (std::string_view type : {"Succeeded", "Failed", "InProgress"})
    if (condition_true(run, type)) return std::string(type);
  return "Pending";
}

std::string workloadrun_watch_line(const json::value& run, const std::string& name,
                                   std::chrono::seconds elapsed) {
  const std::string phase = workloadrun_phase(run);
  if (phase == "Pending") return "[watch] Waiting for status... (" + format_elapsed(elapsed) + ")";
  std::string line = "[watch] " + name + ": " + phase + " (" + format_elapsed(elapsed) + ")";
  if (std::string message = condition_message(run, phase); !message.empty())
    line += " — " + message;
  return line;
}

void apply_workloadrun_flags(json::value& run, const WorkloadRunRunOptions& options) {
  auto& object = run.as_object();
  if (!options.name.empty()) object["metadata"].as_object()["name"] = options.name;
  auto& spec = object["spec"].as_object();
  if (!options.node_list.empty()) {
    json::array names;
    std::size_t start = 0;
    while (start <= options.node_list.size()) {
      const std::size_t comma =
          std::min(options.node_list.find(',', start), options.node_list.size());
      if (comma > start) names.emplace_back(options.node_list.substr(start, comma - start));
      start = comma + 1;
    }
    if (!spec["target"].is_object()) spec["target"] = json::object();
    const auto count = static_cast<std::int64_t>(names.size());
    spec["target"].as_object()["nodeNames"] = std::move(names);
    if (const auto* num = spec.if_contains("numNodes");
        num && num->is_int64() && num->as_int64() > count)
      spec["numNodes"] = count;
  }
  if (!options.test_scale.empty()) {
    if (options.test_scale != "intra-node" && options.test_scale != "intra-rack" &&
        options.test_scale != "full-scale")
      throw std::invalid_argument("invalid --test-scale \"" + options.test_scale +
                                  "\": must be intra-node, intra-rack or full-scale");
    if (!spec["orchestration"].is_object()) spec["orchestration"] = json::object();
    spec["orchestration"].as_object()["testScale"] = options.test_scale;
  }
  if (!options.topology_domain.empty() && !options.topology_key.empty())
    add_topology_expression(run, options.topology_key, options.topology_domain);
}

int run_workloadrun_run(const WorkloadRunRunOptions& options, std::ostream& out,
                        std::ostream& err) {
  (void)out;  // every line of `run` is progress or a report for a person: stderr
  check_registry_flags(options.registry);
  const auto timeout = k8s::parse_go_duration(options.timeout);
  if (!timeout || timeout->count() <= 0)
    throw std::invalid_argument("invalid --timeout \"" + options.timeout +
                                "\": expected a positive duration such as 90s, 45m or 2h");
  json::value run = api::encode_object(read_workloadrun(options.file));
  apply_workloadrun_flags(run, options);
  const std::string name = jsonkit::string_at(run, {"metadata", "name"});
  std::string ns = options.connection.overrides.ns;
  if (ns.empty()) ns = jsonkit::string_at(run, {"metadata", "namespace"});
  if (ns.empty()) ns = "default";
  run.as_object()["metadata"].as_object()["namespace"] = ns;

  std::optional<Interrupts> interrupts;
  if (options.cleanup) interrupts.emplace();
  auto client = connect(options.connection);
  check_target_nodes(*client, run, options, err);

  Cleanup cleanup(*client, err, options.cleanup);
  if (ensure_namespace(*client, ns, err)) cleanup.created_namespace(ns);
  bool secret_created = false;
  const std::string secret = pull_secret_name(name);
  if (!options.registry.password.empty()) {
    secret_created = apply_pull_secret(*client, ns, secret, options.registry, err);
    auto& spec = run.as_object()["spec"].as_object();
    if (!spec["imagePullSecrets"].is_array()) spec["imagePullSecrets"] = json::array();
    spec["imagePullSecrets"].as_array().push_back(json::object{{"name", secret}});
  }
  json::value created;
  try {
    created = client->create(kWorkloadRuns, ns, run);
  } catch (const k8s::ApiError& error) {
    if (secret_created) try {
        client->remove(kSecrets, ns, secret);
      } catch (const std::exception&) {
      }
    throw std::runtime_error(std::string("create workloadrun: ") + error.what());
  }
  cleanup.created(kWorkloadRuns, ns, name, "workloadrun");
  // The WorkloadRun has no finalizer; its Workflow's finalizer does the cascade.
  cleanup.wait_also(kWorkflows, ns, name);
  if (secret_created) own_pull_secret(*client, ns, secret, created, err);
  err << "WorkloadRun " << name << " created in namespace " << ns << ".\n";
  if (!options.wait) {
    err << "\nTo check status:\n  nvcrectl workloadrun status " << name << " -n " << ns << "\n";
    return 0;
  }
  const PollResult poll = poll_workloadrun(
      *client, ns, name, *timeout, interrupts ? interrupts->token() : std::stop_token{}, err);
  std::string error;
  if (poll.interrupted)
    error = "interrupted";
  else if (poll.timed_out)
    error = "timeout waiting for WorkloadRun " + name;
  else if (workloadrun_phase(poll.run) == "Failed")
    error = "WorkloadRun failed: " + condition_message(poll.run, "Failed");
  if (!poll.interrupted) report_run(*client, ns, name, options.results_file, err);
  cleanup.run();
  if (error.empty()) return 0;
  err << "Error: " << error << "\n";
  return 1;
}

int run_workloadrun_status(const WorkloadRunLookupOptions& options, std::ostream& out,
                           std::ostream& err) {
  (void)err;
  auto client = connect(options.connection);
  const std::string ns = client->config().ns;
  auto [run, objects] = fetch_workloadrun_objects(*client, ns, options.name);
  const std::string phase = workloadrun_phase(run);
  if (options.output != "json") {
    out << phase << "\n";
    return 0;
  }
  const auto built = report::build_workloadrun_report(run, objects, k8s::Clock::now());
  json::array failed;
  for (const auto& node : built.failed_nodes) failed.emplace_back(node);
  out << jsonkit::to_pretty_json(json::object{{"name", options.name},
                                              {"namespace", ns},
                                              {"status", phase},
                                              {"failedNodes", std::move(failed)}});
  return 0;
}

int run_workloadrun_report(const WorkloadRunLookupOptions& options, std::ostream& out,
                           std::ostream& err) {
  auto client = connect(options.connection);
  const std::string ns = client->config().ns;
  auto [run, objects] = fetch_workloadrun_objects(*client, ns, options.name);
  const auto built = report::build_workloadrun_report(run, objects, k8s::Clock::now());
  out << (options.output == "json" ? report::results_json({built}) : report::render_text({built}));
  if (!options.results_file.empty()) {
    write_report_file(options.results_file, report::results_json({built}), "results file");
    err << "Results written to " << options.results_file << "\n";
  }
  if (built.result == report::kResultRunning) {
    err << "Error: workloadrun \"" << options.name << "\" is still running\n";
    return 1;
  }
  if (built.result == report::kResultFailed) {
    err << "Error: workloadrun \"" << options.name << "\" failed\n";
    return 1;
  }
  return 0;
}

int run_workloadrun_cancel(const WorkloadRunCancelOptions& options, std::ostream& out,
                           std::ostream& err) {
  auto client = connect(options.connection);
  const std::string& ns = client->config().ns;
  std::string last_error;
  for (const auto& name : options.names) {
    try {
      client->remove(kWorkloadRuns, ns, name);
      out << "Cancelled " << name << "\n";
    } catch (const k8s::ApiError& error) {
      if (k8s::is_not_found(error)) {
        err << "workloadrun \"" << name << "\" not found in namespace \"" << ns << "\"\n";
        continue;
      }
      last_error = "cancel workloadrun \"" + name + "\": " + error.what();
      err << "Error: " << last_error << "\n";
    }
  }
  return last_error.empty() ? 0 : 1;
}

}  // namespace nvcre::cli
