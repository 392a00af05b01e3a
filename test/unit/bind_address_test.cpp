// The listeners bind where their flags say, and nowhere wider: the manager's probe and metrics
// endpoints (manager/http_listener.hpp, `--health-probe-bind-address` / `--metrics-bind-address`)
// and kube-sim (`--address`). Read back from the kernel's own table of listening sockets.
#include "manager/flags.hpp"
#include "manager/http_listener.hpp"
#include "sim/kube_sim.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace nvcre::manager {
namespace {

// The local address of the listening IPv4 socket on `port`, as /proc/net/tcp writes it
// ("0100007F" is 127.0.0.1, "00000000" any address), or "" when there is none.
std::string listening_address(unsigned short port) {
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  char wanted[8];
  std::snprintf(wanted, sizeof wanted, "%04X", port);
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (state != "0A") continue;  // TCP_LISTEN
    const auto colon = local.find(':');
    if (local.substr(colon + 1) == wanted) return local.substr(0, colon);
  }
  return "";
}

HttpAnswer ok(const HttpAsk&) { return {}; }

TEST(BindAddress, ALoopbackAddressListensOnLoopbackOnly) {
  HttpListener listener("health probe server", "127.0.0.1:0", ok);
  listener.start();
  EXPECT_EQ(listening_address(listener.port()), "0100007F");
  listener.stop();
}

TEST(BindAddress, AnEmptyHostListensOnEveryAddress) {
  HttpListener listener("health probe server", ":0", ok);
  listener.start();
  EXPECT_EQ(listening_address(listener.port()), "00000000");
  listener.stop();
}

TEST(BindAddress, TheDefaultsAreTheDocumentedOnes) {
  const ManagerFlags defaults;
  EXPECT_EQ(defaults.health_probe_bind_address, ":8081");
  EXPECT_EQ(defaults.metrics_bind_address, "0");  // no metrics listener unless asked
}

TEST(BindAddress, KubeSimListensOnTheAddressItIsGiven) {
  sim::KubeSimOptions options;
  ASSERT_EQ(options.address, "127.0.0.1");  // the documented default: loopback
  sim::KubeSim loopback(options);
  loopback.start();
  EXPECT_EQ(listening_address(loopback.port()), "0100007F");
  loopback.stop();
  options.address = "0.0.0.0";
  sim::KubeSim everywhere(options);
  everywhere.start();
  EXPECT_EQ(listening_address(everywhere.port()), "00000000");
  everywhere.stop();
}

}  // namespace
}  // namespace nvcre::manager
