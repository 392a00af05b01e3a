#pragma once
// The kube-sim the sim fuzz targets talk to: an ApiServer with our CRDs installed and a few objects
// to read and patch. Rebuilt every `kRequestsPerServer` inputs so that what the fuzzer created does
// not pile up over a long run (memory stays flat; a finding does not depend on hours of history).
#include "api/embedded_file.hpp"
#include "api/schema.hpp"
#include "jsonkit/yaml.hpp"
#include "sim/api_server.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <exception>
#include <memory>

namespace nvcre::fuzz {

inline constexpr int kRequestsPerServer = 2000;

inline void add_fixture_objects(sim::ApiServer& server) {
  for (const auto& file : api::embedded_crd_files()) {
    for (const auto& crd : jsonkit::parse_yaml_documents(file.content)) {
      const auto* kind = crd.is_object() ? crd.as_object().if_contains("kind") : nullptr;
      if (kind != nullptr && kind->is_string() &&
          kind->get_string() == "CustomResourceDefinition") {
        server.add_crd(crd);
      }
    }
  }
  server.create("v1", "configmaps", "default", boost::json::parse(R"({
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "settings", "namespace": "default", "labels": {"app": "nvcre"},
                 "finalizers": ["nvcre.nvidia.com/keep"]},
    "data": {"a": "1", "b": "2"}})"));
  try {
    server.create("nvcre.nvidia.com/v1alpha1", "certifications", "default", boost::json::parse(R"({
      "apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Certification",
      "metadata": {"name": "cert", "namespace": "default", "labels": {"team": "infra"}},
      "spec": {"target": {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
               "thresholds": {"busBandwidthGBps": "value >= 850"},
               "categories": [{"domain": "communication", "variant": "nccl-all-reduce",
                               "options": {"maxBytes": "16G"}}]}})"));
  } catch (const std::exception& error) {
    // The target still fuzzes the ConfigMap; say why the custom resource is missing.
    std::fprintf(stderr, "fuzz fixture: the Certification was not created: %s\n", error.what());
  }
}

// The server for the next input; a fresh one every kRequestsPerServer calls.
inline sim::ApiServer& fixture_server() {
  static std::unique_ptr<sim::ApiServer> server;
  static int served = 0;
  if (!server || ++served >= kRequestsPerServer) {
    server.reset();  // the old one goes first: two servers never live at once
    server = std::make_unique<sim::ApiServer>();
    add_fixture_objects(*server);
    served = 0;
  }
  return *server;
}

}  // namespace nvcre::fuzz
