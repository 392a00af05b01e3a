// The names our CRDs register must not shadow other projects' kinds on a shared cluster: a short
// name resolves to whichever CRD claims it, so `kubectl get cert` would stop reaching
// cert-manager's Certificate. Listing goes through the `nvcre` category instead.
#include "api/schema.hpp"
#include "jsonkit/yaml.hpp"
#include "sim/resources.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace nvcre {
namespace {

struct OurResource {
  sim::ResourceInfo info;
  std::size_t printer_columns = 0;
};

std::map<std::string, OurResource> our_resources() {
  std::map<std::string, OurResource> found;
  for (const auto& file : api::embedded_crd_files()) {
    auto crd = jsonkit::parse_yaml(file.content);
    if (crd.at("spec").at("group") != "nvcre.nvidia.com") continue;
    auto infos = sim::ResourceRegistry::from_crd(crd);
    EXPECT_EQ(infos.size(), 1u) << file.name;
    const auto& version = crd.at("spec").at("versions").at(0).as_object();
    const auto* columns = version.if_contains("additionalPrinterColumns");
    found[infos.at(0).type.kind] = {infos.at(0), columns ? columns->as_array().size() : 0u};
  }
  return found;
}

TEST(CrdNames, NoShortNameShadowsAWellKnownKind) {
  // cert-manager's Certificate (cert, certs), Argo's Workflow (wf), Kubernetes' own kinds.
  const std::set<std::string> taken{"cert", "certs", "wf", "job", "jobs", "po", "deploy", "cm"};
  auto resources = our_resources();
  ASSERT_EQ(resources.size(), 8u);
  for (const auto& [kind, resource] : resources) {
    for (const auto& name : resource.info.short_names) {
      EXPECT_EQ(taken.count(name), 0u) << kind << " claims the short name " << name;
    }
  }
  EXPECT_TRUE(resources.at("Certification").info.short_names.empty());
  EXPECT_TRUE(resources.at("Workflow").info.short_names.empty());
  // NVCRE's own short name for its report subscription.
  EXPECT_EQ(resources.at("ReportExportPolicy").info.short_names, std::vector<std::string>{"rep"});
}

TEST(CrdNames, EveryKindIsInTheNvcreCategoryAndKeepsItsColumns) {
  auto resources = our_resources();
  for (const auto& [kind, resource] : resources) {
    const auto& categories = resource.info.categories;
    EXPECT_NE(std::find(categories.begin(), categories.end(), "nvcre"), categories.end()) << kind;
  }
  for (const char* kind : {"Certification", "WorkloadRun", "Workflow", "Job"}) {
    EXPECT_GE(resources.at(kind).printer_columns, 3u) << kind;
  }
}

}  // namespace
}  // namespace nvcre
