#include "catalog/tcpxo.hpp"

#include <array>
#include <charconv>
#include <optional>

namespace nvcre::catalog {
namespace {

constexpr std::string_view kDaemonRepo =
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev";
// Daemon v1.0.21 and later retire --num_nics/--uid/--alsologtostderr and reject
// --enforce_kernel_ipv6_support, so the paired daemons all take this one flag.
constexpr std::string_view kDaemonArgs = "--num_hops=2";
constexpr std::string_view kCuda12Image =
    "nvcr.io/nvidia/pytorch:25.06-py3";  // last CUDA 12 NGC PyTorch
constexpr std::string_view kNcclCuda13Image = "nvcr.io/nvidia/pytorch:26.01-py3";
constexpr std::string_view kTrainingCuda13Image = "nvcr.io/nvidia/pytorch:25.08-py3";

struct Mapped {
  std::string_view release, nccl, training, daemon_tag;
};
// Oldest first; keep the releases contiguous when adding one.
constexpr std::array<Mapped, 3> kProfiles{{
    {"v1.0.15", kCuda12Image, kCuda12Image, "v1.0.21"},
    {"v1.0.16", kCuda12Image, kCuda12Image, "v1.0.22"},
    {"v1.0.17", kNcclCuda13Image, kTrainingCuda13Image, "v1.0.23"},
}};

using Version = std::array<int, 3>;

// "vMAJOR.MINOR.PATCH" with an optional "-suffix" (older installer tags carry a build suffix).
std::optional<Version> parse(std::string_view tag) {
  if (tag.empty() || tag.front() != 'v') return std::nullopt;
  const char* at = tag.data() + 1;
  const char* end = tag.data() + tag.size();
  Version version{};
  for (std::size_t i = 0; i < version.size(); ++i) {
    auto [next, error] = std::from_chars(at, end, version[i]);
    if (error != std::errc{} || next == at) return std::nullopt;
    at = next;
    if (i + 1 < version.size()) {
      if (at == end || *at != '.') return std::nullopt;
      ++at;
    }
  }
  if (at != end && *at != '-') return std::nullopt;
  return version;
}

TcpxoProfile profile_of(const Mapped& mapped, bool exact) {
  return TcpxoProfile{
      std::string(mapped.release),  std::string(mapped.nccl),
      std::string(mapped.training), std::string(kDaemonRepo) + ":" + std::string(mapped.daemon_tag),
      std::string(kDaemonArgs),     exact};
}

}  // namespace

TcpxoProfile tcpxo_profile_for(std::string_view plugin_version) {
  for (const auto& mapped : kProfiles) {
    if (mapped.release == plugin_version) return profile_of(mapped, true);
  }
  const auto version = parse(plugin_version);
  if (version && *version > *parse(kProfiles.back().release))
    return profile_of(kProfiles.back(), false);
  return profile_of(kProfiles.front(), false);
}

std::optional<int> tcpxo_version_order(std::string_view plugin_version) {
  const auto version = parse(plugin_version);
  if (!version) return std::nullopt;
  if (*version > *parse(kProfiles.back().release)) return 1;
  if (*version < *parse(kProfiles.front().release)) return -1;
  return 0;
}

std::vector<std::string> default_gke_tcpxo_networks() {
  std::vector<std::string> networks;
  for (std::size_t i = 0; i < kGkeTcpxoNicsPerNode; ++i)
    networks.push_back("gpu-nic" + std::to_string(i));
  return networks;
}

std::string gke_tcpxo_interfaces(const std::vector<std::string>& networks) {
  std::string out = R"([{"interfaceName":"eth0","network":"default"})";
  for (std::size_t i = 0; i < networks.size(); ++i) {
    out += R"(,{"interfaceName":"eth)" + std::to_string(i + 1) + R"(","network":")" + networks[i] +
           R"("})";
  }
  return out + "]";
}

void add_tcpxo_params(boost::json::object& params, std::string_view plugin_version,
                      const std::vector<std::string>& networks) {
  const TcpxoProfile profile = tcpxo_profile_for(plugin_version);
  params["tcpxoNcclImage"] = profile.ncclImage;
  params["tcpxoTrainingImage"] = profile.trainingImage;
  params["tcpxoDaemonImage"] = profile.daemonImage;
  params["tcpxoDaemonArgs"] = profile.daemonArgs;
  params["gkeTcpxoInterfaces"] =
      gke_tcpxo_interfaces(networks.empty() ? default_gke_tcpxo_networks() : networks);
}

}  // namespace nvcre::catalog
