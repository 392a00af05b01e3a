#include "job/node_health_rule.hpp"

#include <boost/json.hpp>

namespace nvcre::job {
namespace json = boost::json;

namespace {

const cel::Environment& node_environment() {
  static const cel::Environment environment{
      {{"node", cel::Type::map(cel::Type::string(), cel::Type::dyn())}},
      cel::Features{},
      "the variable node (the Node object); " + std::string(cel::kLanguageSummary)};
  return environment;
}

json::object& object_field(json::object& parent, std::string_view key) {
  json::value& field = parent[key];
  if (!field.is_object()) field = json::object();
  return field.get_object();
}

void ensure(json::object& parent, std::string_view key, json::value fallback) {
  if (!parent.contains(key)) parent[key] = std::move(fallback);
}

}  // namespace

NodeHealthRule NodeHealthRule::compile(std::string_view expression) {
  try {
    auto program = cel::Program::compile(expression, node_environment());
    if (!program.output_type().is(cel::Type::Tag::Bool))
      throw NodeHealthRuleError("CEL expression must return bool, got " +
                                program.output_type().name());
    return NodeHealthRule(std::move(program));
  } catch (const cel::Error& error) {
    throw NodeHealthRuleError(std::string("CEL compilation error: ") + error.what());
  }
}

bool NodeHealthRule::unhealthy(const json::value& node) const {
  return program_.evaluate({{"node", node_health_input(node)}}).as_bool();
}

cel::Value node_health_input(const json::value& node) {
  json::value copy = node.is_object() ? node : json::value(json::object());
  json::object& root = copy.get_object();
  json::object& metadata = object_field(root, "metadata");
  ensure(metadata, "labels", json::object());
  ensure(metadata, "annotations", json::object());
  json::object& spec = object_field(root, "spec");
  ensure(spec, "taints", json::array());
  ensure(spec, "unschedulable", false);
  json::object& status = object_field(root, "status");
  ensure(status, "conditions", json::array());
  ensure(status, "addresses", json::array());
  ensure(status, "capacity", json::object());
  ensure(status, "allocatable", json::object());
  return cel::from_json(copy);
}

}  // namespace nvcre::job
