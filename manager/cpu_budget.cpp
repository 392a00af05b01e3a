#include "manager/cpu_budget.hpp"

#include "jsonkit/numbers.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace nvcre::manager {

std::size_t usable_cpus(std::size_t affinity_cpus, std::string_view cpu_max) {
  std::size_t cpus = std::max<std::size_t>(affinity_cpus, 1);
  while (!cpu_max.empty() && (cpu_max.back() == '\n' || cpu_max.back() == ' ')) {
    cpu_max.remove_suffix(1);
  }
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return cpus;
  const auto quota =
      jsonkit::whole_number<std::uint64_t>(cpu_max.substr(0, space));  // "max": no quota
  const auto period = jsonkit::whole_number<std::uint64_t>(cpu_max.substr(space + 1));
  if (!quota || !period || *period == 0) return cpus;
  const std::uint64_t quota_cpus = std::max<std::uint64_t>((*quota + *period - 1) / *period, 1);
  return std::min<std::size_t>(cpus, quota_cpus);
}

std::size_t detect_usable_cpus() {
  std::size_t affinity = std::thread::hardware_concurrency();
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) affinity = CPU_COUNT(&set);
  std::ifstream file("/sys/fs/cgroup/cpu.max");
  std::stringstream text;
  text << file.rdbuf();
  return usable_cpus(affinity, file ? text.str() : std::string());
}

}  // namespace nvcre::manager
