#pragma once
// A Job's node health rule (spec.nodeHealthMonitor.cel.expression): any boolean CEL expression
// over the variable `node`, the whole Node object as a map; true means the node is unhealthy.
// The fields monitors commonly read are present even when the Node lacks them
// (metadata.labels and .annotations {}, spec.taints [], spec.unschedulable false,
// status.conditions and .addresses [], status.capacity and .allocatable {}), so that
// `node.spec.taints.exists(...)` on an untainted node is false rather than an error.
#include "cel/program.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace nvcre::job {

// Why a rule cannot run, worded as the Job's failure message.
class NodeHealthRuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NodeHealthRule {
 public:
  // Throws NodeHealthRuleError: "CEL compilation error: <what and where>" for an expression the
  // engine cannot run (syntax, an unsupported construct, a type error), "CEL expression must
  // return bool, got <type>" for one that cannot yield a verdict.
  static NodeHealthRule compile(std::string_view expression);

  // Whether `node` (a Node object) is unhealthy. Throws cel::Error (Evaluation) when the
  // expression fails on this node, e.g. a label it indexes is absent.
  bool unhealthy(const boost::json::value& node) const;

 private:
  explicit NodeHealthRule(cel::Program program) : program_(std::move(program)) {}
  cel::Program program_;
};

// The Node with the defaults above filled in, as the CEL value `node`.
cel::Value node_health_input(const boost::json::value& node);

}  // namespace nvcre::job
