// The admission golden suites (test/testdata/validation and immutability) through the two other
// doors a user meets them by: kube-sim's REST API (what kubectl and every client get back) and the
// `nvcrectl validate` binary. The golden tests pin the library; these pin that the server and the
// CLI answer exactly what each expected.json says, so a CRD rule message or the rendering of a
// rejected value cannot drift between the three.
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/api_error.hpp"
#include "k8s/resource_mapper.hpp"
#include "k8s/rest_client.hpp"
#include "kubectl_support.hpp"
#include "sim/crd_loader.hpp"
#include "sim/kube_sim.hpp"
#include "test/support/golden.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using nvcre::testing::GoldenCase;

const k8s::ResourceRef kNamespaces{"", "v1", "namespaces", false};

json::value accepted() { return json::object{{"accepted", true}, {"causes", json::array{}}}; }

// A 422 as the golden files hold it: the Status causes in the order the server sent them.
json::value rejected(const k8s::ApiError& error) {
  json::array causes;
  for (const auto& cause : error.causes)
    causes.push_back(
        json::object{{"type", cause.reason}, {"field", cause.field}, {"message", cause.message}});
  return json::object{{"accepted", false}, {"causes", std::move(causes)}};
}

json::value expected_of(const GoldenCase& golden_case) {
  std::ifstream in(golden_case.expected_path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

std::string pretty(const json::value& value) { return jsonkit::to_pretty_json(value); }

// What kube-sim must answer for a golden verdict. A strict request meets unknown fields while it
// is decoded, before any validation: a 400 naming them, which nvcrectl validate (and the golden)
// lists as causes instead.
json::value server_answer(const json::value& object, const json::value& verdict) {
  const auto& causes = verdict.at("causes").as_array();
  if (causes.empty()) return verdict;
  std::string named;
  for (const auto& cause : causes) {
    if (cause.at("type") != "UnknownField") return verdict;
    named += (named.empty() ? "" : ", ") + std::string(cause.at("message").as_string());
  }
  const auto kind = jsonkit::string_at(object, {"kind"});
  const auto api_version = jsonkit::string_at(object, {"apiVersion"});
  return json::object{{"badRequest", kind + " in version \"" +
                                         api_version.substr(api_version.find('/') + 1) +
                                         "\" cannot be handled as a " + kind +
                                         ": strict decoding error: " + named}};
}

// One kube-sim with every CRD of deploy/crds for the whole suite; each case cleans up after itself.
class KubeSimAdmission : public ::testing::TestWithParam<GoldenCase> {
 protected:
  static void SetUpTestSuite() {
    sim_ = std::make_unique<KubeSim>();
    sim_->start();
    install_crds_from_directory(sim_->api(), fs::path(NVCRE_SOURCE_DIR) / "deploy" / "crds");
    k8s::ClientConfig config;
    config.server = sim_->url();
    config.rate_limit.qps = -1;  // no client-side limit in tests
    client_ = std::make_unique<k8s::RestClient>(config);
    mapper_ = std::make_unique<k8s::ResourceMapper>(*client_);
  }
  static void TearDownTestSuite() {
    mapper_.reset();
    client_.reset();
    sim_->stop();
    sim_.reset();
  }

  // The served resource of the object's apiVersion and kind; nullopt when kube-sim serves no such
  // kind (a real API server answers 404 there, and the golden rejects it on kind or apiVersion).
  static std::optional<k8s::ResourceRef> resource_of(const json::value& object) {
    try {
      return mapper_->resource_for(jsonkit::string_at(object, {"apiVersion"}),
                                   jsonkit::string_at(object, {"kind"}));
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
  }

  static std::string namespace_of(const k8s::ResourceRef& ref, const json::value& object) {
    if (!ref.namespace_scoped) return "";
    auto ns = jsonkit::string_at(object, {"metadata", "namespace"});
    if (ns.empty()) ns = "default";
    try {
      client_->create(kNamespaces, "",
                      json::object{{"apiVersion", "v1"},
                                   {"kind", "Namespace"},
                                   {"metadata", json::object{{"name", ns}}}});
    } catch (const k8s::ApiError& error) {
      if (!k8s::is_already_exists(error)) throw;
    }
    return ns;
  }

  // POST or PUT with fieldValidation=Strict, as kubectl sends them by default.
  static json::value send(const std::string& method, const std::string& path,
                          const json::value& body) {
    k8s::RestRequest request;
    request.method = method;
    request.path = path;
    request.query = {{"fieldValidation", "Strict"}};
    request.content_type = "application/json";
    request.body = json::serialize(body);
    return json::parse(client_->request(request).body);
  }

  // What the server said: a 422 as the golden files hold it, a 400 as {"badRequest": message}.
  static json::value verdict_of(const k8s::ApiError& error) {
    if (error.code == 400) return json::object{{"badRequest", error.message}};
    if (!k8s::is_invalid(error)) throw error;
    return rejected(error);
  }

  // Creates the object and answers what the server said; an accepted object is deleted again.
  static json::value create(const k8s::ResourceRef& ref, const json::value& object) {
    const auto ns = namespace_of(ref, object);
    json::value created;
    try {
      created = send("POST", k8s::RestClient::path_for(ref, ns), object);
    } catch (const k8s::ApiError& error) {
      return verdict_of(error);
    }
    client_->remove(ref, ns, jsonkit::string_at(created, {"metadata", "name"}));
    return accepted();
  }

  // PUT `updated` over the stored object (with its resourceVersion, as kubectl replace sends it).
  static json::value update(const k8s::ResourceRef& ref, const json::value& created,
                            json::value updated) {
    const auto ns = namespace_of(ref, created);
    const auto name = jsonkit::string_at(created, {"metadata", "name"});
    const auto stored = client_->get(ref, ns, name);
    updated.at("metadata").as_object()["resourceVersion"] =
        stored.at("metadata").at("resourceVersion");
    json::value verdict = accepted();
    try {
      send("PUT", k8s::RestClient::path_for(ref, ns, name), updated);
    } catch (const k8s::ApiError& error) {
      verdict = verdict_of(error);
    }
    client_->remove(ref, ns, name);
    return verdict;
  }

  static inline std::unique_ptr<KubeSim> sim_;
  static inline std::unique_ptr<k8s::RestClient> client_;
  static inline std::unique_ptr<k8s::ResourceMapper> mapper_;
};

class KubeSimValidation : public KubeSimAdmission {};
class KubeSimImmutability : public KubeSimAdmission {};

TEST_P(KubeSimValidation, CreateAnswersTheGolden) {
  const auto& golden_case = GetParam();
  const auto object = jsonkit::parse_yaml(golden_case.input("input.yaml"));
  const auto expected = expected_of(golden_case);
  const auto ref = resource_of(object);
  if (!ref) {
    // Nothing to create: the golden must reject the document for what it names.
    ASSERT_FALSE(expected.at("accepted").as_bool()) << pretty(expected);
    const auto& field = expected.at("causes").at(0).at("field").as_string();
    EXPECT_TRUE(field == "kind" || field == "apiVersion") << pretty(expected);
    return;
  }
  const auto answer = create(*ref, object);
  const auto wanted = server_answer(object, expected);
  EXPECT_EQ(answer, wanted) << "kube-sim answered:\n"
                            << pretty(answer) << "\nexpected:\n"
                            << pretty(wanted);
}

TEST_P(KubeSimImmutability, CreateThenUpdateAnswerTheGolden) {
  const auto& golden_case = GetParam();
  const auto created = jsonkit::parse_yaml(golden_case.input("input_create.yaml"));
  const auto expected = expected_of(golden_case);
  const auto ref = resource_of(created);
  ASSERT_TRUE(ref) << "kube-sim serves no " << jsonkit::string_at(created, {"kind"});
  const auto ns = namespace_of(*ref, created);
  try {
    client_->create(*ref, ns, created);
  } catch (const k8s::ApiError& error) {
    FAIL() << "input_create.yaml is rejected: " << error.what();
  }
  json::object answer;
  answer["create"] = accepted();
  const auto updated = jsonkit::parse_yaml(golden_case.input("input_update.yaml"));
  answer["update"] = update(*ref, created, updated);
  json::object wanted = expected.as_object();
  wanted["update"] = server_answer(updated, expected.at("update"));
  EXPECT_EQ(json::value(answer), json::value(wanted)) << "kube-sim answered:\n"
                                                      << pretty(answer) << "\nexpected:\n"
                                                      << pretty(wanted);
}

// `nvcrectl validate -o json FILES` as a user runs it: the result of the file's one document.
json::value nvcrectl_validate(const std::string& args) {
  const auto run =
      run_shell(std::string(NVCRECTL_BINARY) + " validate -o json " + args + " 2>/dev/null");
  boost::system::error_code ec;
  auto parsed = json::parse(run.output, ec);
  if (ec || !parsed.is_array() || parsed.as_array().size() != 1)
    throw std::runtime_error("nvcrectl validate " + args + " printed no single result:\n" +
                             run.output);
  return parsed.as_array().at(0).at("result");
}

class NvcrectlValidation : public ::testing::TestWithParam<GoldenCase> {};
class NvcrectlImmutability : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(NvcrectlValidation, ValidateAnswersTheGolden) {
  const auto& golden_case = GetParam();
  const auto expected = expected_of(golden_case);
  const auto answer = nvcrectl_validate((golden_case.dir / "input.yaml").string());
  EXPECT_EQ(answer, expected) << "nvcrectl validate answered:\n"
                              << pretty(answer) << "\nexpected:\n"
                              << pretty(expected);
}

TEST_P(NvcrectlImmutability, ValidateOldAnswersTheGoldenUpdate) {
  const auto& golden_case = GetParam();
  const auto expected = expected_of(golden_case);
  const auto answer =
      nvcrectl_validate("--old " + (golden_case.dir / "input_create.yaml").string() + " " +
                        (golden_case.dir / "input_update.yaml").string());
  EXPECT_EQ(answer, expected.at("update")) << "nvcrectl validate --old answered:\n"
                                           << pretty(answer) << "\nexpected:\n"
                                           << pretty(expected.at("update"));
}

NVCRE_GOLDEN_SUITE(KubeSimValidation, "validation");
NVCRE_GOLDEN_SUITE(KubeSimImmutability, "immutability");
NVCRE_GOLDEN_SUITE(NvcrectlValidation, "validation");
NVCRE_GOLDEN_SUITE(NvcrectlImmutability, "immutability");

}  // namespace
}  // namespace nvcre::sim::testing
