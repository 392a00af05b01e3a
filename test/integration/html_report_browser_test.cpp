// The HTML report in a real browser: the page of a recorded failed run (the report-html golden
// case) opened from a file by headless Chromium (Debian `chromium`, installed by
// scripts/install-deps.sh), which must log no console message (a blocked fetch, a malformed SVG
// attribute or a script error would), render a screenshot with content, and show every node with
// its verdict in the DOM it parsed. Skipped only where chromium is not installed.
#include "report/build.hpp"
#include "report/html.hpp"
#include "test/support/report_objects.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string chromium_binary() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(candidate)) return candidate;
  return {};
}

class HtmlReportBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = chromium_binary();
    if (chromium_.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh)";
    std::random_device random;
    dir_ = fs::temp_directory_path() / ("nvcre-html-browser-" + std::to_string(random()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  struct Run {
    int exit_code = -1;
    std::string out;
    std::string err;
  };

  // Headless Chromium on `page` with `mode` (--dump-dom, --screenshot=...), logging to stderr;
  // a profile of its own, so parallel runs do not share one.
  Run chromium(const fs::path& page, const std::string& mode) {
    const fs::path out = dir_ / "chromium.out", err = dir_ / "chromium.err";
    const std::string command =
        "timeout 120 " + chromium_ +
        " --headless --disable-gpu --no-sandbox --no-first-run --enable-logging=stderr --v=0"
        " --window-size=1280,2000 --user-data-dir=" +
        (dir_ / "profile").string() + " " + mode + " file://" + page.string() + " >" +
        out.string() + " 2>" + err.string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
  }

  // Chromium's log lines for the page's console (messages, errors, CSP violations).
  static std::string console_lines(const std::string& log) {
    std::istringstream in(log);
    std::string lines;
    for (std::string line; std::getline(in, line);)
      if (line.find(":CONSOLE") != std::string::npos) lines += line + "\n";
    return lines;
  }

  fs::path write_page(const std::string& name, const std::string& content) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  std::string chromium_;
  fs::path dir_;
};

// The check can fail: a page that fetches what its policy forbids and logs an error is caught.
TEST_F(HtmlReportBrowser, ConsoleErrorsAreDetected) {
  const fs::path page =
      write_page("bad.html",
                 "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                 "content=\"default-src 'none'; script-src 'unsafe-inline'\"></head><body>"
                 "<svg><path d=\"M 0 0 L x\"/></svg><script>console.error('broken page')</script>"
                 "</body></html>");
  const Run run = chromium(page, "--dump-dom");
  EXPECT_NE(console_lines(run.err).find("broken page"), std::string::npos) << run.err;
}

TEST_F(HtmlReportBrowser, FailedRunOpensCleanlyWithEveryNodeAndVerdict) {
  const auto cases = nvcre::testing::load_cases("report-html");
  const auto it = std::find_if(cases.begin(), cases.end(),
                               [](const auto& c) { return c.name == "failed-diagnose"; });
  ASSERT_NE(it, cases.end());
  const auto report = nvcre::report::build_certification_report(nvcre::testing::objects_of(*it),
                                                                nvcre::testing::now_of(*it));
  ASSERT_EQ(report.result, "FAILED");
  const fs::path page = write_page("report.html", nvcre::report::render_html({report}));

  const Run dom = chromium(page, "--dump-dom");
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(console_lines(dom.err), "");
  // The recorded run's nodes and verdicts, as the browser's DOM serialises them (a name with
  // markup stays text: escaped, not an element).
  for (const auto& [node, verdict] :
       std::vector<std::pair<std::string, std::string>>{{"gpu-node-01", "Passed"},
                                                        {"gpu-node-02", "Passed"},
                                                        {"gpu-node-03", "Failed"},
                                                        {"gpu-&lt;i&gt;04&lt;/i&gt;", "Passed"}})
    EXPECT_NE(dom.out.find(">" + node + "<small>" + verdict + "</small></div>"), std::string::npos)
        << node << " " << verdict << "\n"
        << dom.out;
  EXPECT_NE(dom.out.find("Result</dt><dd><span class=\"badge failed\">FAILED</span>"),
            std::string::npos);
  EXPECT_NE(dom.out.find("<svg"), std::string::npos);

  // A screenshot with content: much larger than one of an empty page of the same size.
  const fs::path blank = write_page("blank.html", "<!DOCTYPE html><html><body></body></html>");
  ASSERT_EQ(chromium(blank, "--screenshot=" + (dir_ / "blank.png").string()).exit_code, 0);
  const Run shot = chromium(page, "--screenshot=" + (dir_ / "report.png").string());
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  EXPECT_EQ(console_lines(shot.err), "");
  const std::string png = read_text(dir_ / "report.png");
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_GT(png.size(), 4 * fs::file_size(dir_ / "blank.png"));
}

}  // namespace
