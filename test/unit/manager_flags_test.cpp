// The manager's flag checks: both reconcile concurrencies must be positive, with the reference's
// message naming the flag and the value given.
#include "manager/flags.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

// parse_manager_flags over "nvcre-manager" and `args`: -1 when the manager should go on.
int parse(std::vector<std::string> args, nvcre::manager::ManagerFlags& flags) {
  args.insert(args.begin(), "nvcre-manager");
  std::vector<char*> argv;
  for (auto& word : args) argv.push_back(word.data());
  return nvcre::manager::parse_manager_flags(static_cast<int>(argv.size()), argv.data(), flags);
}

TEST(ManagerFlags, DefaultsAreValid) {
  const nvcre::manager::ManagerFlags flags;
  EXPECT_EQ(flags.max_concurrent_reconciles, 10);
  EXPECT_EQ(flags.measurement_max_concurrent_reconciles, 5);
  EXPECT_EQ(nvcre::manager::validate_manager_flags(flags), "");
}

TEST(ManagerFlags, ConcurrenciesMustBePositive) {
  nvcre::manager::ManagerFlags flags;
  flags.max_concurrent_reconciles = 0;
  EXPECT_EQ(nvcre::manager::validate_manager_flags(flags),
            "--max-concurrent-reconciles must be greater than 0, got 0");
  flags.max_concurrent_reconciles = 10;
  flags.measurement_max_concurrent_reconciles = -2;
  EXPECT_EQ(nvcre::manager::validate_manager_flags(flags),
            "--measurement-max-concurrent-reconciles must be greater than 0, got -2");
}

TEST(ManagerFlags, TheMeasurementConcurrencyIsParsed) {
  nvcre::manager::ManagerFlags flags;
  ASSERT_EQ(parse({"--measurement-max-concurrent-reconciles", "7"}, flags), -1);
  EXPECT_EQ(flags.measurement_max_concurrent_reconciles, 7);
}

TEST(ManagerFlags, WorkerThreadsAreZeroForAutomaticOrPositive) {
  nvcre::manager::ManagerFlags flags;
  EXPECT_EQ(flags.worker_threads, 0);
  ASSERT_EQ(parse({"--worker-threads", "3"}, flags), -1);
  EXPECT_EQ(flags.worker_threads, 3);
  EXPECT_EQ(nvcre::manager::validate_manager_flags(flags), "");
  flags.worker_threads = -1;
  EXPECT_EQ(nvcre::manager::validate_manager_flags(flags),
            "--worker-threads must be 0 (one per usable CPU) or more, got -1");
}

}  // namespace
