// The manager's scheduler threads: one per CPU the process may use, by its affinity mask and its
// cgroup v2 CPU quota (cpu.max), never fewer than one.
#include "manager/cpu_budget.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::manager::usable_cpus;

TEST(CpuBudget, WithoutAQuotaTheAffinityDecides) {
  EXPECT_EQ(usable_cpus(8, ""), 8u);
  EXPECT_EQ(usable_cpus(8, "max 100000\n"), 8u);
}

TEST(CpuBudget, AQuotaRoundsUpToWholeCpusAndNeverExceedsTheAffinity) {
  EXPECT_EQ(usable_cpus(64, "200000 100000\n"), 2u);
  EXPECT_EQ(usable_cpus(64, "150000 100000"), 2u);
  EXPECT_EQ(usable_cpus(64, "50000 100000"), 1u);
  EXPECT_EQ(usable_cpus(2, "800000 100000"), 2u);
}

TEST(CpuBudget, NeverLessThanOneAndUnreadableTextIsIgnored) {
  EXPECT_EQ(usable_cpus(0, ""), 1u);
  EXPECT_EQ(usable_cpus(4, "0 100000"), 1u);
  EXPECT_EQ(usable_cpus(4, "abc 100000"), 4u);
  EXPECT_EQ(usable_cpus(4, "200000 0"), 4u);
  EXPECT_EQ(usable_cpus(4, "200000"), 4u);
}

}  // namespace
