#pragma once
// `nvcrectl completion bash|zsh` and `--version`: shell completion scripts generated from the
// CLI11 command tree itself (every subcommand and flag, so a new command completes without
// touching a script), and the version line baked in at build time.
#include <iosfwd>
#include <span>
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

// kubectl's plugin completion (`kubectl_complete-nvcre`, which runs `nvcrectl __complete ...`):
// `words` are those typed after the plugin's name, the last one the word being completed ("" for
// a new one). Returns the candidates, one a line, then cobra's ":<directive>" line, which kubectl
// reads: ":4" offers only these, ":0" lets the shell complete file names.
std::string complete_words(const CLI::App& root, std::span<const std::string> words);

}  // namespace nvcre::cli
