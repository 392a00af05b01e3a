#pragma once
// GCP H100 (GKE A3 Mega) GPUDirect-TCPXO facts shared by the catalog entries and the WorkloadRun
// platform overrides: which images go with the TCPXO NCCL plugin release installed on the nodes,
// and the pod interface annotation for the GKE networks the TCPXO NICs sit on.
//
// The plugin on the node loads libcudart from the workload image, so the image's CUDA major must
// match the plugin's; each plugin release is also paired with one tcpxo-daemon (RxDM) release.
#include <boost/json/object.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::catalog {

struct TcpxoProfile {
  std::string release;        // the mapped plugin release the images belong to ("v1.0.15")
  std::string ncclImage;      // NCCL test entries' workload image
  std::string trainingImage;  // training entries' workload image
  std::string daemonImage;    // tcpxo-daemon init (sidecar) container image
  std::string daemonArgs;     // flags for the daemon's entrypoint script
  bool exact = false;         // true when `version` is itself a mapped release
};

// The oldest mapped release; rendered when no version is known (offline render).
inline constexpr std::string_view kMinimumTcpxoPluginVersion = "v1.0.15";

// A mapped release -> its profile (exact). A parseable vMAJOR.MINOR.PATCH[-suffix] tag newer than
// every mapped release -> the newest profile; anything else (older, empty, unparseable) -> the
// minimum release's profile.
TcpxoProfile tcpxo_profile_for(std::string_view plugin_version);

// Where a parseable plugin tag stands against the mapped releases: 1 newer than the newest, -1
// older than the oldest, 0 within; nullopt for a tag that is not vMAJOR.MINOR.PATCH[-suffix].
std::optional<int> tcpxo_version_order(std::string_view plugin_version);

// How many GPU NIC networks a GKE A3 Mega node (a3-megagpu-8g) attaches for TCPXO.
inline constexpr std::size_t kGkeTcpxoNicsPerNode = 8;

// The eight GKE networks of an A3 Mega node when detection gave none: gpu-nic0..gpu-nic7.
std::vector<std::string> default_gke_tcpxo_networks();

// `networking.gke.io/interfaces`: eth0 on "default", then eth1.. on the given networks in order.
std::string gke_tcpxo_interfaces(const std::vector<std::string>& networks);

// Sets tcpxoNcclImage, tcpxoTrainingImage, tcpxoDaemonImage, tcpxoDaemonArgs and
// gkeTcpxoInterfaces (empty networks -> the defaults).
void add_tcpxo_params(boost::json::object& params, std::string_view plugin_version,
                      const std::vector<std::string>& networks);

}  // namespace nvcre::catalog
