// The soak run: kube-sim in-process under the fault plan, two nvcre-manager processes electing a
// leader, the Certifications created, the leader SIGKILLed and handed over at seeded moments, every
// Certification deleted, then the checker (see chaos_soak.cpp).
#include "bench/chaos_soak.hpp"
#include "bench/manager_bench_process.hpp"

#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <thread>

namespace nvcre::soak {
namespace {

using namespace std::chrono_literals;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Disruption {
  double at_progress = 0;  // of the whole run: verdicts are the first half, deletions the second
  std::chrono::milliseconds delay{0};
  bool kill = true;  // SIGKILL; else SIGTERM, after which the leader releases the Lease
};

std::vector<Disruption> plan_disruptions(const SoakSettings& s, std::mt19937_64& rng) {
  std::vector<Disruption> out;
  for (int i = 0; i < s.kills + s.handovers; ++i) out.push_back({0, 0ms, i < s.kills});
  std::shuffle(out.begin(), out.end(), rng);
  std::vector<double> at;
  std::uniform_real_distribution<double> where(0.02, 0.97);
  for (std::size_t i = 0; i < out.size(); ++i) at.push_back(where(rng));
  std::sort(at.begin(), at.end());
  std::uniform_int_distribution<int> delay(0, 1500);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].at_progress = at[i];
    out[i].delay = std::chrono::milliseconds(delay(rng));
  }
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Two manager slots; a process leads once its log says so (each process leads at most once: a
// leader that loses the Lease exits).
class Managers {
 public:
  Managers(const SoakSettings& s, std::string url) : url_(std::move(url)) {
    settings_.manager = s.manager;
    settings_.manager_args = {"--leader-elect",
                              "--leader-election-namespace",
                              kNamespace,
                              "--leader-election-id",
                              kLeaseName,
                              "--leader-election-lease-duration",
                              std::to_string(kLeaseDuration.count()) + "s",
                              "--leader-election-renew-deadline",
                              "3s",
                              "--leader-election-retry-period",
                              "500ms",
                              "--qps",
                              "100",
                              "--burst",
                              "200"};
  }
  void start(int slot) {
    slots_[slot] = std::make_unique<bench::ManagerProcess>(settings_, url_,
                                                           "soak-" + std::to_string(++started_));
  }
  bool leads(int slot) const {
    if (!slots_[slot] || !slots_[slot]->alive()) return false;
    const std::string log = read_file(slots_[slot]->log());
    return log.find(" is now the leader") != std::string::npos &&
           log.find(" stopped leading") == std::string::npos;
  }
  int leader(std::chrono::seconds timeout) const {
    for (auto until = Clock::now() + timeout; Clock::now() < until;
         std::this_thread::sleep_for(50ms)) {
      for (int slot : {0, 1})
        if (leads(slot)) return slot;
    }
    return -1;
  }
  // Restarts a manager that exited on its own (it lost the Lease, as it must then); returns how
  // many it restarted.
  int restart_exited() {
    int n = 0;
    for (int slot : {0, 1}) {
      if (slots_[slot] && !slots_[slot]->alive()) {
        std::printf("[soak] manager %d exited on its own (see %s); restarted\n", slot,
                    slots_[slot]->log().c_str());
        start(slot);
        ++n;
      }
    }
    return n;
  }
  void disrupt(int slot, bool kill) {
    if (kill) ::kill(slots_[slot]->pid(), SIGKILL);
    slots_[slot].reset();  // SIGTERM (a no-op after SIGKILL) and reaped
    start(slot);
  }
  void stop() {
    for (auto& m : slots_) m.reset();
  }

 private:
  bench::Settings settings_;
  std::string url_;
  std::unique_ptr<bench::ManagerProcess> slots_[2];
  int started_ = 0;
};

}  // namespace

int run_soak(const SoakSettings& s) {
  std::mt19937_64 rng(s.seed);
  const Layout layout =
      plan_layout(s.certifications, {Mix::Nccl, Mix::Training, Mix::Diagnose, Mix::Dcgm});
  const auto disruptions = plan_disruptions(s, rng);
  std::printf("[soak] seed %llu: %d Certifications on %d nodes (%zu faulty); disruptions:",
              static_cast<unsigned long long>(s.seed), s.certifications, layout.node_count,
              layout.faulty_nodes.size());
  for (const auto& d : disruptions)
    std::printf(" %s@%.3f+%lldms", d.kill ? "SIGKILL" : "handover", d.at_progress,
                static_cast<long long>(d.delay.count()));
  std::printf("\n");

  manager::EmbeddedClusterOptions options;
  options.profile = "aws:h100:" + std::to_string(layout.node_count);
  options.faulty_nodes = layout.faulty_nodes;
  options.trainer_step = std::chrono::milliseconds(s.trainer_step_ms);
  options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
  options.namespaces = {kNamespace};
  manager::EmbeddedCluster cluster(options);
  cluster.start();
  const std::string log_path =
      s.request_log.empty()
          ? (std::filesystem::temp_directory_path() /
             ("nvcre_chaos_soak." + std::to_string(::getpid()) + ".requests.jsonl"))
                .string()
          : s.request_log;
  auto& api = cluster.sim().api();
  api.request_log().write_to(log_path);
  k8s::RestClientOptions client_options;
  client_options.user_agent = kSoakAgent;
  k8s::RestClient client(cluster.client_config(), client_options);

  Managers managers(s, cluster.client_config().server);
  managers.start(0);
  if (managers.leader(60s) != 0) throw std::runtime_error("the first manager never led");
  managers.start(1);
  api.faults().set_plan(sim::parse_fault_plan(fault_plan_yaml(s.seed)));

  const auto started = Clock::now();
  for (const auto& c : layout.certifications)
    create_until_done(client, bench::kCertifications, c.object);
  std::printf("[soak] %d Certifications created in %.1f s\n", s.certifications,
              seconds(Clock::now() - started));

  const auto n = static_cast<double>(s.certifications);
  std::size_t next = 0;
  int self_exits = 0;
  bool deleting = false;
  Clock::time_point verdicts_at{}, delete_started{}, quiesced_at{};
  Findings findings;
  const auto deadline = started + s.timeout;
  for (;;) {
    if (Clock::now() > deadline) break;
    const json::value list = list_until_answered(client, bench::kCertifications, kNamespace);
    const std::size_t items = list.at("items").as_array().size();
    const double progress = deleting ? 0.5 + (n - static_cast<double>(items)) / (2 * n)
                                     : static_cast<double>(count_verdicts(list)) / (2 * n);
    if (next < disruptions.size() && progress >= disruptions[next].at_progress) {
      const auto& d = disruptions[next++];
      std::this_thread::sleep_for(d.delay);
      const int slot = managers.leader(60s);
      std::printf("[soak] t=%.1f s, progress %.3f: %s the leader (manager %d)\n",
                  seconds(Clock::now() - started), progress, d.kill ? "SIGKILL" : "SIGTERM", slot);
      if (slot >= 0) managers.disrupt(slot, d.kill);
    }
    self_exits += managers.restart_exited();
    if (!deleting && progress >= 0.5) {
      verdicts_at = Clock::now();
      std::printf("[soak] every Certification has its verdict after %.1f s\n",
                  seconds(verdicts_at - started));
      check_verdicts(client, layout, findings);
      delete_started = Clock::now();
      for (const auto& c : layout.certifications)
        delete_until_gone(client, bench::kCertifications, c.name);
      deleting = true;
      continue;
    }
    // Quiet when nothing the run created is left, measurements and copies included, while the
    // fault plan is still on: deletion must finish under the same faults.
    if (deleting && items == 0 && next == disruptions.size() && owned_left(client) == 0 &&
        left_of_created(client, api.request_log().stats(0)).empty()) {
      quiesced_at = Clock::now();
      break;
    }
    std::this_thread::sleep_for(250ms);
  }
  if (!deleting) check_verdicts(client, layout, findings);
  const json::value fault_report = api.faults().report();
  api.faults().set_plan(sim::parse_fault_plan("seed: 1\n"));
  std::this_thread::sleep_for(kLeaseDuration);  // the managers act on whatever was left
  managers.stop();
  api.request_log().flush();
  check_leftovers(client, api.request_log().stats(0), findings);
  check_leadership(log_path, findings);

  std::printf(
      "\n[soak] seed %llu, %d Certifications, %zu disruptions executed of %zu, %d managers "
      "exited on their own\n",
      static_cast<unsigned long long>(s.seed), s.certifications, next, disruptions.size(),
      self_exits);
  std::printf("faults injected: %s\n", json::serialize(fault_report.at("counters")).c_str());
  std::printf("requests served: %s\n",
              json::serialize(api.request_log().stats(0).at("total")).c_str());
  if (verdicts_at != Clock::time_point{})
    std::printf("time to every verdict: %.1f s\n", seconds(verdicts_at - started));
  if (quiesced_at != Clock::time_point{})
    std::printf("time to quiesce after the deletion: %.1f s\n",
                seconds(quiesced_at - delete_started));
  else
    std::printf("time to quiesce: never (timeout %lld min)\n",
                static_cast<long long>(s.timeout.count()));
  print_findings(findings);
  const bool ok = findings.ok() && quiesced_at != Clock::time_point{} && next == disruptions.size();
  // A failed run keeps its request log (with the managers' logs) for the one who reads why.
  if (s.request_log.empty() && ok) std::filesystem::remove(log_path);
  if (!ok) std::printf("request log kept: %s\n", log_path.c_str());
  std::printf("[soak] %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace nvcre::soak
