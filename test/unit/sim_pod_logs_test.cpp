// kube-sim's pod logs: read back by pod and uid, forgotten with the pod.
#include "sim/pod_logs.hpp"

#include <gtest/gtest.h>

namespace nvcre::sim {
namespace {

TEST(SimPodLogs, ALogIsReadByItsPodAndUidAndForgottenWithThePod) {
  PodLogs logs;
  logs.write("ns", "worker-0", "uid-1", "line one\n");
  logs.write("ns", "worker-1", "uid-2", "line two\n");
  EXPECT_EQ(logs.read("ns", "worker-0", "uid-1"), "line one\n");
  EXPECT_EQ(logs.read("other", "worker-0", "uid-1"), "");
  EXPECT_EQ(logs.read("ns", "worker-0", "uid-9"), "") << "a pod created again under the same name";

  logs.write("ns", "worker-0", "uid-1", "line one\nline three\n");  // the container wrote more
  EXPECT_EQ(logs.read("ns", "worker-0", "uid-1"), "line one\nline three\n");

  logs.keep_only({"uid-2"});  // worker-0 was deleted
  EXPECT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs.read("ns", "worker-0", "uid-1"), "");
  EXPECT_EQ(logs.read("ns", "worker-1", "uid-2"), "line two\n");
}

}  // namespace
}  // namespace nvcre::sim
