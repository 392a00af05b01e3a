// The manager benchmark of issue 5: the real nvcre-manager binary, run as its own process against an
// in-process kube-sim (simulated GPU cluster + Trainer), measured from outside. Two phases, each on
// a fresh cluster and a fresh manager:
//
//   latency: N Certifications (C in flight at a time, each on its own slice of nodes, one category
//            whose nodes are split into several Jobs -> TrainJobs). kube-sim's store, in this
//            process, reports each write as it commits it (Store::set_on_commit); the first
//            write showing a TrainJob, Job, Workflow or Certification terminal is timestamped
//            with one steady clock. No watch of ours sits between a commit and its time, so the
//            figures hold only the manager's path (its watches, reconciles and writes) and
//            kube-sim's handling of its requests. Reported: the time from
//            the last TrainJob of a Certification turning Complete to the Certification turning
//            Succeeded (median/p90/p99/max), and its breakdown TrainJob -> Job -> Workflow ->
//            Certification; then the same latency by how many other Certifications' completions
//            overlapped it (the runs' Certifications drift into or out of lockstep, finishing in
//            the same Trainer pass, and that sets the tail more than anything else).
//   rss:     the manager synced with the cluster's Nodes and nothing else (idle baseline), then
//            M Certifications created and left in flight (the Trainer's step is so long that no
//            TrainJob ever finishes). Once the object counts are stable and the manager is idle:
//            its VmRSS / VmHWM (/proc/<pid>/status), and the summed serialized size of every object
//            of the kinds it watches (nvcre_watches(), same label selectors) as the API returns
//            them. Reported: growth over idle, per Certification, and growth / JSON bytes; also
//            how many pods the Trainer bound (every Certification fanned out, or not), and the
//            bytes the cache keeps of those objects after its transform (k8s::trim_for_cache).
//
// Usage: nvcre_manager_bench [--quick] [--phase all|latency|rss] [--certifications N]
//          [--concurrency C] [--lockstep] [--in-flight M] [--cluster P:G:NODES] [--nodes-per-cert K]
//          [--nodes-per-job J] [--gpus-per-node G] [--trainer-step-ms S] [--manager PATH]
//          [-- MANAGER-ARG...]   (--help lists them)
//   defaults: N=200, C=4, M=1000, K=4, J=2, S=500; --quick: N=4, M=20.
//   latency: aws:h100:64 and the catalog's gpusPerNode (the whole node).
//   rss:     G=1 (eight Certifications share an H100 node) on aws:h100 with just enough nodes for
//            all M*K pods to be bound at once (at least 64; 500 for M=1000), so every Certification
//            really fans out: at the catalog's 8 GPUs per pod only 16 of them fit on 64 nodes and
//            the rest wait Unschedulable, retried by kube-sim's Trainer on every pass, which then
//            limits how far the others get before the settle deadline.
// The latency phase runs the manager with its default flags (client-side --qps 20 --burst 30); the
// rss phase adds --qps -1 (unless the manager arguments after -- set --qps) so 1,000 Certifications settle in
// minutes: what is cached does not depend on how fast it arrived.
// The latency phase deletes each finished Certification (kube-sim then holds only what is in flight).
// By default it starts the next Certification as soon as one finishes, so completions drift
// between staggered and lockstep; --lockstep starts C together and the next C only when all are
// done, so every completion overlaps the other C-1: the worst case, reproducible.
// The manager's stderr goes to
// $TMPDIR/nvcre_manager_bench.<phase>.<pid>.log; its pid is printed so a profiler can attach
// (perf record -g -p PID).
#include "actors/controllers.hpp"
#include "actors/embedded/embedded_cluster.hpp"
#include "actors/embedded/manager_process.hpp"
#include "k8s/cache_transform.hpp"
#include "k8s/rest_client.hpp"
#include "platform/gpu_defaults.hpp"
#include "sim/api_server.hpp"
#include "sim/cluster_profile.hpp"
#include "sim/kube_sim.hpp"
#include "sim/store.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace json = boost::json;
namespace k8s = nvcre::k8s;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

const k8s::ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications", true};
const k8s::ResourceRef kWorkflows{"nvcre.nvidia.com", "v1alpha1", "workflows", true};
const k8s::ResourceRef kJobs{"nvcre.nvidia.com", "v1alpha1", "jobs", true};
const k8s::ResourceRef kTrainJobs{"trainer.kubeflow.org", "v1alpha1", "trainjobs", true};
constexpr const char* kNamespace = "bench";

struct Settings {
  bool quick = false;
  std::string phase = "all";
  int certifications = 200;
  int concurrency = 4;
  bool lockstep = false;
  int in_flight = 1000;
  std::optional<std::string> cluster;  // per phase when unset (see the header)
  int nodes_per_cert = 4;
  int nodes_per_job = 2;
  std::optional<int> gpus_per_node;  // the category's gpusPerNode option; per phase when unset
  // kube-sim's default. Its Trainer passes over every stored TrainJob every step/5 (>= 10 ms): at
  // 50 ms and a few hundred finished TrainJobs kube-sim, not the manager, set the pace (measured
  // when the pass still held the API lock). The latency measured starts at TrainJob Complete, so
  // the step only sets throughput.
  int trainer_step_ms = 500;
  std::string manager = NVCRE_MANAGER_BINARY;
  std::vector<std::string> manager_args;
};

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// ---------------------------------------------------------------------------------------------
// Objects

std::string node_name(int index, int node_count) { return nvcre::sim::profile_node_name(index, node_count); }

json::value certification(const std::string& name, const std::vector<std::string>& nodes, int nodes_per_job,
                          std::optional<int> gpus_per_node = std::nullopt) {
  json::array node_names;
  for (const auto& n : nodes) node_names.emplace_back(n);
  json::object options{{"nodesPerJob", nodes_per_job}};
  if (gpus_per_node) options["gpusPerNode"] = *gpus_per_node;
  return json::object{
      {"apiVersion", "nvcre.nvidia.com/v1alpha1"},
      {"kind", "Certification"},
      {"metadata", {{"name", name}, {"namespace", kNamespace}}},
      {"spec",
       {{"target", {{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}}, {"nodeNames", std::move(node_names)}}},
        {"categories", json::array{json::object{{"domain", "communication"},
                                                {"variant", "nccl-all-reduce"},
                                                {"options", std::move(options)}}}}}}};
}

// "Succeeded"/"Failed" (nvcre kinds) or "Complete"/"Failed" (TrainJob) when that condition is True.
std::string terminal_condition(const json::value& object) {
  const auto* o = object.if_object();
  const auto* status = o == nullptr ? nullptr : o->if_contains("status");
  const auto* conditions = status == nullptr || !status->is_object() ? nullptr : status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return {};
  for (const auto& c : conditions->as_array()) {
    const auto* co = c.if_object();
    if (co == nullptr) continue;
    const auto* s = co->if_contains("status");
    const auto* t = co->if_contains("type");
    if (s == nullptr || t == nullptr || !s->is_string() || !t->is_string() || s->as_string() != "True") continue;
    if (t->as_string() == "Succeeded" || t->as_string() == "Failed" || t->as_string() == "Complete") {
      return std::string(t->as_string());
    }
  }
  return {};
}

// object[a][b] when it is a string, else "".
std::string string_at(const json::value& object, std::string_view a, std::string_view b) {
  const auto* outer = object.if_object();
  const auto* inner = outer == nullptr ? nullptr : outer->if_contains(a);
  const auto* inner_object = inner == nullptr ? nullptr : inner->if_object();
  const auto* value = inner_object == nullptr ? nullptr : inner_object->if_contains(b);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::string controller_owner(const json::value& object) {
  const auto& meta = object.at("metadata").as_object();
  const auto* owners = meta.if_contains("ownerReferences");
  if (owners == nullptr || !owners->is_array()) return {};
  for (const auto& owner : owners->as_array()) {
    const auto* controller = owner.as_object().if_contains("controller");
    if (controller != nullptr && controller->is_bool() && controller->as_bool()) {
      return std::string(owner.at("name").as_string());
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// What the watches saw: per object, its controlling owner and when it was first seen terminal.

struct Seen {
  std::string owner;
  std::string terminal;
  std::optional<Clock::time_point> terminal_at;
};

class Recorder {
 public:
  void observe(const std::string& kind, const json::value& object, Clock::time_point at) {
    std::string name(object.at("metadata").at("name").as_string());
    std::string terminal = terminal_condition(object);
    std::lock_guard lock(mutex_);
    auto& seen = seen_[kind][name];
    if (seen.owner.empty()) seen.owner = controller_owner(object);
    if (!terminal.empty() && !seen.terminal_at) {
      seen.terminal = terminal;
      seen.terminal_at = at;
      if (kind == "Certification") changed_.notify_all();
    }
  }
  // Blocks until one of `names` is terminal (or `deadline`); returns it, or "".
  std::string wait_for_terminal(const std::vector<std::string>& names, Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    std::string found;
    changed_.wait_until(lock, deadline, [&] {
      for (const auto& name : names) {
        auto it = seen_["Certification"].find(name);
        if (it != seen_["Certification"].end() && it->second.terminal_at) {
          found = name;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::map<std::string, std::map<std::string, Seen>> snapshot() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::map<std::string, Seen>> seen_;  // kind -> name -> seen
};

// Feeds the recorder from kube-sim's store as each write commits, for the kinds of the chain.
class CommitObserver {
 public:
  CommitObserver(nvcre::sim::Store& store, Recorder& recorder) : store_(store) {
    store_.set_on_commit([&recorder](const nvcre::sim::WatchEvent& event) {
      const auto at = Clock::now();
      if (const char* kind = chain_kind(event.group, event.resource)) recorder.observe(kind, *event.object, at);
    });
  }
  ~CommitObserver() { stop(); }
  void stop() { store_.set_on_commit(nullptr); }

 private:
  static const char* chain_kind(std::string_view group, std::string_view resource) {
    static const std::pair<const k8s::ResourceRef*, const char*> kChain[] = {
        {&kTrainJobs, "TrainJob"}, {&kJobs, "Job"}, {&kWorkflows, "Workflow"}, {&kCertifications, "Certification"}};
    for (const auto& [ref, kind] : kChain) {
      if (group == ref->group && resource == ref->resource) return kind;
    }
    return nullptr;
  }

  nvcre::sim::Store& store_;
};

// ---------------------------------------------------------------------------------------------
// The manager process

struct MemoryKb {
  long rss = 0;
  long hwm = 0;
};

unsigned short free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("cannot pick a free loopback port");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// The running manager, so an interrupted bench does not leave it behind.
std::atomic<pid_t> g_manager_pid{-1};

void stop_manager_and_exit(int signal) {
  if (pid_t pid = g_manager_pid.load(); pid > 0) ::kill(pid, SIGTERM);
  ::_exit(128 + signal);
}

class ManagerProcess {
 public:
  ManagerProcess(const Settings& settings, const std::string& server_url, const std::string& phase,
                 std::vector<std::string> extra_args = {}) {
    auto dir = std::filesystem::temp_directory_path();
    kubeconfig_ = (dir / ("nvcre_manager_bench." + phase + "." + std::to_string(::getpid()) + ".kubeconfig")).string();
    log_ = (dir / ("nvcre_manager_bench." + phase + "." + std::to_string(::getpid()) + ".log")).string();
    nvcre::actors::write_sim_kubeconfig(kubeconfig_, server_url);
    probe_port_ = free_loopback_port();
    std::vector<std::string> args{settings.manager, "--kubeconfig", kubeconfig_, "--health-probe-bind-address",
                                  "127.0.0.1:" + std::to_string(probe_port_)};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    args.insert(args.end(), settings.manager_args.begin(), settings.manager_args.end());
    std::fprintf(stderr, "%s:", phase.c_str());
    for (const auto& a : args) std::fprintf(stderr, " %s", a.c_str());
    std::fprintf(stderr, "\n");
    pid_ = nvcre::actors::spawn_with_log(args, log_);
    g_manager_pid = pid_;
  }
  ~ManagerProcess() {
    g_manager_pid = -1;
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      auto until = Clock::now() + 10s;
      int status = 0;
      while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (Clock::now() > until) {
          ::kill(pid_, SIGKILL);
          ::waitpid(pid_, &status, 0);
          break;
        }
        std::this_thread::sleep_for(20ms);
      }
    }
    std::filesystem::remove(kubeconfig_);
  }
  pid_t pid() const { return pid_; }
  const std::string& log() const { return log_; }

  bool alive() const { return ::kill(pid_, 0) == 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }

  // /readyz answers 200 once every watched kind is listed (the informer caches are synced).
  void wait_ready(std::chrono::seconds timeout) const {
    k8s::ClientConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(probe_port_);
    config.rate_limit.qps = -1;
    k8s::RestClientOptions options;
    options.max_retries = 0;
    options.timeout = 1s;
    auto until = Clock::now() + timeout;
    while (Clock::now() < until) {
      if (!alive()) throw std::runtime_error("nvcre-manager exited; see " + log_);
      try {
        k8s::RestClient probe(config, options);
        if (probe.request({"GET", "/readyz", {}, "", ""}).status == 200) return;
      } catch (const std::exception&) {
      }
      std::this_thread::sleep_for(50ms);
    }
    throw std::runtime_error("nvcre-manager not ready in time; see " + log_);
  }

  MemoryKb memory() const {
    MemoryKb m;
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) m.rss = std::stol(line.substr(6));
      if (line.rfind("VmHWM:", 0) == 0) m.hwm = std::stol(line.substr(6));
    }
    return m;
  }

  // User + system CPU seconds so far.
  double cpu_seconds() const {
    std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; fields >> field; ++i) {
      if (i == 14 || i == 15) ticks += std::stod(field);
      if (i == 15) break;
    }
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }

 private:
  pid_t pid_ = -1;
  std::string kubeconfig_;
  std::string log_;
  unsigned short probe_port_ = 0;
};

// The bench's own clients carry their own User-Agent so kube-sim's stats tell the manager apart.
std::unique_ptr<k8s::RestClient> bench_client(const nvcre::actors::EmbeddedCluster& cluster) {
  k8s::RestClientOptions options;
  options.user_agent = "nvcre-bench";
  return std::make_unique<k8s::RestClient>(cluster.client_config(), options);
}

// The manager's API requests by verb (kube-sim's counters for User-Agent "nvcre").
std::map<std::string, std::uint64_t> manager_requests(k8s::RestClient& client) {
  std::map<std::string, std::uint64_t> out;
  const json::value stats = json::parse(client.request({"GET", "/sim/stats", {{"recent", "0"}}, "", ""}).body);
  if (const auto* agent = stats.at("byUserAgent").as_object().if_contains("nvcre")) {
    for (const auto& [verb, n] : agent->as_object()) out[verb] = n.to_number<std::uint64_t>();
  }
  return out;
}

void print_requests(const std::map<std::string, std::uint64_t>& requests, int certifications) {
  std::uint64_t total = 0;
  std::printf("manager API requests per Certification:");
  for (const auto& [verb, n] : requests) {
    if (verb == "watch" || verb == "list" || verb == "other") continue;
    total += n;
    std::printf(" %s %.1f", verb.c_str(), static_cast<double>(n) / certifications);
  }
  std::printf("; total %.1f\n", static_cast<double>(total) / certifications);
}

std::unique_ptr<nvcre::actors::EmbeddedCluster> start_cluster(const std::string& profile,
                                                              std::chrono::milliseconds trainer_step) {
  nvcre::actors::EmbeddedClusterOptions options;
  options.profile = profile;
  options.trainer_step = trainer_step;
  options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
  options.namespaces = {kNamespace};
  auto cluster = std::make_unique<nvcre::actors::EmbeddedCluster>(options);
  cluster->start();
  return cluster;
}

std::vector<std::string> slice_nodes(int slice, const Settings& settings, int node_count) {
  std::vector<std::string> nodes;
  for (int i = 0; i < settings.nodes_per_cert; ++i) {
    nodes.push_back(node_name((slice * settings.nodes_per_cert + i) % node_count, node_count));
  }
  return nodes;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

void print_load() {
  double load[3] = {};
  if (::getloadavg(load, 3) == 3) std::printf("load average: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
}

// ---------------------------------------------------------------------------------------------
// Phase 1: latency

void run_latency(const Settings& settings) {
  const std::string profile = settings.cluster.value_or("aws:h100:64");
  auto cluster = start_cluster(profile, std::chrono::milliseconds(settings.trainer_step_ms));
  const int node_count = cluster->profile().node_count;
  const int slices = node_count / settings.nodes_per_cert;
  const int concurrency = std::min(settings.concurrency, slices);
  Recorder recorder;
  CommitObserver observer(cluster->sim().api().store(), recorder);
  ManagerProcess manager(settings, cluster->sim().url(), "latency");
  std::fprintf(stderr, "latency phase: manager pid %d, log %s\n", manager.pid(), manager.log().c_str());
  manager.wait_ready(60s);

  std::printf("\n== latency: %d Certifications, %d in flight%s, cluster %s, %d nodes each, nodesPerJob %d, "
              "trainer step %d ms ==\n",
              settings.certifications, concurrency, settings.lockstep ? " started together" : "", profile.c_str(),
              settings.nodes_per_cert,
              settings.nodes_per_job, settings.trainer_step_ms);
  print_load();
  auto driver = bench_client(*cluster);
  auto& client = *driver;
  std::map<std::string, int> slice_of;  // in-flight Certification -> its node slice
  std::deque<int> free_slices;
  for (int s = 0; s < concurrency; ++s) free_slices.push_back(s);
  int created = 0;
  int finished = 0;
  const auto started = Clock::now();
  // Generous: at the default --qps 20 a Certification's ~60 requests take ~3 s of rate budget.
  const auto deadline = started + std::chrono::seconds(60 + settings.certifications * 10);
  while (finished < settings.certifications) {
    const bool refill = !settings.lockstep || static_cast<int>(free_slices.size()) == concurrency;
    while (refill && !free_slices.empty() && created < settings.certifications) {
      std::string name = "lat-" + std::to_string(created++);
      int slice = free_slices.front();
      free_slices.pop_front();
      client.create(kCertifications, kNamespace,
                    certification(name, slice_nodes(slice, settings, node_count), settings.nodes_per_job,
                                  settings.gpus_per_node));
      slice_of[name] = slice;
    }
    std::vector<std::string> in_flight;
    for (const auto& [name, slice] : slice_of) in_flight.push_back(name);
    auto done = recorder.wait_for_terminal(in_flight, deadline);
    if (done.empty()) {
      std::printf("WARNING: only %d of %d Certifications finished in time; reporting those (see %s)\n", finished,
                  settings.certifications, manager.log().c_str());
      break;
    }
    free_slices.push_back(slice_of[done]);
    slice_of.erase(done);
    // Finished Certifications go (their children by finalizers and garbage collection), so kube-sim
    // holds only what is in flight: its Trainer's passes grow with every stored TrainJob and, kept,
    // made the later Certifications of a run slower than the first (kube-sim pacing, not nvcre).
    client.remove(kCertifications, kNamespace, done);
    ++finished;
  }
  const double wall = std::chrono::duration<double>(Clock::now() - started).count();
  const double manager_cpu = manager.cpu_seconds();
  const auto requests = manager_requests(client);
  observer.stop();
  auto seen = recorder.snapshot();

  // Per Certification: its last TrainJob to complete, that TrainJob's Job, the Workflow, itself.
  std::map<std::string, std::vector<std::string>> children[3];  // Certification->Workflows, Workflow->Jobs, Job->TrainJobs
  for (const auto& [name, s] : seen["Workflow"]) children[0][s.owner].push_back(name);
  for (const auto& [name, s] : seen["Job"]) children[1][s.owner].push_back(name);
  for (const auto& [name, s] : seen["TrainJob"]) children[2][s.owner].push_back(name);
  std::vector<double> total, to_job, to_workflow, to_certification, trainjobs_per_cert;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> chains;  // last TrainJob Complete, Succeeded
  int failed = 0, incomplete = 0;
  for (const auto& [cert, s] : seen["Certification"]) {
    if (s.terminal != "Succeeded") {
      ++failed;
      continue;
    }
    std::optional<Clock::time_point> last_trainjob, job_at, workflow_at;
    int trainjobs = 0;
    for (const auto& workflow : children[0][cert]) {
      for (const auto& job : children[1][workflow]) {
        for (const auto& trainjob : children[2][job]) {
          const auto& t = seen["TrainJob"][trainjob];
          ++trainjobs;
          if (t.terminal_at && (!last_trainjob || *t.terminal_at > *last_trainjob)) {
            last_trainjob = t.terminal_at;
            job_at = seen["Job"][job].terminal_at;
            workflow_at = seen["Workflow"][workflow].terminal_at;
          }
        }
      }
    }
    if (!last_trainjob || !job_at || !workflow_at) {
      ++incomplete;
      continue;
    }
    total.push_back(ms(*s.terminal_at - *last_trainjob));
    chains.emplace_back(*last_trainjob, *s.terminal_at);
    to_job.push_back(ms(*job_at - *last_trainjob));
    to_workflow.push_back(ms(*workflow_at - *job_at));
    to_certification.push_back(ms(*s.terminal_at - *workflow_at));
    trainjobs_per_cert.push_back(trainjobs);
  }
  std::printf("finished %d Certifications in %.1f s (%d not Succeeded, %d without a complete chain); "
              "manager CPU %.1f s; %.1f TrainJobs per Certification\n",
              finished, wall, failed, incomplete, manager_cpu,
              trainjobs_per_cert.empty() ? 0.0 : percentile(trainjobs_per_cert, 50));
  print_requests(requests, settings.certifications);
  std::printf("%-50s %9s %9s %9s %9s %9s\n", "ms", "median", "p90", "p99", "max", "min");
  auto row = [](const char* what, const std::vector<double>& v) {
    std::printf("%-50s %9.1f %9.1f %9.1f %9.1f %9.1f\n", what, percentile(v, 50), percentile(v, 90), percentile(v, 99),
                v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()),
                v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()));
  };
  std::printf("  (n = %zu Certifications)\n", total.size());
  row("last TrainJob Complete -> Certification Succeeded", total);
  row("  TrainJob Complete -> its Job terminal", to_job);
  row("  Job terminal -> Workflow terminal", to_workflow);
  row("  Workflow terminal -> Certification terminal", to_certification);
  // Whether the Certifications in flight finished apart or together (in lockstep, every
  // completion shares the manager with the others' completions): the figures differ by ~2x.
  std::map<int, std::vector<double>> by_overlap;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    int others = 0;
    for (std::size_t j = 0; j < chains.size(); ++j) {
      if (j != i && chains[j].first < chains[i].second && chains[j].second > chains[i].first) ++others;
    }
    by_overlap[others].push_back(total[i]);
  }
  for (const auto& [others, latencies] : by_overlap) {
    const std::string what = "  overlapping " + std::to_string(others) + " other completion(s): n = " +
                              std::to_string(latencies.size());
    row(what.c_str(), latencies);
  }
  print_load();
}

// ---------------------------------------------------------------------------------------------
// Phase 2: RSS

struct CachedKinds {
  std::map<std::string, std::size_t> count;
  std::map<std::string, std::size_t> bytes;
  std::map<std::string, std::size_t> trimmed_bytes;  // what the cache keeps (k8s::trim_for_cache)
  std::size_t total_count = 0;
  std::size_t total_bytes = 0;
  std::size_t total_trimmed_bytes = 0;
  std::size_t bound_pods = 0;  // pods with spec.nodeName: the Trainer placed them
};

// Every object the manager caches, as the API returns it (the list's items).
CachedKinds cached_kinds(k8s::RestClient& client) {
  CachedKinds out;
  for (const auto& watch : nvcre::actors::nvcre_watches()) {
    k8s::ListOptions options;
    options.label_selector = watch.label_selector;
    const json::value list = client.list(watch.resource, "", options);
    for (const auto& item : list.at("items").as_array()) {
      auto size = json::serialize(item).size();
      json::value trimmed = item;
      k8s::trim_for_cache(trimmed);
      auto trimmed_size = json::serialize(trimmed).size();
      out.count[watch.kind] += 1;
      out.bytes[watch.kind] += size;
      out.trimmed_bytes[watch.kind] += trimmed_size;
      out.total_count += 1;
      out.total_bytes += size;
      out.total_trimmed_bytes += trimmed_size;
      if (watch.kind == "Pod" && !string_at(item, "spec", "nodeName").empty()) ++out.bound_pods;
    }
  }
  return out;
}

// The rss phase's default cluster: aws:h100 with room for every worker pod of the in-flight
// Certifications at once (G GPUs each), a multiple of K nodes so the slices tile it, at least 64.
std::string rss_cluster(const Settings& settings, int gpus_per_pod) {
  const int node_gpus = nvcre::platform::gpu_defaults("h100", "aws").gpusPerNode;
  const long pods_per_node = std::max(1, node_gpus / std::max(1, gpus_per_pod));
  const long pods = static_cast<long>(settings.in_flight) * settings.nodes_per_cert;
  const long k = std::max(1, settings.nodes_per_cert);
  long nodes = (pods + pods_per_node - 1) / pods_per_node;
  nodes = std::max(64L, (nodes + k - 1) / k * k);
  return "aws:h100:" + std::to_string(nodes);
}

void run_rss(const Settings& settings) {
  const int gpus_per_node = settings.gpus_per_node.value_or(1);
  const std::string profile = settings.cluster.value_or(rss_cluster(settings, gpus_per_node));
  // No TrainJob ever finishes: every Certification stays in flight.
  auto cluster = start_cluster(profile, std::chrono::hours(24));
  const int node_count = cluster->profile().node_count;
  const int slices = std::max(1, node_count / settings.nodes_per_cert);
  auto driver = bench_client(*cluster);
  auto& client = *driver;
  // Unthrottled unless the caller sets --qps: what is cached does not depend on how fast it came.
  std::vector<std::string> extra;
  if (std::find(settings.manager_args.begin(), settings.manager_args.end(), "--qps") == settings.manager_args.end()) {
    extra = {"--qps", "-1"};
  }
  ManagerProcess manager(settings, cluster->sim().url(), "rss", extra);
  std::fprintf(stderr, "rss phase: manager pid %d, log %s\n", manager.pid(), manager.log().c_str());
  manager.wait_ready(60s);

  std::printf("\n== rss: %d Certifications in flight, cluster %s, %d nodes each, nodesPerJob %d, gpusPerNode %d ==\n",
              settings.in_flight, profile.c_str(), settings.nodes_per_cert, settings.nodes_per_job, gpus_per_node);
  print_load();
  // The manager is idle when it used under 2% of a core over the last second.
  auto wait_idle = [&](std::chrono::seconds timeout) {
    auto until = Clock::now() + timeout;
    double before = manager.cpu_seconds();
    while (Clock::now() < until) {
      std::this_thread::sleep_for(1s);
      double now = manager.cpu_seconds();
      if (now - before < 0.02) return;
      before = now;
    }
  };
  wait_idle(30s);
  const MemoryKb idle = manager.memory();
  const CachedKinds idle_cache = cached_kinds(client);

  const auto started = Clock::now();
  for (int i = 0; i < settings.in_flight; ++i) {
    client.create(kCertifications, kNamespace,
                  certification("rss-" + std::to_string(i), slice_nodes(i % slices, settings, node_count),
                                settings.nodes_per_job, gpus_per_node));
  }
  // Settled: the watched objects stop changing in number and the manager goes idle.
  const std::size_t expected_trainjobs =
      static_cast<std::size_t>(settings.in_flight) * static_cast<std::size_t>(settings.nodes_per_cert / settings.nodes_per_job);
  CachedKinds at_peak;
  std::size_t previous_count = 0;
  std::size_t previous_bound = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(60 + settings.in_flight / 2);
  long peak_rss_sampled = 0;
  while (Clock::now() < deadline) {
    wait_idle(std::chrono::seconds(5));
    peak_rss_sampled = std::max(peak_rss_sampled, manager.memory().rss);
    at_peak = cached_kinds(client);
    if (at_peak.count["TrainJob"] >= expected_trainjobs && at_peak.total_count == previous_count &&
        at_peak.bound_pods == previous_bound) {
      break;
    }
    previous_count = at_peak.total_count;
    previous_bound = at_peak.bound_pods;
  }
  wait_idle(std::chrono::seconds(30));
  const MemoryKb settled = manager.memory();
  at_peak = cached_kinds(client);
  const double settle_s = std::chrono::duration<double>(Clock::now() - started).count();

  std::printf("settled in %.1f s; manager CPU %.1f s\n", settle_s, manager.cpu_seconds());
  print_requests(manager_requests(client), settings.in_flight);
  std::printf("fan-out: %zu of %zu TrainJobs, %zu of %zu pods bound to a node\n",
              at_peak.count["TrainJob"], expected_trainjobs, at_peak.bound_pods, at_peak.count["Pod"]);
  std::printf("%-14s %10s %14s %12s %14s\n", "cached kind", "objects", "JSON bytes", "bytes/object", "trimmed bytes");
  for (const auto& [kind, count] : at_peak.count) {
    std::printf("%-14s %10zu %14zu %12zu %14zu\n", kind.c_str(), count, at_peak.bytes[kind],
                at_peak.bytes[kind] / std::max<std::size_t>(1, count), at_peak.trimmed_bytes[kind]);
  }
  const std::size_t json_growth = at_peak.total_bytes - idle_cache.total_bytes;
  std::printf("%-14s %10zu %14zu %12s %14zu   (idle: %zu objects, %zu bytes)\n", "total", at_peak.total_count,
              at_peak.total_bytes, "", at_peak.total_trimmed_bytes, idle_cache.total_count, idle_cache.total_bytes);
  const double per_cert = 1024.0 / settings.in_flight;
  auto line = [&](const char* what, long kb) {
    const long growth_kb = kb - idle.rss;
    std::printf("%-34s %9.1f MiB  growth %8.1f MiB  %7.1f KiB/Certification  growth/JSON %.2f (/JSON growth %.2f)\n",
                what, kb / 1024.0, growth_kb / 1024.0, growth_kb * per_cert / 1024.0,
                growth_kb * 1024.0 / static_cast<double>(at_peak.total_bytes),
                growth_kb * 1024.0 / static_cast<double>(std::max<std::size_t>(1, json_growth)));
  };
  std::printf("idle baseline (synced, %zu Nodes)  %9.1f MiB (VmRSS)\n", (idle_cache.count.count("Node") ? idle_cache.count.at("Node") : 0), idle.rss / 1024.0);
  line("settled VmRSS", settled.rss);
  line("peak VmHWM", settled.hwm);
  std::printf("JSON cached: %.1f MiB total, %.1f KiB per Certification\n", at_peak.total_bytes / 1048576.0,
              static_cast<double>(at_peak.total_bytes) / 1024.0 / settings.in_flight);
  print_load();
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  std::optional<int> certifications, in_flight;
  CLI::App app{"The manager benchmark of issue 5: completion latency and cache footprint of nvcre-manager on kube-sim.\n"
               "Arguments after -- go to nvcre-manager, e.g. -- --qps -1 --log-level debug."};
  app.add_flag("--quick", settings.quick, "a short pass: 4 Certifications (latency), 20 in flight (rss)");
  app.add_option("--phase", settings.phase, "which phase to run")->check(CLI::IsMember({"all", "latency", "rss"}));
  app.add_option("--certifications", certifications, "latency: Certifications in all (default 200)")
      ->check(CLI::PositiveNumber);
  app.add_option("--concurrency", settings.concurrency, "latency: Certifications in flight at a time")
      ->check(CLI::PositiveNumber);
  app.add_flag("--lockstep", settings.lockstep,
               "latency: start --concurrency Certifications together, the next ones when all are done");
  app.add_option("--in-flight", in_flight, "rss: Certifications left in flight (default 1000)")->check(CLI::PositiveNumber);
  app.add_option("--cluster", settings.cluster, "simulated cluster PLATFORM:GPU:NODES (default per phase)");
  app.add_option("--nodes-per-cert", settings.nodes_per_cert, "nodes each Certification targets")
      ->check(CLI::PositiveNumber);
  app.add_option("--nodes-per-job", settings.nodes_per_job, "the category's nodesPerJob")->check(CLI::PositiveNumber);
  app.add_option("--gpus-per-node", settings.gpus_per_node, "the category's gpusPerNode (default per phase)")
      ->check(CLI::PositiveNumber);
  app.add_option("--trainer-step-ms", settings.trainer_step_ms, "kube-sim Trainer step")->check(CLI::PositiveNumber);
  app.add_option("--manager", settings.manager, "the nvcre-manager binary")->check(CLI::ExistingFile);
  app.add_option("manager-args", settings.manager_args, "arguments for nvcre-manager (after --)");
  CLI11_PARSE(app, argc, argv);
  settings.certifications = certifications.value_or(settings.quick ? 4 : 200);
  settings.in_flight = in_flight.value_or(settings.quick ? 20 : 1000);
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGINT, stop_manager_and_exit);
  ::signal(SIGTERM, stop_manager_and_exit);
  try {
    if (settings.phase == "all" || settings.phase == "latency") run_latency(settings);
    if (settings.phase == "all" || settings.phase == "rss") run_rss(settings);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvcre_manager_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
