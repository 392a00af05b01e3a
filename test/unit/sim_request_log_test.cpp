// kube-sim's request log as a file: every request a JSON line with its arrival time and client, so
// a checker can read a whole run back (the ring keeps only the last N).
#include "sim/request_log.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace nvcre::sim {
namespace {

namespace json = boost::json;

std::vector<json::value> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<json::value> out;
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

TEST(SimRequestLogFile, EveryRequestIsAJsonLineWithItsArrivalAndClient) {
  const auto path = (std::filesystem::temp_directory_path() /
                     ("nvcre_request_log_test." + std::to_string(::getpid()) + ".jsonl"))
                        .string();
  RequestLog log(1);  // the ring keeps one; the file keeps all
  log.write_to(path);
  const auto at =
      std::chrono::system_clock::time_point(std::chrono::microseconds(1700000000123456));
  for (int i = 0; i < 3; ++i)
    log.record(RequestRecord{
        "PATCH", "/apis/nvcre.nvidia.com/v1alpha1/namespaces/n/jobs/j" + std::to_string(i), "patch",
        i == 2 ? 503 : 200, std::chrono::microseconds(2500), i == 2, "nvcre/host_1",
        at + std::chrono::microseconds(i)});
  log.flush();
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].at("t"), 1700000000123456);
  EXPECT_EQ(lines[2].at("t"), 1700000000123458);
  EXPECT_EQ(lines[2].at("method"), "PATCH");
  EXPECT_EQ(lines[2].at("path"), "/apis/nvcre.nvidia.com/v1alpha1/namespaces/n/jobs/j2");
  EXPECT_EQ(lines[2].at("verb"), "patch");
  EXPECT_EQ(lines[2].at("code"), 503);
  EXPECT_EQ(lines[2].at("agent"), "nvcre/host_1");
  EXPECT_EQ(lines[2].at("injected"), true);
  EXPECT_EQ(lines[1].at("injected"), false);
  EXPECT_EQ(lines[1].at("latencyMs"), 2.5);
  EXPECT_EQ(log.stats().at("log").as_array().size(), 1u);
  std::filesystem::remove(path);
}

TEST(SimRequestLogFile, AnUnwritablePathIsRefusedWithThePath) {
  RequestLog log;
  try {
    log.write_to("/nonexistent-dir/requests.jsonl");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/requests.jsonl"), std::string::npos);
  }
}

}  // namespace
}  // namespace nvcre::sim

#include "sim/request_log_reader.hpp"

#include <sstream>

namespace nvcre::sim {
namespace {

const LeasePath kLease{"soak", "nvcre-soak"};
const std::string kLeaseUrl = "/apis/coordination.k8s.io/v1/namespaces/soak/leases/nvcre-soak";
const std::string kJobUrl = "/apis/nvcre.nvidia.com/v1alpha1/namespaces/soak/jobs/j";

LoggedRequest at(std::int64_t seconds, std::string agent, std::string verb, std::string path,
                 int code = 200) {
  return LoggedRequest{seconds * 1000000,
                       verb == "create" ? "POST" : "PUT",
                       std::move(path),
                       std::move(verb),
                       code,
                       std::move(agent),
                       false};
}

TEST(SimRequestLogReader, ReadsTheLinesAndNamesABadOne) {
  std::istringstream good(
      R"({"t":5,"method":"GET","path":"/api/v1/nodes","verb":"list","code":200,"agent":"a","injected":false,"latencyMs":1})"
      "\n");
  const auto requests = read_request_log(good);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].t_us, 5);
  EXPECT_EQ(requests[0].verb, "list");
  EXPECT_EQ(requests[0].agent, "a");
  std::istringstream bad("{\"t\":5}\n");
  try {
    read_request_log(bad);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("request log line 1"), std::string::npos) << e.what();
  }
}

TEST(SimRequestLogReader, TenuresFollowTheSuccessfulLeaseWrites) {
  const std::vector<LoggedRequest> log{
      at(0, "nvcre/a", "create", "/apis/coordination.k8s.io/v1/namespaces/soak/leases"),
      at(1, "nvcre/a", "update", kLeaseUrl),
      at(2, "nvcre/b", "update", kLeaseUrl, 409),  // b tried while a held it: refused
      at(10, "nvcre/b", "update", kLeaseUrl),      // a's lease (4 s) ran out at 5: b takes it
      at(11, "nvcre/c", "update", kLeaseUrl),      // c takes it at once (b released it)
  };
  const auto tenures = lease_tenures(log, kLease, std::chrono::seconds(4));
  ASSERT_EQ(tenures.size(), 3u);
  EXPECT_EQ(tenures[0].agent, "nvcre/a");
  EXPECT_EQ(tenures[0].from_us, 0);
  EXPECT_EQ(tenures[0].until_us, 5000000);
  EXPECT_EQ(tenures[1].agent, "nvcre/b");
  EXPECT_EQ(tenures[1].until_us, 11000000);  // cut where c's write succeeded
  EXPECT_EQ(tenures[2].until_us, 15000000);
}

TEST(SimRequestLogReader, WritesOutsideTheirOwnTenureAreFlagged) {
  const std::vector<LoggedRequest> log{
      at(0, "nvcre/a", "update", kLeaseUrl),   at(1, "nvcre/a", "patch", kJobUrl),  // a leads: fine
      at(1, "nvcre/b", "patch", kJobUrl, 503),  // b does not: flagged, whatever the answer
      at(1, "nvcre/b", "get", kJobUrl),         // a read: fine
      at(1, "nvcre-soak", "create", kJobUrl),   // not a manager: not judged
      at(6, "nvcre/a", "patch", kJobUrl),       // a's lease ran out at 4: flagged
      at(6, "nvcre/b", "update", kLeaseUrl),    // b takes the Lease
      at(7, "nvcre/b", "delete", kJobUrl),      // b leads: fine
  };
  const auto tenures = lease_tenures(log, kLease, std::chrono::seconds(4));
  const auto flagged = writes_without_lease(log, tenures, kLease, "nvcre/");
  ASSERT_EQ(flagged.size(), 2u);
  EXPECT_EQ(flagged[0].agent, "nvcre/b");
  EXPECT_EQ(flagged[0].t_us, 1000000);
  EXPECT_EQ(flagged[1].agent, "nvcre/a");
  EXPECT_EQ(flagged[1].t_us, 6000000);
}

}  // namespace
}  // namespace nvcre::sim
