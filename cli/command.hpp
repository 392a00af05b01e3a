#pragma once
// One command of nvcrectl's tree: the options the parser fills in and the subcommand that selects
// them (set when the command is registered). The dispatchers ask each whether the user chose it.
#include <CLI/CLI.hpp>

namespace nvcre::cli {

template <class Options>
struct Command {
  Options options{};
  CLI::App* app = nullptr;
  bool selected() const { return app != nullptr && app->parsed(); }
};

}  // namespace nvcre::cli
