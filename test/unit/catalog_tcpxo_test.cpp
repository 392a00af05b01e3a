// GCP H100 TCPXO: the image profile picked for a detected plugin release, and the GKE interface
// annotation built from the detected networks.
#include "catalog/tcpxo.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::catalog::gke_tcpxo_interfaces;
using nvcre::catalog::tcpxo_profile_for;

constexpr const char* kDaemonRepo =
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev";

TEST(CatalogTcpxo, MappedReleasesAreExact) {
  const auto v15 = tcpxo_profile_for("v1.0.15");
  EXPECT_TRUE(v15.exact);
  EXPECT_EQ(v15.ncclImage, "nvcr.io/nvidia/pytorch:25.06-py3");
  EXPECT_EQ(v15.trainingImage, "nvcr.io/nvidia/pytorch:25.06-py3");
  EXPECT_EQ(v15.daemonImage, std::string(kDaemonRepo) + ":v1.0.21");
  EXPECT_EQ(v15.daemonArgs, "--num_hops=2");
  EXPECT_EQ(tcpxo_profile_for("v1.0.16").daemonImage, std::string(kDaemonRepo) + ":v1.0.22");
  const auto v17 = tcpxo_profile_for("v1.0.17");
  EXPECT_TRUE(v17.exact);
  EXPECT_EQ(v17.ncclImage, "nvcr.io/nvidia/pytorch:26.01-py3");
  EXPECT_EQ(v17.trainingImage, "nvcr.io/nvidia/pytorch:25.08-py3");
  EXPECT_EQ(v17.daemonImage, std::string(kDaemonRepo) + ":v1.0.23");
}

TEST(CatalogTcpxo, NewerThanEveryMappedReleaseUsesTheNewest) {
  for (const char* tag : {"v1.0.18", "v1.1.0", "v2.0.0-3", "v1.0.100"}) {
    const auto profile = tcpxo_profile_for(tag);
    EXPECT_EQ(profile.release, "v1.0.17") << tag;
    EXPECT_FALSE(profile.exact) << tag;
  }
}

TEST(CatalogTcpxo, UnknownOlderOrUnparseableUsesTheMinimum) {
  // A build suffix is ignored when placing the release: v1.0.9-1 is older than the minimum.
  for (const char* tag : {"", "v1.0.9-1", "v1.0.14", "1.0.17", "v1.0", "v1.0.17x", "latest"}) {
    const auto profile = tcpxo_profile_for(tag);
    EXPECT_EQ(profile.release, "v1.0.15") << tag;
    EXPECT_FALSE(profile.exact) << tag;
    EXPECT_EQ(profile.ncclImage, "nvcr.io/nvidia/pytorch:25.06-py3") << tag;
  }
}

TEST(CatalogTcpxo, InterfacesFollowTheNetworkOrder) {
  EXPECT_EQ(
      gke_tcpxo_interfaces({"vpc1", "vpc2"}),
      R"([{"interfaceName":"eth0","network":"default"},)"
      R"({"interfaceName":"eth1","network":"vpc1"},{"interfaceName":"eth2","network":"vpc2"}])");
  EXPECT_EQ(
      gke_tcpxo_interfaces(nvcre::catalog::default_gke_tcpxo_networks()),
      R"([{"interfaceName":"eth0","network":"default"},)"
      R"({"interfaceName":"eth1","network":"gpu-nic0"},{"interfaceName":"eth2","network":"gpu-nic1"},)"
      R"({"interfaceName":"eth3","network":"gpu-nic2"},{"interfaceName":"eth4","network":"gpu-nic3"},)"
      R"({"interfaceName":"eth5","network":"gpu-nic4"},{"interfaceName":"eth6","network":"gpu-nic5"},)"
      R"({"interfaceName":"eth7","network":"gpu-nic6"},{"interfaceName":"eth8","network":"gpu-nic7"}])");
}

}  // namespace
