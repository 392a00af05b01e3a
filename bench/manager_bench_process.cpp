#include "bench/manager_bench_process.hpp"

#include "test/support/child_process.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace nvcre::bench {
namespace {

using namespace std::chrono_literals;

// The running manager, so an interrupted bench does not leave it behind.
std::atomic<pid_t> g_manager_pid{-1};

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

}  // namespace

void stop_manager_and_exit(int signal) {
  if (pid_t pid = g_manager_pid.load(); pid > 0) ::kill(pid, SIGTERM);
  ::_exit(128 + signal);
}

ManagerProcess::ManagerProcess(const Settings& settings, const std::string& server_url,
                               const std::string& phase, std::vector<std::string> extra_args) {
  auto dir = std::filesystem::temp_directory_path();
  kubeconfig_ =
      (dir / ("nvcre_manager_bench." + phase + "." + std::to_string(::getpid()) + ".kubeconfig"))
          .string();
  log_ =
      (dir / ("nvcre_manager_bench." + phase + "." + std::to_string(::getpid()) + ".log")).string();
  nvcre::testing::write_sim_kubeconfig(kubeconfig_, server_url);
  probe_port_ = free_loopback_port();
  metrics_port_ = free_loopback_port();
  std::vector<std::string> args{settings.manager,
                                "--kubeconfig",
                                kubeconfig_,
                                "--health-probe-bind-address",
                                "127.0.0.1:" + std::to_string(probe_port_),
                                "--metrics-bind-address",
                                "127.0.0.1:" + std::to_string(metrics_port_),
                                "--metrics-secure=false"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  args.insert(args.end(), settings.manager_args.begin(), settings.manager_args.end());
  std::fprintf(stderr, "%s:", phase.c_str());
  for (const auto& a : args) std::fprintf(stderr, " %s", a.c_str());
  std::fprintf(stderr, "\n");
  pid_ = nvcre::testing::spawn_with_log(args, log_);
  g_manager_pid = pid_;
}

ManagerProcess::~ManagerProcess() {
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

bool ManagerProcess::alive() const {
  return ::kill(pid_, 0) == 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0;
}

namespace {

k8s::RestClient loopback_client(unsigned short port,
                                std::chrono::milliseconds timeout = std::chrono::seconds(1)) {
  k8s::ClientConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  config.rate_limit.qps = -1;
  k8s::RestClientOptions options;
  options.max_retries = 0;
  options.timeout = timeout;
  return k8s::RestClient(config, options);
}

}  // namespace

void ManagerProcess::wait_ready(std::chrono::seconds timeout) const {
  auto until = Clock::now() + timeout;
  while (Clock::now() < until) {
    if (!alive()) throw std::runtime_error("nvcre-manager exited; see " + log_);
    try {
      k8s::RestClient probe = loopback_client(probe_port_);
      if (probe.request({"GET", "/readyz", {}, "", ""}).status == 200) return;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("nvcre-manager not ready in time; see " + log_);
}

MemoryKb ManagerProcess::memory() const {
  MemoryKb m;
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) m.rss = std::stol(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) m.hwm = std::stol(line.substr(6));
  }
  return m;
}

bool ManagerProcess::reset_peak_memory() const {
  std::ofstream clear_refs("/proc/" + std::to_string(pid_) + "/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  return static_cast<bool>(clear_refs);
}

// Lines such as nvcre_api_requests_total{code="200",kind="Job",verb="Create"} 400 (Prometheus text
// format: label values escaped, values plain numbers; ours hold no quote).
std::vector<MetricSample> ManagerProcess::metric(const std::string& name) const {
  // A manager busy at fleet size took over a second to answer (a forced relist at 10,000 nodes).
  k8s::RestClient client = loopback_client(metrics_port_, std::chrono::seconds(30));
  const std::string text = client.request({"GET", "/metrics", {}, "", ""}).body;
  std::vector<MetricSample> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() <= name.size() || line.compare(0, name.size(), name) != 0 ||
        (line[name.size()] != '{' && line[name.size()] != ' '))
      continue;
    MetricSample sample;
    std::size_t at = name.size();
    if (line[at] == '{') {
      const std::size_t end = line.find('}', at);
      while (at < end) {
        const std::size_t eq = line.find("=\"", at);
        const std::size_t close = line.find('"', eq + 2);
        if (eq == std::string::npos || close == std::string::npos || close > end) break;
        sample.labels[line.substr(at + 1, eq - at - 1)] = line.substr(eq + 2, close - eq - 2);
        at = close + 1;  // at ',' or '}'
      }
      at = end + 1;
    }
    sample.value = std::stod(line.substr(line.find_first_not_of(' ', at)));
    out.push_back(std::move(sample));
  }
  return out;
}

std::map<std::pair<std::string, std::string>, std::uint64_t> ManagerProcess::api_requests() const {
  std::map<std::pair<std::string, std::string>, std::uint64_t> out;
  for (auto& sample : metric("nvcre_api_requests_total"))
    out[{sample.labels["kind"], sample.labels["verb"]}] += static_cast<std::uint64_t>(sample.value);
  return out;
}

double bench_process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double ManagerProcess::cpu_seconds() const {
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

}  // namespace nvcre::bench
