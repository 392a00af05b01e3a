// measure/log_lines.hpp and measure/log_profile.hpp basics: kubelet prefixes with offsets, the
// final unterminated line, lines of several MiB; every shipped LogProfile compiles; group-name
// spelling; capture typing.
#include "cli/logprofile_command.hpp"
#include "measure/bandwidth.hpp"
#include "measure/log_lines.hpp"
#include "measure/log_profile.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace {

namespace measure = nvcre::measure;
namespace fs = std::filesystem;

TEST(MeasureLogLines, ReadsKubeletPrefixesWithOffsets) {
  const auto split = measure::split_log_lines(
      "2026-08-06T09:30:29.569516911-07:00    536870912  row\n"
      "2026-08-06T16:30:31.128034512+05:30 x\r\n"
      "2026-08-06T16:30:31Z\n"
      "no prefix here\n");
  ASSERT_EQ(split.lines.size(), 4U);
  EXPECT_EQ(nvcre::k8s::format_rfc3339_nano(*split.lines[0].timestamp),
            "2026-08-06T16:30:29.569516911Z");
  EXPECT_EQ(split.lines[0].text, "   536870912  row");
  EXPECT_EQ(nvcre::k8s::format_rfc3339_nano(*split.lines[1].timestamp),
            "2026-08-06T11:00:31.128034512Z");
  EXPECT_EQ(split.lines[1].text, "x");
  // A timestamp with nothing after it and no space is text, as the kubelet always adds the space.
  EXPECT_FALSE(split.lines[2].timestamp.has_value());
  EXPECT_FALSE(split.lines[3].timestamp.has_value());
  EXPECT_EQ(split.lines[3].text, "no prefix here");
  EXPECT_EQ(split.lines[3].raw, "no prefix here");
  EXPECT_FALSE(split.final_line.has_value());
}

TEST(MeasureLogLines, ReportsTheFinalUnterminatedLineApart) {
  const auto split = measure::split_log_lines("2026-01-01T00:00:00Z a\n2026-01-01T00:00:01Z b");
  ASSERT_EQ(split.lines.size(), 1U);
  ASSERT_TRUE(split.final_line.has_value());
  EXPECT_EQ(split.final_line->text, "b");
  EXPECT_EQ(split.all_lines().size(), 2U);
}

TEST(MeasureLogLines, DropsTheTextOfALineOfSeveralMebibytes) {
  const std::string huge(5 * 1024 * 1024, '7');
  const std::string body =
      "2026-01-01T00:00:00Z            8             2     float     sum      -1"
      "    38.50    0.00    0.00      0    38.50    0.00    0.00      0\n"
      "2026-01-01T00:00:01Z " +
      huge +
      "\n"
      "2026-01-01T00:00:02Z           16             4     float     sum      -1"
      "    42.00    0.00    0.00      0    42.21    0.00    0.00      0\n";
  const auto split = measure::split_log_lines(body);
  ASSERT_EQ(split.lines.size(), 3U);
  EXPECT_EQ(split.overlong_lines, 1U);
  EXPECT_TRUE(split.lines[1].overlong);
  EXPECT_TRUE(split.lines[1].text.empty());
  EXPECT_TRUE(split.lines[1].timestamp.has_value());
  const auto line_of_max = measure::parse_log_line(std::string(measure::kMaxLogLineBytes, 'a'));
  EXPECT_FALSE(line_of_max.overlong);

  const auto profile = measure::compile_profile(nvcre::cli::load_log_profile("nccl-bandwidth"));
  const auto scan = measure::scan_bandwidth(profile, body);
  ASSERT_EQ(scan.rows.size(), 2U);
  EXPECT_EQ(scan.rows[0].sizeBytes, 8);
  EXPECT_EQ(scan.rows[1].sizeBytes, 16);
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

TEST(MeasureShippedProfiles, EveryFileCompilesAndIsEmbedded) {
  std::set<std::string> on_disk;
  for (const auto& entry :
       fs::directory_iterator(fs::path(NVCRE_SOURCE_DIR) / "deploy/logprofiles")) {
    SCOPED_TRACE(entry.path().string());
    const auto profile = measure::read_log_profile(read(entry.path()));
    const auto compiled = measure::compile_profile(profile);
    EXPECT_FALSE(compiled.patterns.empty());
    for (const auto& pattern : compiled.patterns) EXPECT_FALSE(pattern.regex().empty());
    on_disk.insert(profile.metadata.name);
  }
  EXPECT_EQ(on_disk, (std::set<std::string>{"megatron-bridge", "megatron-training",
                                            "nccl-bandwidth", "nccl-loopback", "nemo-4-training"}));
  std::set<std::string> embedded;
  for (const auto& file : nvcre::cli::embedded_logprofile_files())
    embedded.insert(measure::read_log_profile(file.content).metadata.name);
  EXPECT_EQ(embedded, on_disk);
  EXPECT_EQ(nvcre::cli::load_log_profile("nemo4").metadata.name, "nemo-4-training");
}

TEST(MeasureLogProfile, RewritesAngleGroupNamesOutsideClassesAndEscapes) {
  EXPECT_EQ(measure::with_python_group_names(R"((?<size>\d+) (?P<x>a))"),
            R"((?P<size>\d+) (?P<x>a))");
  EXPECT_EQ(measure::with_python_group_names(R"(\(?<a> [(?<b>] (?<=x) (?<!y))"),
            R"(\(?<a> [(?<b>] (?<=x) (?<!y))");
  EXPECT_EQ(measure::with_python_group_names(R"([]?<] (?<n>x))"), R"([]?<] (?P<n>x))");
}

TEST(MeasureLogProfile, ReadsCapturesAsGoDoes) {
  EXPECT_EQ(measure::parse_int_capture(" 42 "), 42);
  EXPECT_FALSE(measure::parse_int_capture("4.2").has_value());
  EXPECT_FALSE(measure::parse_int_capture("").has_value());
  EXPECT_DOUBLE_EQ(*measure::parse_float_capture("1.218472E+01"), 12.18472);
  EXPECT_FALSE(measure::parse_float_capture("1.2.3").has_value());
  EXPECT_EQ(measure::capture_type("globalStep"), measure::CaptureType::Int);
  EXPECT_EQ(measure::capture_type("saveDuration"), measure::CaptureType::Float);
  EXPECT_EQ(measure::capture_type("timestamp"), measure::CaptureType::Time);
  EXPECT_EQ(measure::capture_type("path"), measure::CaptureType::String);
}

TEST(MeasureLogProfile, ConvertsDurationUnitsToSeconds) {
  nvcre::api::EventPattern pattern;
  pattern.regex =
      R"(a=(?P<stepTiming>[\d.]+) b=(?P<elapsedTime>[\d.]+) c=(?P<saveDuration>[\d.]+))";
  pattern.units = {{"stepTiming", "ms"}, {"elapsedTime", "us"}};
  const measure::CompiledPattern compiled("trainingStep", pattern);
  const auto captures = compiled.match("x a=850 b=1500 c=2.5");
  ASSERT_TRUE(captures.has_value());
  EXPECT_DOUBLE_EQ(*compiled.seconds(*captures, "stepTiming"), 0.85);
  EXPECT_DOUBLE_EQ(*compiled.seconds(*captures, "elapsedTime"), 0.0015);
  EXPECT_DOUBLE_EQ(*compiled.seconds(*captures, "saveDuration"), 2.5);
  EXPECT_FALSE(compiled.seconds(*captures, "loss").has_value());
}

TEST(MeasureLogProfile, RejectsAManifestOfAnotherKind) {
  EXPECT_THROW(measure::read_log_profile("apiVersion: nvcre.nvidia.com/v1alpha1\nkind: Job\n"),
               measure::ProfileError);
  EXPECT_THROW(measure::read_log_profile("apiVersion: cre.nvidia.com/v1alpha1\nkind: LogProfile\n"),
               measure::ProfileError);
}

}  // namespace
