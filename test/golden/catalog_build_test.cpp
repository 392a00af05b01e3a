// Golden suites of the built-in catalog:
//   catalog-list          input.yaml (ignored)  -> the sorted category keys
//   catalog-build         input_config.yaml     -> the built WorkflowSpec (overrides unresolved)
//   catalog-build-errors  input_config.yaml     -> `error` holds the reference message
// input_config.yaml: {category: d/v, gpuArchitecture, nodesPerJob, gpusPerNode, mlnxPerNode,
// enableMNNVL, nicResourceName, options: CategoryOptions, target: TargetSpec}.
#include "api/certification.hpp"
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "catalog/catalog.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using nvcre::catalog::BuildConfig;
using nvcre::catalog::Catalog;
using nvcre::testing::GoldenCase;

std::int32_t int_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr ? static_cast<std::int32_t>(v->as_int64()) : 0;
}

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr ? std::string(v->as_string()) : std::string();
}

std::string build_case(const GoldenCase& golden_case) {
  const json::object in =
      nvcre::jsonkit::parse_yaml(golden_case.input("input_config.yaml")).as_object();
  const std::string category = string_at(in, "category");
  const auto slash = category.find('/');
  const auto* entry =
      Catalog::builtin().lookup(category.substr(0, slash), category.substr(slash + 1));
  if (entry == nullptr) throw std::runtime_error("unknown category " + category);
  BuildConfig config;
  config.gpu_architecture = string_at(in, "gpuArchitecture");
  config.nodes_per_job = int_at(in, "nodesPerJob");
  config.gpus_per_node = int_at(in, "gpusPerNode");
  config.mlnx_per_node = int_at(in, "mlnxPerNode");
  config.enable_mnnvl = in.contains("enableMNNVL") && in.at("enableMNNVL").as_bool();
  config.nic_resource_name = string_at(in, "nicResourceName");
  if (const json::value* options = in.if_contains("options")) {
    config.options = nvcre::api::decode<nvcre::api::CategoryOptions>(*options, "options");
  }
  nvcre::api::TargetSpec target;
  if (const json::value* t = in.if_contains("target"))
    target = nvcre::api::decode<nvcre::api::TargetSpec>(*t, "target");
  return nvcre::jsonkit::to_pretty_json(nvcre::api::encode(entry->build(target, config))) + "\n";
}

class CatalogList : public ::testing::TestWithParam<GoldenCase> {};
TEST_P(CatalogList, Lists) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase&) {
    json::array out;
    for (const auto& key : Catalog::builtin().list())
      out.push_back(json::object{{"domain", key.domain}, {"variant", key.variant}});
    return nvcre::jsonkit::to_pretty_json(out) + "\n";
  });
}
NVCRE_GOLDEN_SUITE(CatalogList, "catalog-list");

class CatalogBuild : public ::testing::TestWithParam<GoldenCase> {};
TEST_P(CatalogBuild, Builds) { nvcre::testing::check_golden(GetParam(), build_case); }
NVCRE_GOLDEN_SUITE(CatalogBuild, "catalog-build");

class CatalogBuildErrors : public ::testing::TestWithParam<GoldenCase> {};
TEST_P(CatalogBuildErrors, Fails) { nvcre::testing::check_golden(GetParam(), build_case); }
NVCRE_GOLDEN_SUITE(CatalogBuildErrors, "catalog-build-errors");

}  // namespace
