#include "cli/run_command.hpp"

#include "api/objects.hpp"
#include "cli/certification_commands.hpp"
#include "cli/gpu_nodes.hpp"
#include "cli/interrupts.hpp"
#include "cli/report_command.hpp"
#include "cli/run_support.hpp"
#include "cli/run_watch.hpp"
#include "cli/setup_command.hpp"
#include "k8s/duration.hpp"
#include "report/junit.hpp"
#include "report/text.hpp"

#include <boost/json.hpp>

#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;

namespace {

const k8s::ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications", true};

// The Certification this run creates, and where.
struct Plan {
  api::Certification certification;
  std::chrono::nanoseconds timeout{};
  bool timeout_derived = false;
};

// The GPU nodes' one product; a cluster of several products is certified one product at a time.
std::string cluster_gpu_product(k8s::RestClient& client) {
  std::vector<json::value> nodes;
  try {
    nodes = list_gpu_nodes(client);
  } catch (const k8s::ApiError& error) {
    throw std::runtime_error(std::string("node discovery: ") + error.what());
  }
  try {
    return uniform_gpu_product(nodes);
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    if (!message.starts_with("heterogeneous GPUs: ")) throw;
    throw std::runtime_error(message +
                             "; certify one product at a time with --cert-file and a "
                             "nvidia.com/gpu.product nodeSelector");
  }
}

// The file's Certification, read and checked before anything talks to the cluster.
api::Certification certification_from_file(const CertificationRunOptions& options,
                                           const std::string& generated) {
  api::Certification certification = read_certification(options.cert_file);
  check_options(certification);
  auto& ns = certification.metadata.namespace_;
  const std::string& flag_ns = options.connection.overrides.ns;
  if (ns.empty()) ns = flag_ns.empty() ? generated : flag_ns;
  return certification;
}

Plan plan_run(const CertificationRunOptions& options, std::optional<api::Certification> from_file,
              const std::string& generated, k8s::RestClient& client, std::ostream& err) {
  Plan plan;
  const std::string& flag_ns = options.connection.overrides.ns;
  if (from_file) {
    plan.certification = std::move(*from_file);
  } else {
    auto categories = parse_categories(options.categories);
    const std::string product = cluster_gpu_product(client);
    err << "Discovered GPU nodes with product: " << product << "\n";
    plan.certification = certification_from_flags(options.name.empty() ? generated : options.name,
                                                  flag_ns.empty() ? generated : flag_ns,
                                                  std::move(categories), options.category);
  }
  if (!options.archive_to.empty()) set_archive_destination(plan.certification, options.archive_to);
  if (!options.timeout.empty()) {
    plan.timeout = *k8s::parse_go_duration(options.timeout);
  } else if (auto derived = derived_wait_timeout(plan.certification.spec)) {
    plan.timeout = *derived;
    plan.timeout_derived = true;
  } else {
    plan.timeout = kDefaultWaitTimeout;
  }
  return plan;
}

std::chrono::nanoseconds parse_timeout_flag(const std::string& text) {
  if (text.empty()) return {};
  const auto timeout = k8s::parse_go_duration(text);
  if (!timeout || timeout->count() <= 0)
    throw std::invalid_argument("invalid --timeout \"" + text +
                                "\": expected a positive duration such as 90s, 45m or 2h");
  return *timeout;
}

void print_still_running(const std::string& name, const std::string& ns, std::ostream& err) {
  err << "\nThe certification is still running in namespace " << ns << ".\n"
      << "Monitor its progress:\n  kubectl get certification " << name << " -n " << ns
      << " --watch\n"
      << "Print an updated report (exits nonzero while still running):\n"
      << "  nvcrectl certification report " << name << " -n " << ns << "\n"
      << "Stop it:\n  kubectl delete certification " << name << " -n " << ns << "\n";
}

// Creates the namespace, pull secret and Certification; returns the created object.
json::value create_everything(const CertificationRunOptions& options, k8s::RestClient& client,
                              api::Certification& certification, Cleanup& cleanup,
                              std::ostream& err) {
  const std::string ns = certification.metadata.namespace_;
  const std::string name = certification.metadata.name;
  if (ensure_namespace(client, ns, err)) cleanup.created_namespace(ns);
  bool secret_created = false;
  const std::string secret = pull_secret_name(name);
  if (!options.registry.password.empty()) {
    secret_created = apply_pull_secret(client, ns, secret, options.registry, err);
    certification.spec.options.imagePullSecrets.push_back({secret});
  }
  json::value created;
  try {
    created = client.create(kCertifications, ns, api::encode_object(certification));
  } catch (const k8s::ApiError& error) {
    if (secret_created) {
      try {
        client.remove(kSecrets, ns, secret);
      } catch (const std::exception&) {
        // The namespace cleanup (if any) removes it; otherwise it is only a leftover secret.
      }
    }
    throw std::runtime_error(std::string("create certification: ") + error.what());
  }
  cleanup.created(kCertifications, ns, name, "certification");
  if (secret_created) own_pull_secret(client, ns, secret, created, err);
  err << "Certification " << name << " created in namespace " << ns << ".\nCategories:\n";
  for (const auto& category : certification.spec.categories)
    err << "  - " << category.domain << "/" << category.variant << "\n";
  return created;
}

// `setup init` / `setup reset` as --setup runs them: auto-approved, on the run's cluster.
SetupOptions setup_options(const CertificationRunOptions& options) {
  SetupOptions setup;
  setup.connection = options.connection;
  setup.connection.overrides.ns.clear();  // setup installs into its own namespace
  setup.image = options.image;
  setup.image_pull_secret = options.controller_pull_secret;
  setup.auto_approve = true;
  return setup;
}

// --setup: installs nvcre before anything is created; with --cleanup, registers the reset that runs
// after the Certification and namespace are gone.
void run_setup(const CertificationRunOptions& options, Cleanup& cleanup, std::ostream& err) {
  if (!options.setup) return;
  if (options.cleanup)
    cleanup.finally([options, &err] {
      try {
        return run_setup_reset(setup_options(options), std::cin, err) == 0;
      } catch (const std::exception& error) {
        err << "[cleanup] Warning: reset failed: " << error.what() << "\n";
        return false;
      }
    });
  err << "[setup] Installing dependencies...\n";
  try {
    run_setup_init(setup_options(options), std::cin, err);
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("[setup] ") + error.what());
  }
}

}  // namespace

bool report_after_wait(const CertificationRunOptions& options, k8s::RestClient& client,
                       const std::string& ns, const std::string& name, const WaitResult& wait,
                       std::ostream& out, std::ostream& err) {
  report::CertificationReport built;
  try {
    built = report::build_certification_report(fetch_report_objects(client, ns, name),
                                               k8s::Clock::now());
  } catch (const std::exception& error) {
    if (wait.timed_out && std::string(error.what()).find("not found") != std::string::npos)
      err << "Certification \"" << name
          << "\" no longer exists after timeout; partial report unavailable.\n";
    else
      err << "Warning: could not build the report of certification \"" << name
          << "\": " << error.what() << "\n";
    return true;
  }
  if (wait.outcome == RunOutcome::Failed && !built.failed_nodes.empty()) {
    std::string nodes;
    for (const auto& node : built.failed_nodes) nodes += (nodes.empty() ? "" : ", ") + node;
    err << "Failed nodes: " << nodes << "\n";
  }
  const bool ok = wait.outcome == RunOutcome::Succeeded && !wait.timed_out;
  (ok ? out : err) << report::render_text({built}) << std::flush;
  if (!options.results_file.empty()) {
    try {
      write_report_file(options.results_file, report::results_json({built}), "results file");
      err << "Results written to " << options.results_file << "\n";
    } catch (const std::exception& error) {
      err << "Warning: failed to write results file " << options.results_file << ": "
          << error.what() << "\n";
    }
  }
  if (!options.junit_file.empty()) {
    try {
      write_report_file(options.junit_file, report::render_junit({built}), "JUnit report");
      err << "JUnit report written to " << options.junit_file << "\n";
    } catch (const std::exception& error) {
      err << "Error: " << error.what() << "\n";
      return false;
    }
  }
  if (wait.timed_out && !options.cleanup) {
    if (built.result == report::kResultRunning)
      print_still_running(name, ns, err);
    else
      err << "The certification completed while the timeout was being handled.\n";
  }
  return true;
}

int run_certification_run(const CertificationRunOptions& options, std::ostream& out,
                          std::ostream& err) {
  check_run_inputs(options.cert_file, options.categories, options.registry);
  if (!options.setup && (!options.image.empty() || !options.controller_pull_secret.empty()))
    err << "Warning: --image and --controller-pull-secret are used only with --setup; ignored.\n";
  parse_timeout_flag(options.timeout);
  // Bad input is reported before anything talks to the cluster.
  const std::string generated = generated_run_name(std::chrono::system_clock::now());
  std::optional<api::Certification> from_file;
  if (options.cert_file.empty())
    parse_categories(options.categories);
  else
    from_file = certification_from_file(options, generated);
  // Before any thread exists, so every thread inherits the blocked signals.
  std::optional<Interrupts> interrupts;
  if (options.cleanup || options.setup) interrupts.emplace();
  auto client = connect(options.connection);
  Plan plan = plan_run(options, std::move(from_file), generated, *client, err);
  const std::string ns = plan.certification.metadata.namespace_;
  const std::string name = plan.certification.metadata.name;

  Cleanup cleanup(*client, err, options.cleanup);
  run_setup(options, cleanup, err);
  create_everything(options, *client, plan.certification, cleanup, err);
  if (!options.wait) {
    err << "\nTo check status:\n  kubectl get certification " << name << " -n " << ns << "\n";
    return 0;
  }
  err << "\n";
  if (plan.timeout_derived)
    err << "Waiting up to " << k8s::format_go_duration(plan.timeout)
        << " (derived from category timeouts; pass --timeout to override).\n";
  WaitRequest request;
  request.ns = ns;
  request.name = name;
  request.timeout = plan.timeout;
  request.live = options.live;
  if (interrupts) request.interrupt = interrupts->token();
  const WaitResult wait = wait_for_certification(*client, request, err);

  std::string error;
  if (wait.interrupted)
    error = "interrupted";
  else if (wait.timed_out)
    error = "certification did not complete within " + k8s::format_go_duration(plan.timeout) +
            " (ran for " + format_elapsed(wait.elapsed) + ")";
  else if (wait.outcome == RunOutcome::Failed)
    error = "certification failed";
  bool files_ok = true;
  if (!wait.interrupted) files_ok = report_after_wait(options, *client, ns, name, wait, out, err);
  cleanup.run();
  if (!error.empty()) {
    err << "Error: " << error << "\n";
    return 1;
  }
  return files_ok ? 0 : 1;
}

}  // namespace nvcre::cli
