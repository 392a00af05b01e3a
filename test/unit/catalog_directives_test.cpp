// catalog/expand.hpp directives and the loader, on small hand-written catalogs.
#include "jsonkit/yaml.hpp"
#include "catalog/catalog.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace {

namespace json = boost::json;
using nvcre::catalog::BuildConfig;
using nvcre::catalog::Catalog;
using nvcre::catalog::CatalogError;

using Files = std::vector<std::pair<std::string, std::string>>;

// Expands `body` (the YAML of one entry t/e) with the given config and returns the JSON.
json::value expand(const std::string& body, BuildConfig config = {}, Files extra = {}) {
  extra.emplace_back("catalog/entries/t/e.yaml", body);
  if (config.gpu_architecture.empty()) config.gpu_architecture = "h100";
  return Catalog::load(extra).lookup("t", "e")->expand(config);
}

const std::string kBase = "jobTemplate: {spec: {}}\n";

TEST(CatalogDirectives, SolePlaceholderIsTyped) {
  BuildConfig config;
  config.nodes_per_job = 3;
  config.enable_mnnvl = true;
  const json::value out = expand(kBase +
                                     "dependencies: [{a: '{{nodesPerJob}}', b: '{{enableMNNVL}}', "
                                     "c: 'n={{nodesPerJob}}', d: {$str: '{{nodesPerJob}}'}}]\n",
                                 config);
  const json::object& dep = out.at("dependencies").at(0).as_object();
  EXPECT_EQ(dep.at("a"), json::value(3));
  EXPECT_EQ(dep.at("b"), json::value(true));
  EXPECT_EQ(dep.at("c"), json::value("n=3"));
  EXPECT_EQ(dep.at("d"), json::value("3"));
}

TEST(CatalogDirectives, IfDropsKeysAndSplicesLists) {
  BuildConfig config;
  config.mlnx_per_node = 0;
  const std::string body =
      kBase +
      "dependencies:\n"
      "- nic: {$if: {param: mlnxPerNode, gt: 0}, $then: x}\n"
      "  list: [a, {$if: {param: mlnxPerNode, gt: 0}, $then: [b, c], $else: [d, e]}, f]\n"
      "  scale: {$if: {param: testScale, in: [diagnose, intra-rack]}, $then: true, $else: false}\n"
      "  notc: {$if: {not: {param: enableCheckpoint}}, $then: on}\n";
  const json::value out1 = expand(body, config);
  const json::object& dep = out1.at("dependencies").at(0).as_object();
  EXPECT_FALSE(dep.contains("nic"));
  EXPECT_EQ(dep.at("list"), json::parse(R"(["a","d","e","f"])"));
  EXPECT_EQ(dep.at("scale"), json::value(false));
  EXPECT_EQ(dep.at("notc"), json::value(true));
  config.mlnx_per_node = 2;
  config.options.testScale = "diagnose";
  const json::value out2 = expand(body, config);
  const json::object& on = out2.at("dependencies").at(0).as_object();
  EXPECT_EQ(on.at("nic"), json::value("x"));
  EXPECT_EQ(on.at("list"), json::parse(R"(["a","b","c","f"])"));
  EXPECT_EQ(on.at("scale"), json::value(true));
}

TEST(CatalogDirectives, IncludeSplicesListsAndMergesMaps) {
  Files lib = {{"catalog/entries/_lib/l.yaml", "- {name: A, value: '1'}\n- {name: B}\n"},
               {"catalog/entries/_lib/m.yaml", "x: 1\ny: '{{entryName}}'\n"}};
  const json::value out = expand(
      kBase +
          "dependencies:\n- args: [first, {$include: l.yaml}, {$mpiEnvArgs: {$include: l.yaml}}]\n"
          "  map: {$include: m.yaml, x: 2}\n",
      {}, lib);
  const json::object& dep = out.at("dependencies").at(0).as_object();
  EXPECT_EQ(dep.at("args"),
            json::parse(R"(["first",{"name":"A","value":"1"},{"name":"B"},"-x","A=1","-x","B"])"));
  EXPECT_EQ(dep.at("map"), json::parse(R"({"x":2,"y":"e"})"));
}

TEST(CatalogDirectives, RepeatFileAndRenderedKeys) {
  BuildConfig config;
  config.mlnx_per_node = 3;
  config.nic_resource_name = "rdma/ib";
  Files files = {{"catalog/entries/t/e/configs/run.sh", "echo {{gpusPerNode}} $HOME"}};
  config.gpus_per_node = 4;
  const json::value out = expand(
      kBase +
          "dependencies:\n- nets: {$repeat: sriov, $count: '{{mlnxPerNode}}', $separator: ','}\n"
          "  script: {$file: configs/run.sh}\n"
          "  res: {'{{nicResourceName}}': 1}\n",
      config, files);
  const json::object& dep = out.at("dependencies").at(0).as_object();
  EXPECT_EQ(dep.at("nets"), json::value("sriov,sriov,sriov"));
  EXPECT_EQ(dep.at("script"), json::value("echo 4 $HOME"));
  EXPECT_EQ(dep.at("res"), json::parse(R"({"rdma/ib":1})"));
}

TEST(CatalogDirectives, ErrorsNameEntryAndPlace) {
  EXPECT_THROW(expand(kBase + "dependencies: [{a: '{{noSuchParam}}'}]\n"), CatalogError);
  EXPECT_THROW(expand(kBase + "dependencies: [{a: 'x {{noSuchParam}}'}]\n"), CatalogError);
  EXPECT_THROW(expand(kBase + "dependencies: [{$iff: 1}]\n"), CatalogError);
  EXPECT_THROW(expand(kBase + "dependencies: [{$include: missing.yaml}]\n"), CatalogError);
  try {
    expand(kBase + "dependencies: [{a: {$if: {param: nope}, $then: 1}}]\n");
    FAIL();
  } catch (const CatalogError& e) {
    EXPECT_NE(std::string(e.what()).find("t/e: dependencies[0].a.$if: unknown parameter \"nope\""),
              std::string::npos)
        << e.what();
  }
  // Typed decoding catches misspelled keys at load time.
  EXPECT_THROW(Catalog::load({{"catalog/entries/t/e.yaml", "orchestraton: {}\n"}}), CatalogError);
}

TEST(CatalogDirectives, DefaultsFillOnlyMissingOrEmpty) {
  BuildConfig config;
  config.options.sourceRepo = "https://mirror/x.git";
  const json::value out = expand("$defaults: {sourceRepo: https://up/x.git, extra: 7}\n" + kBase +
                                     "dependencies: [{r: '{{sourceRepo}}', e: '{{extra}}'}]\n",
                                 config);
  const json::object& dep = out.at("dependencies").at(0).as_object();
  EXPECT_EQ(dep.at("r"), json::value("https://mirror/x.git"));
  EXPECT_EQ(dep.at("e"), json::value(7));
}

TEST(CatalogLoader, RegistrationRuleAndMeta) {
  const Catalog catalog = Catalog::load({
      {"catalog/entries/b/z.yaml", kBase},
      {"catalog/entries/a/y.yaml", kBase},
      {"catalog/entries/a/y/meta.yaml",
       "minGPUs: 4\ntimeoutPerJob: 2h\nparallelism: {default: {tp: 1, pp: 1}, h100: {tp: 2, pp: 1, "
       "ep: 2}}\n"},
      {"catalog/entries/a/y/configs/deep.yaml", "not: an entry\n"},
      {"catalog/entries/_lib/x.yaml", "- 1\n"},
      {"elsewhere/c/d.yaml", kBase},
  });
  const auto keys = catalog.list();
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].to_string(), "a/y");
  EXPECT_EQ(keys[1].to_string(), "b/z");
  EXPECT_EQ(catalog.lookup("a", "nope"), nullptr);
  const auto& meta = catalog.lookup("a", "y")->meta();
  EXPECT_EQ(meta.min_gpus, 4);
  EXPECT_EQ(meta.timeout_per_job, "2h");
  EXPECT_EQ(meta.parallelism_for("h100"), (nvcre::catalog::Parallelism{2, 1, 2}));
  EXPECT_EQ(meta.parallelism_for("gb200"), (nvcre::catalog::Parallelism{1, 1, 0}));
  EXPECT_THROW(Catalog::load({{"catalog/entries/a/y.yaml", kBase},
                              {"catalog/entries/a/y/meta.yaml", "minGpus: 1\n"}}),
               CatalogError);
}

TEST(CatalogLoader, ConfigArch) {
  EXPECT_EQ(nvcre::catalog::config_arch("gb300"), "gb200");
  EXPECT_EQ(nvcre::catalog::config_arch("h100"), "h100");
  EXPECT_EQ(nvcre::catalog::config_arch(""), "");
}

}  // namespace
