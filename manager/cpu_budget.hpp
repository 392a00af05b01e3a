#pragma once
// How many CPUs the manager may use: its scheduler runs one worker thread per usable CPU. A
// container sees every core of its node (hardware_concurrency) while its cgroup quota lets it use a
// few; threads beyond the quota only contend (handoffs and futex wake-ups) for the same CPU time.
#include <cstddef>
#include <string_view>

namespace nvcre::manager {

// `affinity_cpus`: the CPUs the process may run on (sched_getaffinity); `cpu_max`: the text of
// cgroup v2's cpu.max ("<quota> <period>" or "max <period>"; "" when there is none). The quota
// rounds up to whole CPUs. Never less than 1.
std::size_t usable_cpus(std::size_t affinity_cpus, std::string_view cpu_max);

// usable_cpus() of this process (its affinity mask and /sys/fs/cgroup/cpu.max).
std::size_t detect_usable_cpus();

}  // namespace nvcre::manager
