#include "install/status.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace nvcre::install {
namespace json = boost::json;
namespace {

const json::value* find_crd(const std::vector<json::value>& crds, std::string_view name) {
  for (const auto& crd : crds)
    if (jsonkit::string_at(crd, {"metadata", "name"}) == name) return &crd;
  return nullptr;
}

// "v2.2.1" or "2.2.1" (optionally with a pre-release suffix): a tag that names a release, unlike
// "latest" or a branch build.
bool is_release_tag(std::string_view tag) {
  if (tag.starts_with('v')) tag.remove_prefix(1);
  int dots = 0;
  bool digit = false;
  for (char c : tag) {
    if (c == '-' || c == '+') break;
    if (c == '.') {
      if (!digit) return false;
      ++dots;
      digit = false;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else {
      return false;
    }
  }
  return dots == 2 && digit;
}

// The tag of "registry:5000/repo/name:tag"; "" for a digest or no tag.
std::string image_tag(const std::string& image) {
  if (image.find('@') != std::string::npos) return {};
  const auto colon = image.rfind(':');
  const auto slash = image.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return {};
  return image.substr(colon + 1);
}

std::string without_v(std::string_view version) {
  return std::string(version.starts_with('v') ? version.substr(1) : version);
}

std::string trainer_cell(const TrainerCheck& trainer) {
  if (!trainer.installed()) return "✗ not found";
  if (trainer.version->detected.empty()) return "✓ installed (version unknown)";
  if (trainer.version_mismatch())
    return "✗ version " + trainer.version->detected + " (supported " + trainer.version->supported +
           ")";
  return "✓ installed (" + trainer.version->supported + ")";
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++width;  // count UTF-8 code points, not bytes
  return width;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// "✓ installed" when nothing is missing, "✗ not found" when everything is, else what is missing.
std::string partial_cell(const std::vector<std::string>& missing, std::size_t shipped) {
  if (missing.empty()) return "✓ installed";
  if (missing.size() >= shipped) return "✗ not found";
  return "✗ missing " + join(missing);
}

}  // namespace

bool TrainerCheck::version_mismatch() const {
  return version && !version->detected.empty() &&
         without_v(version->detected) != without_v(version->supported);
}

bool crd_established(const json::value& crd) {
  const auto* conditions = jsonkit::value_at(crd, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const auto& condition : conditions->as_array())
    if (jsonkit::string_at(condition, {"type"}) == "Established")
      return jsonkit::string_at(condition, {"status"}) == "True";
  return false;
}

TrainerCheck check_trainer(const ClusterObservation& observed) {
  TrainerCheck check;
  const std::string group(kTrainerApiGroup);
  for (const std::string& name : {"trainjobs." + group, "trainingruntimes." + group})
    if (find_crd(observed.crds, name) == nullptr) check.missing_crds.push_back(name);
  const json::value* trainjobs = find_crd(observed.crds, "trainjobs." + group);
  if (trainjobs == nullptr) return check;
  TrainerVersion version;
  if (observed.trainer_deployment) {
    const auto* containers =
        jsonkit::value_at(*observed.trainer_deployment, {"spec", "template", "spec", "containers"});
    if (containers != nullptr && containers->is_array())
      for (const auto& container : containers->as_array())
        if (jsonkit::string_at(container, {"name"}) == "manager") {
          const std::string tag = image_tag(jsonkit::string_at(container, {"image"}));
          if (is_release_tag(tag)) version.detected = tag, version.source = "deployment image";
        }
  }
  if (version.detected.empty()) {
    const std::string label =
        jsonkit::string_at(*trainjobs, {"metadata", "labels", "app.kubernetes.io/version"});
    if (!label.empty()) version.detected = label, version.source = "crd label";
  }
  check.version = version;
  return check;
}

bool SetupStatus::installed() const {
  return nvcre_crds && nvcre_controller && kubeflow_trainer && log_profiles && gpu_operator;
}

SetupStatus evaluate_status(const ClusterObservation& observed,
                            const std::vector<std::string>& shipped_crds,
                            const std::vector<std::string>& shipped_profiles) {
  SetupStatus status;
  for (const auto& name : shipped_crds) {
    const json::value* crd = find_crd(observed.crds, name);
    if (crd == nullptr || !crd_established(*crd)) status.missing_crds.push_back(name);
  }
  status.nvcre_crds = status.missing_crds.empty();
  status.shipped_crd_count = shipped_crds.size();
  status.shipped_profile_count = shipped_profiles.size();
  for (const auto& deployment : observed.nvcre_deployments) {
    const auto* available = jsonkit::value_at(deployment, {"status", "availableReplicas"});
    if (available != nullptr && available->is_number() && available->to_number<double>() > 0)
      status.nvcre_controller = true;
  }
  status.trainer = check_trainer(observed);
  status.kubeflow_trainer = status.trainer.ok();
  for (const auto& name : shipped_profiles) {
    const bool found = std::any_of(observed.log_profiles.begin(), observed.log_profiles.end(),
                                   [&](const json::value& p) {
                                     return jsonkit::string_at(p, {"metadata", "name"}) == name;
                                   });
    if (!found) status.missing_log_profiles.push_back(name);
  }
  status.log_profiles = status.missing_log_profiles.empty();
  status.gpu_operator = observed.gpu_nodes > 0;
  status.dcgm = observed.dcgm_service == Presence::Present;
  status.dcgm_absent = observed.dcgm_service == Presence::Absent;
  return status;
}

std::string render_status_table(const SetupStatus& s) {
  const auto cell = [](bool ok) { return ok ? std::string("✓ installed") : "✗ not found"; };
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Component", "Status"},
      {"─────────────────────────", "──────────"},
      {"NVCRE CRDs", partial_cell(s.missing_crds, s.shipped_crd_count)},
      {"NVCRE Controller", cell(s.nvcre_controller)},
      {"Kubeflow Trainer", trainer_cell(s.trainer)},
      {"Log Profiles", partial_cell(s.missing_log_profiles, s.shipped_profile_count)},
      {"GPU Operator", cell(s.gpu_operator)},
      {"DCGM (optional)", cell(s.dcgm)},
  };
  std::size_t width = 0;
  for (const auto& row : rows) width = std::max(width, display_width(row.first));
  std::ostringstream out;
  for (const auto& [name, value] : rows)
    out << name << std::string(width + 3 - display_width(name), ' ') << value << "\n";
  out << "\n";
  if (s.installed()) {
    out << "Status: ready\n";
  } else {
    out << "Status: not ready — run 'nvcrectl setup init' to install missing components\n";
    if (!s.trainer.installed())
      out << "  Kubeflow Trainer must be installed first: 'nvcrectl setup init' says how\n";
    if (!s.gpu_operator) out << "  GPU Operator must be installed by your cluster administrator\n";
    if (s.trainer.version_mismatch())
      out << "  Kubeflow Trainer " << s.trainer.version->detected
          << " is installed but this nvcre build supports " << s.trainer.version->supported << "\n";
  }
  if (s.trainer.installed() && s.trainer.version->detected.empty()) {
    out << "\nWarning: could not determine the installed Kubeflow Trainer version.\n"
        << "         This nvcre build supports Kubeflow Trainer " << kTrainerVersion << ".\n";
  }
  if (s.dcgm_absent) {
    out << "\nNote: service " << kDcgmNamespace << "/" << kDcgmService
        << " is missing. Only the diagnostics/dcgm-level4\n"
        << "      category needs it. Your cluster administrator can add it with:\n"
        << "      kubectl patch clusterpolicy cluster-policy --type=merge \\\n"
        << "        -p '{\"spec\":{\"dcgm\":{\"enabled\":true}}}'\n";
  }
  return out.str();
}

json::value status_json(const SetupStatus& s) {
  json::object out;
  out["installed"] = s.installed();
  out["components"] = json::object{{"nvcreCRDs", s.nvcre_crds},
                                   {"nvcreController", s.nvcre_controller},
                                   {"kubeflowTrainer", s.kubeflow_trainer},
                                   {"logProfiles", s.log_profiles},
                                   {"gpuOperator", s.gpu_operator},
                                   {"dcgm", s.dcgm}};
  if (s.trainer.version) {
    json::object version{{"supported", s.trainer.version->supported}};
    if (!s.trainer.version->detected.empty()) {
      version["detected"] = s.trainer.version->detected;
      version["source"] = s.trainer.version->source;
    }
    out["kubeflowTrainerVersion"] = std::move(version);
  }
  json::array crds, profiles;
  for (const auto& name : s.missing_crds) crds.emplace_back(name);
  for (const auto& name : s.missing_log_profiles) profiles.emplace_back(name);
  out["missing"] = json::object{{"crds", std::move(crds)}, {"logProfiles", std::move(profiles)}};
  return out;
}

}  // namespace nvcre::install
