// CEL expressions as users write them (performance thresholds, node health rules, override
// `when.expression`): parsed, type-checked against the variables those callers declare, and
// evaluated over a Node, a threshold value and the override variables.
#include "cel/program.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace {

const nvcre::cel::Environment& environment() {
  using nvcre::cel::Type;
  static const nvcre::cel::Environment environment{
      {{"value", Type::floating()},
       {"node", Type::map(Type::string(), Type::dyn())},
       {"self", Type::dyn()},
       {"platform", Type::string()},
       {"domainCount", Type::integer()}},
      nvcre::cel::Features{},
      std::string(nvcre::cel::kLanguageSummary)};
  return environment;
}

const nvcre::cel::Activation& activation() {
  static const nvcre::cel::Activation activation = [] {
    const auto node = boost::json::parse(R"({
      "metadata": {"name": "node-1", "labels": {"nvidia.com/gpu.count": "8", "zone": "a"}},
      "status": {"capacity": {"nvidia.com/gpu": "8", "memory": "2Ti"},
                 "conditions": [{"type": "Ready", "status": "True"}], "allocatable": {}},
      "spec": {"taints": [], "unschedulable": false}})");
    const auto self = boost::json::parse(
        R"({"nodes": ["a", "b"], "count": 3, "ratio": 0.5, "ok": true, "none": null})");
    return nvcre::cel::Activation{{"value", nvcre::cel::Value::floating(850.5)},
                                  {"node", nvcre::cel::from_json(node)},
                                  {"self", nvcre::cel::from_json(self)},
                                  {"platform", nvcre::cel::Value::string("gke")},
                                  {"domainCount", nvcre::cel::Value::integer(2)}};
  }();
  return activation;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto program = nvcre::cel::Program::compile(text, environment());
    (void)program.output_type().name();
    (void)program.evaluate(activation());
  } catch (const nvcre::cel::Error&) {
  }
  return 0;
}
