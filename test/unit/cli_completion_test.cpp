// kubectl's plugin completion protocol as `nvcrectl __complete` answers it: the words typed after
// `kubectl nvcre`, the last one being completed; candidates a line each, then cobra's directive.
#include "cli/completion.hpp"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nvcre::cli {
namespace {

class CliCompletion : public ::testing::Test {
 protected:
  CliCompletion() {
    auto* certification = app_.add_subcommand("certification", "");
    auto* run = certification->add_subcommand("run", "");
    run->add_option("--cert-file", text_, "");
    run->add_flag("--wait", flag_, "");
    run->add_option("-n,--namespace", text_, "");
    certification->add_subcommand("report", "")->add_option("names", text_, "");
    app_.add_subcommand("crds", "");
  }
  std::string complete(std::vector<std::string> words) { return complete_words(app_, words); }

  CLI::App app_{"test"};
  std::string text_;
  bool flag_ = false;
};

TEST_F(CliCompletion, SubcommandsByPrefixWithoutFiles) {
  EXPECT_EQ(complete({""}), "certification\ncrds\n:4\n");
  EXPECT_EQ(complete({"c"}), "certification\ncrds\n:4\n");
  EXPECT_EQ(complete({"certification", "re"}), "report\n:4\n");
  EXPECT_EQ(complete({}), "certification\ncrds\n:4\n");
}

TEST_F(CliCompletion, FlagsAfterADashSkippingFlagsAlreadyTyped) {
  EXPECT_EQ(complete({"certification", "run", "--w"}), "--wait\n:4\n");
  EXPECT_EQ(complete({"certification", "run", "--wait", "-"}),
            "--help\n-h\n--cert-file\n--wait\n--namespace\n-n\n:4\n");
}

TEST_F(CliCompletion, ArgumentsOfALeafCommandAreFiles) {
  EXPECT_EQ(complete({"certification", "report", ""}), ":0\n");
  EXPECT_EQ(complete({"certification", "run", "--cert-file", "ex"}), ":0\n");
}

}  // namespace
}  // namespace nvcre::cli
