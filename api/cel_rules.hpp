#pragma once
// The CRDs' x-kubernetes-validations rules, implemented in C++ and looked up by their exact text.
// We do not embed a CEL interpreter: the rule set is small and fixed, and a rule we do not know
// must fail the CRD load (kube-sim reports it as "a CRD rule we cannot evaluate") rather than be
// silently skipped. Three shapes are recognised generically: `self == oldSelf` (deep equality),
// `has(self.X) == has(oldSelf.X)` (presence pinning, alone or and-ed over several fields) and
// `duration(self) >= duration('A') && duration(self) <= duration('B')` (a duration range).
#include <boost/json/value.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

struct SchemaNode;

// Outcome of one evaluation. `error` carries CEL's runtime error text (e.g. an unparsable
// quantity); kube reports it as "<error> evaluating rule: <rule or message>".
struct CelEvaluation {
  enum class Kind { True, False, Error };
  Kind kind = Kind::True;
  std::string error;

  static CelEvaluation of(bool value) { return {value ? Kind::True : Kind::False, {}}; }
  static CelEvaluation failure(std::string message) { return {Kind::Error, std::move(message)}; }
};

struct CelProgram {
  std::string text;
  bool uses_old_self = false;
  // `old_self` is null on create and wherever no correlated old value exists; transition
  // programs are only called with a non-null old_self.
  std::function<CelEvaluation(const boost::json::value& self, const boost::json::value* old_self)>
      evaluate;
};

// Binds `rule` to its implementation after checking that `node` (the schema carrying the rule)
// has the shape the rule is written against, as kube's CEL type-checker would at CRD creation.
// Throws std::invalid_argument explaining what is wrong (unknown rule text, wrong node type,
// missing property).
std::shared_ptr<const CelProgram> compile_cel_rule(std::string_view rule, const SchemaNode& node);

// The rule texts implemented verbatim (not counting the generic shapes).
std::vector<std::string_view> registered_cel_rules();

// CEL equality on JSON values: maps compare regardless of key order, lists element-wise,
// numbers by value (1 == 1.0).
bool cel_equal(const boost::json::value& a, const boost::json::value& b);

}  // namespace nvcre::api
