#pragma once
// `nvcrectl completion bash|zsh` and `--version`: shell completion scripts generated from the
// CLI11 command tree itself (every subcommand and flag, so a new command completes without
// touching a script), and the version line baked in at build time.
#include <iosfwd>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace nvcre::cli {

// "nvcrectl version 0.1.0 (commit 4b03dbf1a2c3)"; "(commit unknown)" outside a git checkout.
std::string version_line();

// Registers `completion <shell>` under `app`; returns the command.
CLI::App* add_completion_command(CLI::App& app, std::string& shell);

// The script for `shell` (bash | zsh) over `root`'s command tree; it completes both `nvcrectl`
// and `kubectl-nvcre`. Throws std::invalid_argument for another shell.
std::string completion_script(const CLI::App& root, std::string_view shell);

}  // namespace nvcre::cli
