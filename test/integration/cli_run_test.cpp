// `nvcrectl certification run` and `workloadrun run | status | report | cancel` as users run
// them: the real binary, a kubeconfig for an embedded kube-sim with the real manager on it.
// Checks exit status, stdout / stderr (progress, literal messages, the report), the results and
// JUnit files (python3's XML parser), and what is left in the cluster after --cleanup and SIGINT.
#include "cli/run_command.hpp"
#include "cli/run_support.hpp"
#include "cli/run_watch.hpp"
#include "test/support/cli_workspace.hpp"
#include "test/support/embedded_manager.hpp"
#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <sys/wait.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using nvcre::testing::kCertifications;
using nvcre::testing::kWorkloadRuns;

const k8s::ResourceRef kNamespaces{"", "v1", "namespaces", false};
const k8s::ResourceRef kSecrets{"", "v1", "secrets", true};
const std::string kDemo = std::string(NVCRE_SOURCE_DIR) + "/examples/demo-certification.yaml";

using nvcre::testing::CliRun;
using nvcre::testing::contains;
using nvcre::testing::read_text;

// nvcrectl <args> with no cluster at all: for errors found before connecting (the kubeconfig the
// workspace names is never written).
CliRun nvcrectl_offline(const std::string& args) {
  nvcre::testing::CliWorkspace cli;
  cli.open("nvcre-cli-run", "http://127.0.0.1:1");
  std::filesystem::remove(cli.kubeconfig());
  return cli.nvcrectl(args);
}

class CliRunTest : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void start_cluster(manager::EmbeddedClusterOptions options) {
    start(std::move(options));
    cli_.open("nvcre-cli-run", cluster_->sim().url());
    dir_ = cli_.dir();
  }
  void TearDown() override {
    EmbeddedManagerTest::TearDown();
    cli_.close();
  }
  std::string kubeconfig() const { return cli_.kubeconfig(); }
  CliRun nvcrectl(const std::string& args) { return cli_.nvcrectl(args); }
  std::string parse_junit(const fs::path& file) { return cli_.parse_junit(file); }

  bool exists(const k8s::ResourceRef& resource, const std::string& ns, const std::string& name) {
    try {
      client_->get(resource, ns, name);
      return true;
    } catch (const k8s::ApiError& error) {
      if (error.code == 404) return false;
      throw;
    }
  }

  nvcre::testing::CliWorkspace cli_;
  fs::path dir_;
};

TEST_F(CliRunTest, DemoCertificationWaitsReportsAndFailsOnTheFaultyNode) {
  manager::EmbeddedClusterOptions options;
  options.faulty_nodes = {"gpu-node-02=XID 79: GPU has fallen off the bus"};
  start_cluster(options);
  const fs::path results = dir_ / "r.json", junit = dir_ / "r.xml";
  const CliRun run = nvcrectl("certification run --cert-file " + kDemo + " --wait --results-file " +
                              results.string() + " --junit-file " + junit.string());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(contains(run.err, "Created namespace gpu-validation.\n")) << run.err;
  EXPECT_TRUE(contains(run.err,
                       "Certification demo-burnin created in namespace gpu-validation.\n"
                       "Categories:\n  - communication/nccl-all-reduce\n"))
      << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] Watching certification progress...\n")) << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] communication/nccl-all-reduce: InProgress (")) << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] communication/nccl-all-reduce: Failed (")) << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] Certification failed. (")) << run.err;
  EXPECT_TRUE(contains(run.err, "Failed nodes: gpu-node-02\n")) << run.err;
  // A failed wait puts the report on stderr, and stdout stays empty for pipelines.
  EXPECT_TRUE(contains(run.err, "│  Result:       FAILED")) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_TRUE(contains(run.err, "Results written to " + results.string())) << run.err;
  EXPECT_TRUE(run.err.ends_with("Error: certification failed\n")) << run.err;

  const json::value report = json::parse(read_text(results));
  EXPECT_EQ(report.at("name"), "demo-burnin");
  EXPECT_EQ(report.at("result"), "FAILED");
  EXPECT_EQ(report.at("failedNodes"), json::array{"gpu-node-02"});
  EXPECT_EQ(parse_junit(junit), "1 1 1 0 nccl-all-reduce");
  // Without --cleanup everything stays for a later `certification report`.
  EXPECT_TRUE(exists(kCertifications, "gpu-validation", "demo-burnin"));
}

TEST_F(CliRunTest, DemoCertificationOnAHealthyClusterExitsZeroWithTheReportOnStdout) {
  start_cluster({});
  const fs::path junit = dir_ / "r.xml";
  const CliRun run =
      nvcrectl("certification run --cert-file " + kDemo + " --wait --junit-file " + junit.string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] Certification succeeded. (")) << run.err;
  EXPECT_TRUE(contains(run.out, "  Name:      demo-burnin\n")) << run.out;
  EXPECT_TRUE(contains(run.out, "│  Result:       PASSED")) << run.out;
  EXPECT_FALSE(contains(run.err, "Error:")) << run.err;
  EXPECT_EQ(parse_junit(junit), "1 1 0 0 nccl-all-reduce");
}

TEST_F(CliRunTest, CategoryModeDiscoversTheProductAndDerivesTheWait) {
  start_cluster({});
  const CliRun run = nvcrectl(
      "certification run --category communication/nccl-all-reduce --nodes-per-job 4 "
      "--wait --cleanup --results-file " +
      (dir_ / "no-such-dir" / "r.json").string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "Discovered GPU nodes with product: NVIDIA-H100-80GB-HBM3\n"))
      << run.err;
  // A results file that cannot be written only warns here (report's is fatal).
  EXPECT_TRUE(contains(run.err, "Warning: failed to write results file " +
                                    (dir_ / "no-such-dir" / "r.json").string() + ": "))
      << run.err;
  // One category: 1h per job, one iteration, x 1.5.
  EXPECT_TRUE(contains(run.err,
                       "Waiting up to 1h30m0s (derived from category timeouts; pass --timeout "
                       "to override).\n"))
      << run.err;
  EXPECT_TRUE(contains(run.err, " created in namespace nvcrectl-20")) << run.err;
  EXPECT_TRUE(contains(run.out, "│  Result:       PASSED")) << run.out;
  EXPECT_TRUE(contains(run.err, "[cleanup] Done.\n")) << run.err;
  // The generated namespace and the Certification are gone again.
  const json::value namespaces = client_->list(kNamespaces, "");
  for (const auto& ns : namespaces.at("items").as_array())
    EXPECT_FALSE(ns.at_pointer("/metadata/name").as_string().starts_with("nvcrectl-"))
        << json::serialize(ns);
}

TEST_F(CliRunTest, OnATerminalEachCategoryIsOneLiveLine) {
  start_cluster({});
  // script(1) gives nvcrectl a pseudo-terminal, as a user's shell would.
  const fs::path out = dir_ / "typescript";
  const std::string command = "script -qec '" + std::string(NVCRECTL_BINARY) +
                              " certification run --category communication/nccl-all-reduce "
                              "--nodes-per-job 4 --name live -n it --wait --kubeconfig " +
                              kubeconfig() + "' /dev/null >" + out.string() + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string text = read_text(out);
  ASSERT_TRUE(WIFEXITED(status)) << text;
  EXPECT_EQ(WEXITSTATUS(status), 0) << text;
  // Redrawn in place (erase line, cursor up), not a scroll of status lines.
  EXPECT_TRUE(contains(text, "\x1b[2K[watch] communication/nccl-all-reduce  Succeeded")) << text;
  EXPECT_TRUE(contains(text, "groups 2/2 done")) << text;
  EXPECT_FALSE(contains(text, "[watch] communication/nccl-all-reduce: ")) << text;
  EXPECT_TRUE(contains(text, "[watch] Certification succeeded. (")) << text;
}

TEST_F(CliRunTest, TheWaitSurvivesDroppedAndExpiredWatches) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::seconds(4);
  start_cluster(options);
  // Every watch (the CLI's and the manager's) is cut after a second, some start with 410 Gone.
  cluster_->sim().api().faults().set_plan(
      sim::parse_fault_plan("seed: 7\nverbs:\n  watch:\n    dropEverySeconds: 1\n"
                            "    forceGoneRate: 0.3\n"));
  const CliRun run = nvcrectl(
      "certification run --category communication/nccl-all-reduce --nodes-per-job 4 "
      "--name dropped -n it --wait");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] Certification succeeded. (")) << run.err;
  EXPECT_TRUE(contains(run.out, "│  Result:       PASSED")) << run.out;
  EXPECT_GT(cluster_->sim().api().faults().counter("WatchDrop", sim::Verb::Watch), 0u);
}

TEST_F(CliRunTest, TimeoutPrintsThePartialReportAndExitsOne) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::seconds(60);
  start_cluster(options);
  const CliRun run = nvcrectl(
      "certification run --category communication/nccl-all-reduce --name slow -n it "
      "--wait --timeout 3s");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_FALSE(contains(run.err, "Waiting up to")) << run.err;
  EXPECT_TRUE(contains(run.err, "│  Result:       RUNNING")) << run.err;
  EXPECT_TRUE(contains(run.err,
                       "The certification is still running in namespace it.\n"
                       "Monitor its progress:\n  kubectl get certification slow -n it --watch\n"
                       "Print an updated report (exits nonzero while still running):\n"
                       "  nvcrectl certification report slow -n it\n"))
      << run.err;
  // "(ran for 3s)" unless the machine stalled for a second: the wording is pinned, not the time.
  EXPECT_TRUE(std::regex_search(
      run.err,
      std::regex("\nError: certification did not complete within 3s \\(ran for [0-9]+s\\)\n$")))
      << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_TRUE(exists(kCertifications, "it", "slow"));  // the run goes on without --cleanup
}

TEST_F(CliRunTest, SigintWithCleanupLeavesNoCertificationAndNoNamespace) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::seconds(60);
  start_cluster(options);
  const fs::path cert = dir_ / "cert.yaml";
  std::ofstream(cert) << "apiVersion: nvcre.nvidia.com/v1alpha1\nkind: Certification\n"
                         "metadata: {name: interrupted, namespace: sigint-run}\n"
                         "spec:\n  target: {nodeSelector: {nvidia.com/gpu.present: \"true\"}}\n"
                         "  nodesPerJob: 4\n"
                         "  categories: [{domain: communication, variant: nccl-all-reduce}]\n";
  const std::string log = (dir_ / "run.log").string();
  const pid_t pid = nvcre::testing::spawn_with_log(
      {NVCRECTL_BINARY, "certification", "run", "--cert-file", cert.string(), "--wait", "--cleanup",
       "--kubeconfig", kubeconfig()},
      log);
  // Interrupt once the Certification is running.
  bool running = false;
  for (int i = 0; i < 600 && !running; ++i) {
    running = contains(read_text(log), ": InProgress (");
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(running) << read_text(log);
  ASSERT_TRUE(exists(kNamespaces, "", "sigint-run"));
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string err = read_text(log);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;
  EXPECT_TRUE(contains(err, "[cleanup] Cleaning up...\n[cleanup] Deleting certification...\n"))
      << err;
  EXPECT_TRUE(contains(err, "[cleanup] Deleting namespace sigint-run...\n")) << err;
  EXPECT_TRUE(contains(err, "[cleanup] Done.\nError: interrupted\n")) << err;
  EXPECT_FALSE(exists(kCertifications, "sigint-run", "interrupted"));
  EXPECT_FALSE(exists(kNamespaces, "", "sigint-run"));
}

TEST_F(CliRunTest, RegistryFlagsCreateAPullSecretOwnedByTheCertification) {
  start_cluster({});
  const CliRun run = nvcrectl(
      "certification run --category communication/nccl-all-reduce --name pulled -n it "
      "--workload-registry nvcr.io --workload-registry-username '$oauthtoken' "
      "--workload-registry-password s3cret-token");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(
      contains(run.err, "Created image pull secret \"nvcrectl-pull-pulled\" in namespace it.\n"))
      << run.err;
  EXPECT_TRUE(contains(run.err, "\nTo check status:\n  kubectl get certification pulled -n it\n"))
      << run.err;
  EXPECT_FALSE(contains(run.err + run.out, "s3cret-token"));
  const json::value cert = client_->get(kCertifications, "it", "pulled");
  EXPECT_EQ(cert.at_pointer("/spec/imagePullSecrets/0/name"), "nvcrectl-pull-pulled");
  const json::value secret = client_->get(kSecrets, "it", "nvcrectl-pull-pulled");
  EXPECT_EQ(secret.at("type"), "kubernetes.io/dockerconfigjson");
  EXPECT_EQ(secret.at_pointer("/metadata/ownerReferences/0/kind"), "Certification");
  EXPECT_EQ(secret.at_pointer("/metadata/ownerReferences/0/uid"), cert.at_pointer("/metadata/uid"));
}

TEST_F(CliRunTest, ArchiveToAndExitDurationReachTheCertification) {
  start_cluster({});
  const CliRun run = nvcrectl(
      "certification run --category communication/nccl-all-reduce --name archived -n it "
      "--archive-to lab-archive --exit-duration-mins 45");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const json::value cert = client_->get(kCertifications, "it", "archived");
  EXPECT_EQ(cert.at_pointer("/metadata/annotations/nvcre.nvidia.com~1archive-destination"),
            "lab-archive");
  EXPECT_EQ(cert.at_pointer("/spec/exitDurationMins"), 45);
  // Zero means "the catalog's default": nothing is written.
  const CliRun plain =
      nvcrectl("certification run --category communication/nccl-all-reduce --name plain -n it");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  const json::value plain_cert = client_->get(kCertifications, "it", "plain");
  EXPECT_FALSE(plain_cert.at("spec").as_object().contains("exitDurationMins"));
  EXPECT_EQ(plain_cert.at("metadata").as_object().if_contains("annotations"), nullptr);
}

// --setup installs nvcre first (setup init, auto-approved) with the manager image and its pull
// secret, --cleanup removes the run's objects and then resets the install. The in-process manager
// runs the Certification (the installed Deployment has no kubelet to start it on kube-sim).
TEST_F(CliRunTest, SetupInstallsFirstAndCleanupResetsAfterwards) {
  start_cluster({});
  const std::string token = "ghp_s3cretvalue";
  const CliRun run = nvcrectl(
      "certification run --category communication/nccl-all-reduce --name set-up -n setup-run "
      "--setup --image registry.example.com/team/nvcre-manager:1.2 --controller-pull-secret " +
      token + " --wait --cleanup --timeout 2m");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "[setup] Installing dependencies...\n[preflight]")) << run.err;
  EXPECT_TRUE(contains(run.err, "initialized successfully.\n")) << run.err;
  EXPECT_LT(run.err.find("initialized successfully."), run.err.find("Certification set-up created"))
      << run.err;
  EXPECT_TRUE(contains(run.out, "│  Result:       PASSED")) << run.out;
  // Reset runs after the Certification and the namespace are gone, inside the cleanup.
  const auto deleted_ns = run.err.find("[cleanup] Deleting namespace setup-run...");
  const auto reset = run.err.find("[cr]");
  EXPECT_NE(deleted_ns, std::string::npos) << run.err;
  EXPECT_NE(reset, std::string::npos) << run.err;
  EXPECT_LT(deleted_ns, reset) << run.err;
  EXPECT_TRUE(contains(run.err, "[cleanup] Done.\n")) << run.err;
  EXPECT_FALSE(contains(run.err + run.out, token));
  EXPECT_FALSE(exists(kCertifications, "setup-run", "set-up"));
  EXPECT_FALSE(exists(kNamespaces, "", "setup-run"));
  const k8s::ResourceRef deployments{"apps", "v1", "deployments", true};
  EXPECT_FALSE(exists(deployments, "nvcre", "nvcre-manager"));
  // The pull secret stays with the nvcre namespace (reset keeps both), for the image's registry.
  const json::value secret = client_->get(kSecrets, "nvcre", "nvcre-manager-pull");
  EXPECT_EQ(secret.at("type"), "kubernetes.io/dockerconfigjson");
}

TEST_F(CliRunTest, SetupFailureStillCleansUpAndSaysWhichPhase) {
  start_cluster({});
  // Kubeflow Trainer missing: the [deps] phase stops setup before anything is created.
  client_->remove({"apiextensions.k8s.io", "v1", "customresourcedefinitions", false}, "",
                  "trainjobs.trainer.kubeflow.org");
  const CliRun run = nvcrectl(
      "certification run --category communication/nccl-all-reduce --name never -n never-ns "
      "--setup --cleanup");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "Error: [setup] [deps] Kubeflow Trainer is not installed"))
      << run.err;
  EXPECT_TRUE(contains(run.err, "[cleanup] Cleaning up...\n")) << run.err;
  EXPECT_FALSE(exists(kNamespaces, "", "never-ns"));
  EXPECT_FALSE(exists(kCertifications, "never-ns", "never"));
}

TEST_F(CliRunTest, ApiErrorsSayWhichStepFailed) {
  start_cluster({});
  auto& faults = cluster_->sim().api().faults();
  faults.set_plan(
      sim::parse_fault_plan("seed: 3\nverbs:\n  list:\n    errors:\n"
                            "    - {code: 500, rate: 1.0}\n"));
  const CliRun listing =
      nvcrectl("certification run --category communication/nccl-all-reduce --name never -n it");
  EXPECT_EQ(listing.exit_code, 1);
  EXPECT_TRUE(contains(listing.err, "Error: node discovery: ")) << listing.err;
  faults.set_plan(
      sim::parse_fault_plan("seed: 3\nverbs:\n  create:\n    errors:\n"
                            "    - {code: 500, rate: 1.0}\n"));
  const CliRun creating =
      nvcrectl("certification run --category communication/nccl-all-reduce --name never -n it");
  EXPECT_EQ(creating.exit_code, 1);
  EXPECT_TRUE(contains(creating.err, "Error: create certification: ")) << creating.err;
  faults.set_plan(sim::parse_fault_plan("seed: 3\n"));
  EXPECT_FALSE(exists(kCertifications, "it", "never"));
  // A cleanup that cannot delete says so and ends "with warnings"; the run itself succeeded.
  faults.set_plan(
      sim::parse_fault_plan("seed: 3\nverbs:\n  delete:\n    errors:\n"
                            "    - {code: 500, rate: 1.0}\n"));
  const CliRun kept = nvcrectl(
      "certification run --category communication/nccl-all-reduce --name kept -n it --cleanup");
  faults.set_plan(sim::parse_fault_plan("seed: 3\n"));
  EXPECT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_TRUE(contains(kept.err, "[cleanup] Warning: failed to delete certification: "))
      << kept.err;
  EXPECT_TRUE(contains(kept.err, "[cleanup] Done (with warnings).\n")) << kept.err;
}

// The messages of races a run cannot be made to hit on cue, from the steps that print them: the
// Certification deleted while the timeout was handled, or decided meanwhile; the pull secret gone
// or not writable when its owner reference is set.
TEST_F(CliRunTest, RacesAfterATimeoutAndAroundThePullSecretAreNamed) {
  start_cluster({});
  cli::CertificationRunOptions options;
  cli::WaitResult timed_out;
  timed_out.timed_out = true;
  std::ostringstream out, err;
  EXPECT_TRUE(cli::report_after_wait(options, *client_, "it", "gone", timed_out, out, err));
  EXPECT_EQ(err.str(),
            "Certification \"gone\" no longer exists after timeout; partial report unavailable.\n");
  const CliRun done = nvcrectl(
      "certification run --category communication/nccl-all-reduce --name done -n it --wait");
  ASSERT_EQ(done.exit_code, 0) << done.err;
  err.str("");
  EXPECT_TRUE(cli::report_after_wait(options, *client_, "it", "done", timed_out, out, err));
  EXPECT_TRUE(contains(err.str(),
                       "The certification completed while the timeout was being "
                       "handled.\n"))
      << err.str();

  const json::value owner = client_->get(kCertifications, "it", "done");
  err.str("");
  cli::own_pull_secret(*client_, "it", "nosuch", owner, err);
  EXPECT_TRUE(contains(err.str(),
                       "Warning: could not retrieve pull secret \"nosuch\" to set "
                       "OwnerReference: "))
      << err.str();
  client_->create({"", "v1", "secrets", true}, "it",
                  json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"pull"}})"));
  cluster_->sim().api().faults().set_plan(
      sim::parse_fault_plan("seed: 3\nverbs:\n  update:\n    errors:\n"
                            "    - {code: 500, rate: 1.0}\n"));
  err.str("");
  cli::own_pull_secret(*client_, "it", "pull", owner, err);
  cluster_->sim().api().faults().set_plan(sim::parse_fault_plan("seed: 3\n"));
  EXPECT_TRUE(contains(err.str(),
                       "Warning: could not set OwnerReference on pull secret \"pull\"; "
                       "it will not be deleted with its owner: "))
      << err.str();
}

TEST(CliRunInput, RenderWithoutAFileSaysWhatItNeeds) {
  const CliRun certification = nvcrectl_offline("certification render");
  EXPECT_EQ(certification.exit_code, 1);
  EXPECT_EQ(certification.err,
            "Error: requires a certification YAML file as argument\n\n"
            "Usage: nvcrectl certification render [flags] <certification.yaml>\n");
  nvcre::testing::CliWorkspace cli;
  cli.open("nvcre-cli-run", "http://127.0.0.1:1");
  const CliRun workflow = cli.nvcrectl_alone("workflow render");
  EXPECT_EQ(workflow.exit_code, 1);
  EXPECT_EQ(workflow.err,
            "Error: requires a workflow YAML file as argument\n\n"
            "Usage: nvcrectl workflow render [flags] <workflow.yaml>\n");
}

TEST(CliRunInput, MissingFilesAreNamedWithTheStepThatReadThem) {
  const CliRun workloadrun = nvcrectl_offline("workloadrun render /no/such-run.yaml");
  EXPECT_EQ(workloadrun.exit_code, 1);
  EXPECT_TRUE(workloadrun.err.starts_with("Error: reading /no/such-run.yaml: ")) << workloadrun.err;
  const CliRun run = nvcrectl_offline("workloadrun run /no/such-run.yaml");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(run.err.starts_with("Error: reading /no/such-run.yaml: ")) << run.err;
  const CliRun certification = nvcrectl_offline("certification run --cert-file /no/such.yaml");
  EXPECT_EQ(certification.exit_code, 1);
  EXPECT_TRUE(certification.err.starts_with("Error: read certification: open /no/such.yaml: "))
      << certification.err;
}

TEST(CliRunInput, LiteralMessagesBeforeAnythingIsCreated) {
  const auto error = [](const std::string& args) {
    const CliRun run = nvcrectl_offline("certification run " + args);
    EXPECT_EQ(run.exit_code, 1) << args;
    return run.err;
  };
  EXPECT_EQ(error("--cert-file x.yaml --category communication/nccl-all-reduce"),
            "Error: --cert-file and --category are mutually exclusive\n");
  EXPECT_EQ(error(""),
            "Error: either --cert-file or at least one --category is required\n\n"
            "Use 'nvcrectl certification list-categories' to see available categories\n");
  EXPECT_EQ(error("--category communication/nccl-all-reduce --workload-registry nvcr.io "
                  "--workload-registry-username me --workload-registry-password ''"),
            "Error: --workload-registry, --workload-registry-username, and "
            "--workload-registry-password must all be set together and non-empty\n");
  EXPECT_EQ(error("--category nccl"),
            "Error: invalid category format \"nccl\": expected domain/variant\n");
  EXPECT_TRUE(error("--category communication/nope")
                  .starts_with("Error: unknown category \"communication/nope\"\n\n"
                               "Available categories:\n  "));
  EXPECT_TRUE(error("--cert-file /nonexistent/c.yaml").starts_with("Error: read certification: "));
  EXPECT_TRUE(error("--category communication/nccl-all-reduce --timeout soon")
                  .starts_with("Error: invalid --timeout \"soon\""));

  std::random_device random;
  const fs::path dir = fs::temp_directory_path() / ("nvcre-cli-input-" + std::to_string(random()));
  fs::create_directories(dir);
  std::ofstream(dir / "bad.yaml") << "kind: Certification\nspec: [unclosed\n";
  EXPECT_TRUE(error("--cert-file " + (dir / "bad.yaml").string())
                  .starts_with("Error: parse certification: "));
  std::ofstream(dir / "keys.yaml")
      << "apiVersion: nvcre.nvidia.com/v1alpha1\nkind: Certification\nmetadata: {name: k}\n"
         "spec:\n  target: {nodeSelector: {nvidia.com/gpu.present: \"true\"}}\n"
         "  thresholds: {speed: \"value > 1\"}\n"
         "  categories: [{domain: communication, variant: nccl-all-reduce}]\n";
  EXPECT_TRUE(error("--cert-file " + (dir / "keys.yaml").string())
                  .starts_with("Error: certification k: unknown threshold key(s) [speed]; valid "
                               "keys: ["));
  const CliRun wrong_kind = nvcrectl_offline("workloadrun run " + (dir / "keys.yaml").string());
  EXPECT_EQ(wrong_kind.exit_code, 1);
  EXPECT_EQ(wrong_kind.err, "Error: expected kind WorkloadRun, got \"Certification\"\n");
  fs::remove_all(dir);
}

json::value workloadrun(const std::string& name) {
  return json::parse(R"({"apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "WorkloadRun",
    "metadata": {"name": ")" +
                     name + R"(", "namespace": "it"},
    "spec": {"target": {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
             "image": "nvcr.io/nvidia/pytorch:26.01-py3", "numNodes": 4,
             "framework": {"torch": {"module": "train"}}}})");
}

TEST_F(CliRunTest, WorkloadRunRunStatusReportAndCancel) {
  start_cluster({});
  const fs::path file = dir_ / "run.json";
  std::ofstream(file) << json::serialize(workloadrun("smoke"));
  const fs::path results = dir_ / "wr.json";
  const CliRun run =
      nvcrectl("workloadrun run " + file.string() + " --wait --results-file " + results.string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "WorkloadRun smoke created in namespace it.\n")) << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] WorkloadRun succeeded. (")) << run.err;
  EXPECT_TRUE(contains(run.err, "WorkloadRun Report")) << run.err;
  const json::value report = json::parse(read_text(results));
  EXPECT_EQ(report.at("title"), "WorkloadRun Report");
  EXPECT_EQ(report.at("result"), "PASSED");
  EXPECT_EQ(report.at("categories").at(0).at("domain"), "workloadrun");
  EXPECT_EQ(report.at("categories").at(0).at("variant"), "smoke");

  const CliRun status = nvcrectl("workloadrun status smoke -n it");
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.out, "Succeeded\n");
  const CliRun status_json = nvcrectl("workloadrun status smoke -n it -o json");
  EXPECT_EQ(json::parse(status_json.out),
            json::parse(R"({"name": "smoke", "namespace": "it", "status": "Succeeded",
                            "failedNodes": []})"));
  const CliRun text = nvcrectl("workloadrun report smoke -n it");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "│  workloadrun/smoke")) << text.out;
  const CliRun missing = nvcrectl("workloadrun report nope -n it");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "Error: workloadrun \"nope\" not found in namespace \"it\"\n");

  const CliRun cancel = nvcrectl("workloadrun cancel smoke nope -n it");
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(cancel.out, "Cancelled smoke\n");
  EXPECT_EQ(cancel.err, "workloadrun \"nope\" not found in namespace \"it\"\n");
  EXPECT_FALSE(contains(nvcrectl("workloadrun status smoke -n it").out, "Succeeded"));
}

TEST_F(CliRunTest, WorkloadRunTimeoutLeavesItRunning) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::seconds(60);
  start_cluster(options);
  const fs::path file = dir_ / "run.json";
  std::ofstream(file) << json::serialize(workloadrun("slow"));
  const CliRun run = nvcrectl("workloadrun run " + file.string() + " --wait --timeout 2s");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(run.err.ends_with("Error: timeout waiting for WorkloadRun slow\n")) << run.err;
  EXPECT_TRUE(contains(run.err, "│  Result:       RUNNING")) << run.err;
  const CliRun report = nvcrectl("workloadrun report slow -n it -o json");
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_EQ(report.err, "Error: workloadrun \"slow\" is still running\n");
  EXPECT_EQ(json::parse(report.out).at("result"), "RUNNING");
  const CliRun status = nvcrectl("workloadrun status slow -n it");
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.out, "InProgress\n");
}

TEST_F(CliRunTest, FailedWorkloadRunReportExitsOne) {
  manager::EmbeddedClusterOptions options;
  options.faulty_nodes = {"gpu-node-02=XID 79: GPU has fallen off the bus"};
  start_cluster(options);
  const fs::path file = dir_ / "run.json";
  std::ofstream(file) << json::serialize(workloadrun("broken"));
  const CliRun run = nvcrectl("workloadrun run " + file.string() + " --wait --cleanup");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(contains(run.err, "[watch] WorkloadRun failed. (")) << run.err;
  EXPECT_TRUE(contains(run.err, "│  Result:       FAILED")) << run.err;
  EXPECT_TRUE(contains(run.err, "[cleanup] Done.\nError: WorkloadRun failed: ")) << run.err;
  EXPECT_FALSE(exists(kWorkloadRuns, "it", "broken"));

  const CliRun kept = nvcrectl("workloadrun run " + file.string() + " --name kept --wait");
  EXPECT_EQ(kept.exit_code, 1) << kept.err;
  const CliRun report = nvcrectl("workloadrun report kept -n it");
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_EQ(report.err, "Error: workloadrun \"kept\" failed\n");
  EXPECT_TRUE(contains(report.out, "│  Status:    Failed")) << report.out;
  const CliRun status = nvcrectl("workloadrun status kept -n it -o json");
  const json::value object = json::parse(status.out);
  EXPECT_EQ(object.at("status"), "Failed");
  const auto& failed = object.at("failedNodes").as_array();
  EXPECT_NE(std::find(failed.begin(), failed.end(), json::value("gpu-node-02")), failed.end())
      << status.out;
}

}  // namespace
}  // namespace nvcre::actors
