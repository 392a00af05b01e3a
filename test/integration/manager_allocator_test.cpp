// The manager's allocator settings reach jemalloc: the malloc_conf it defines is read (a build
// that drops or renames the symbol would silently run jemalloc's defaults: eight arenas on two
// cores and ten seconds of dirty pages, which the RSS budget of the manager bench does not hold).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

// stdout and stderr of a shell command, and its exit status.
std::pair<std::string, int> run(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {"popen failed", -1};
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr)
    output += buffer.data();
  return {output, ::pclose(pipe)};
}

TEST(ManagerAllocator, JemallocRunsWithTheManagersSettings) {
  if (!NVCRE_MANAGER_JEMALLOC) GTEST_SKIP() << "built with -DNVCRE_JEMALLOC=OFF";
  // stats_print makes jemalloc print its options at exit; the manager's own settings come from
  // its malloc_conf, since MALLOC_CONF names only stats_print.
  auto [output, status] = run("MALLOC_CONF=stats_print:true '" NVCRE_MANAGER_BINARY "' --help");
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("opt.narenas: 2\n"), std::string::npos) << output;
  EXPECT_NE(output.find("opt.background_thread: true"), std::string::npos) << output;
  EXPECT_NE(output.find("opt.dirty_decay_ms: 1000 "), std::string::npos) << output;
  EXPECT_NE(output.find("opt.muzzy_decay_ms: 0 "), std::string::npos) << output;
}

TEST(ManagerAllocator, AnOperatorsMallocConfWins) {
  if (!NVCRE_MANAGER_JEMALLOC) GTEST_SKIP() << "built with -DNVCRE_JEMALLOC=OFF";
  auto [output, status] =
      run("MALLOC_CONF=stats_print:true,narenas:3 '" NVCRE_MANAGER_BINARY "' --help");
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("opt.narenas: 3\n"), std::string::npos) << output;
}

}  // namespace
