// nvcrectl's conventions, checked with the real tools a user has: `kubectl nvcre ...` through
// kubectl's plugin lookup (the kubectl-nvcre name the build puts next to nvcrectl), --version,
// and the bash completion script run by bash itself.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <sys/wait.h>

namespace {

namespace fs = std::filesystem;

struct Shell {
  int exit_code = -1;
  std::string out;  // stdout only
};

Shell run(const std::string& command) {
  Shell result;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    result.out.append(buffer.data(), n);
  const int status = pclose(pipe.release());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

const fs::path kBinaryDir = fs::path(NVCRECTL_BINARY).parent_path();

TEST(CliConventions, KubectlRunsTheNvcrePlugin) {
  ASSERT_TRUE(fs::is_symlink(kBinaryDir / "kubectl-nvcre")) << "the build installs the plugin name";
  const Shell direct = run(std::string(NVCRECTL_BINARY) + " certification list-categories");
  ASSERT_EQ(direct.exit_code, 0);
  ASSERT_NE(direct.out.find("DOMAIN"), std::string::npos) << direct.out;
  // Only the build directory and the system on PATH: kubectl must find the plugin there.
  const std::string env = "env HOME=" + fs::temp_directory_path().string() +
                          " PATH=" + kBinaryDir.string() + ":/usr/bin:/bin ";
  const Shell plugin = run(env + "kubectl nvcre certification list-categories 2>&1");
  EXPECT_EQ(plugin.exit_code, 0) << plugin.out;
  EXPECT_EQ(plugin.out, direct.out);
  const Shell list = run(env + "kubectl plugin list 2>&1");
  EXPECT_NE(list.out.find(kBinaryDir.string() + "/kubectl-nvcre"), std::string::npos) << list.out;
  // Errors keep their shape and exit status through kubectl.
  const Shell error = run(env + "kubectl nvcre certification render /no/such.yaml 2>&1");
  EXPECT_EQ(error.exit_code, 1) << error.out;
  EXPECT_EQ(error.out.rfind("Error: read certification: ", 0), 0u) << error.out;
}

// kubectl (1.26+) completes `kubectl nvcre <TAB>` by running kubectl_complete-nvcre from PATH;
// the build puts it next to nvcrectl. `kubectl __complete` is what the shell scripts call.
TEST(CliConventions, KubectlCompletesThePluginsCommandsAndFlags) {
  ASSERT_TRUE(fs::exists(kBinaryDir / "kubectl_complete-nvcre")) << "the build writes it";
  const std::string env = "env HOME=" + fs::temp_directory_path().string() +
                          " PATH=" + kBinaryDir.string() + ":/usr/bin:/bin ";
  const Shell top = run(env + "kubectl __complete nvcre '' 2>/dev/null");
  EXPECT_EQ(top.exit_code, 0);
  for (const char* word : {"\ncertification\n", "\nworkloadrun\n", "\ncluster\n", "\n:4\n"})
    EXPECT_NE(("\n" + top.out).find(word), std::string::npos) << word << " in " << top.out;
  const Shell run_flags =
      run(env + "kubectl __complete nvcre certification run --clean 2>/dev/null");
  EXPECT_EQ(run_flags.out, "--cleanup\n:4\n");
  const Shell sub = run(env + "kubectl __complete nvcre certification re 2>/dev/null");
  EXPECT_EQ(sub.out, "render\nreport\n:4\n");
  // A file argument: kubectl lets the shell complete file names.
  const Shell file = run(env + "kubectl __complete nvcre validate ex 2>/dev/null");
  EXPECT_EQ(file.out, ":0\n");
}

TEST(CliConventions, VersionNamesTheVersionAndACommitOfThisTree) {
  const Shell version = run(std::string(NVCRECTL_BINARY) + " --version");
  EXPECT_EQ(version.exit_code, 0);
  std::smatch match;
  ASSERT_TRUE(std::regex_match(
      version.out, match,
      std::regex(
          R"(nvcrectl version [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12})(-dirty)?\)\n)")))
      << version.out << " (this test runs from a git checkout)";
  const Shell known = run("git -C " + std::string(NVCRE_SOURCE_DIR) + " cat-file -e " +
                          match[1].str() + "^{commit} 2>&1");
  EXPECT_EQ(known.exit_code, 0) << match[1] << " is not a commit of " << NVCRE_SOURCE_DIR;
}

// Sources the generated script in bash and completes `words` (the last one being typed).
std::string complete(const std::string& words) {
  std::random_device random;
  const fs::path script =
      fs::temp_directory_path() / ("nvcrectl-completion-" + std::to_string(random()) + ".bash");
  const Shell generated = run(std::string(NVCRECTL_BINARY) + " completion bash");
  EXPECT_EQ(generated.exit_code, 0);
  std::ofstream(script) << generated.out << "COMP_WORDS=(" << words << ")\n"
                        << "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                        << "_nvcrectl\n"
                        << "printf '%s\\n' \"${COMPREPLY[@]}\" | sort\n";
  const Shell result = run("bash " + script.string());
  fs::remove(script);
  return result.out;
}

TEST(CliConventions, BashCompletionFollowsTheCommandTree) {
  EXPECT_EQ(complete("nvcrectl cert"), "certification\n");
  EXPECT_EQ(complete("nvcrectl certification re"), "render\nreport\n");
  EXPECT_EQ(complete("kubectl-nvcre cluster info --to"), "--token\n--topology-key\n");
  // Flags given earlier, with values, do not derail the walk.
  EXPECT_EQ(complete("nvcrectl certification render --output json --dry"), "--dry-run\n");
  const std::string top = complete("nvcrectl ''");
  for (const char* command : {"certification", "cluster", "completion", "workloadrun", "--version"})
    EXPECT_NE(top.find(std::string(command) + "\n"), std::string::npos) << top;
}

TEST(CliConventions, ZshCompletionCoversTheSameTree) {
  const Shell zsh = run(std::string(NVCRECTL_BINARY) + " completion zsh");
  EXPECT_EQ(zsh.exit_code, 0);
  EXPECT_EQ(zsh.out.rfind("#compdef nvcrectl kubectl-nvcre\n", 0), 0u);
  EXPECT_NE(zsh.out.find("(\"/cluster/info\") subcommands=() flags=("), std::string::npos);
  const Shell bad = run(std::string(NVCRECTL_BINARY) + " completion fish 2>&1");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out.rfind("Error: ", 0), 0u) << bad.out;
}

}  // namespace
