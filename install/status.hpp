#pragma once
// `nvcrectl setup status` without I/O: what was read from the cluster -> whether each component
// nvcre needs is there (its CRDs, the controller, Kubeflow Trainer at the supported version, the
// shipped LogProfiles, the GPU Operator, optionally DCGM) -> a table or JSON.
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::install {

// The Kubeflow Trainer release nvcre is built and tested against.
inline constexpr std::string_view kTrainerVersion = "v2.2.1";
inline constexpr std::string_view kTrainerApiGroup = "trainer.kubeflow.org";
inline constexpr std::string_view kTrainerNamespace = "kubeflow-system";
inline constexpr std::string_view kTrainerDeployment = "kubeflow-trainer-controller-manager";
inline constexpr std::string_view kDcgmNamespace = "gpu-operator";
inline constexpr std::string_view kDcgmService = "nvidia-dcgm";
inline constexpr std::string_view kGpuPresentLabel = "nvidia.com/gpu.present";

enum class Presence { Present, Absent, Unknown };  // Unknown: the lookup failed (e.g. denied)

// What `setup status` and the init's deps phase read from the cluster.
struct ClusterObservation {
  std::vector<boost::json::value> crds;                  // every CustomResourceDefinition
  std::vector<boost::json::value> nvcre_deployments;     // Deployments in namespace nvcre
  std::optional<boost::json::value> trainer_deployment;  // kubeflow-system's Trainer controller
  std::vector<boost::json::value> log_profiles;          // empty when the kind is not served
  std::size_t gpu_nodes = 0;                             // Nodes labelled gpu.present=true
  Presence dcgm_service = Presence::Unknown;
};

struct TrainerVersion {
  std::string supported{kTrainerVersion};
  std::string detected;  // "" when no source says
  std::string source;    // "deployment image" | "crd label"
};

struct TrainerCheck {
  std::vector<std::string> missing_crds;  // of trainjobs / trainingruntimes.trainer.kubeflow.org
  std::optional<TrainerVersion> version;  // set when the TrainJob CRD exists
  bool installed() const { return missing_crds.empty(); }
  bool version_mismatch() const;  // a version was detected and is not the supported one
  bool ok() const { return installed() && !version_mismatch(); }
};

// Trainer's CRDs and version: the controller Deployment's `manager` image tag (a release tag
// only), else the TrainJob CRD's app.kubernetes.io/version label.
TrainerCheck check_trainer(const ClusterObservation& observed);

struct SetupStatus {
  bool nvcre_crds = false;        // every CRD nvcre ships, established
  bool nvcre_controller = false;  // a Deployment in nvcre with an available replica
  bool kubeflow_trainer = false;  // TrainJob CRD, and the supported version when it is known
  bool log_profiles = false;      // every shipped LogProfile
  bool gpu_operator = false;      // a node labelled nvidia.com/gpu.present=true
  bool dcgm = false;              // optional
  bool dcgm_absent = false;       // the API server said the DCGM Service does not exist
  std::vector<std::string> missing_crds;
  std::vector<std::string> missing_log_profiles;
  std::size_t shipped_crd_count = 0;
  std::size_t shipped_profile_count = 0;
  TrainerCheck trainer;
  bool installed() const;  // every required component (DCGM is optional)
};

// `shipped_crds` / `shipped_profiles`: the names setup init installs.
SetupStatus evaluate_status(const ClusterObservation& observed,
                            const std::vector<std::string>& shipped_crds,
                            const std::vector<std::string>& shipped_profiles);

// The table (`-o table`): a row per component, then the verdict and what to do.
std::string render_status_table(const SetupStatus& status);

// `-o json`: {installed, components{nvcreCRDs, nvcreController, kubeflowTrainer, logProfiles,
// gpuOperator, dcgm}, kubeflowTrainerVersion{supported, detected, source} (when Trainer is
// there), missing{crds, logProfiles}}.
boost::json::value status_json(const SetupStatus& status);

// True when the CRD's Established condition is True.
bool crd_established(const boost::json::value& crd);

}  // namespace nvcre::install
