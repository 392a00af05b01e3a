#pragma once
// Label selectors as Kubernetes defines them (k8s.io/apimachinery/pkg/labels): the string form
// used by `kubectl get -l` and list/watch `labelSelector=`, the metav1.LabelSelector object, and
// core NodeSelectorRequirement lists (which add Gt/Lt). Requirements are ANDed.
#include <boost/json/fwd.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

using Labels = std::map<std::string, std::string>;

struct Requirement {
  std::string key;
  enum class Operator {
    Equals,     // "=" and "==" (In with one value)
    NotEquals,  // "!="; true when the key is absent
    In,
    NotIn,  // true when the key is absent
    Exists,
    DoesNotExist,
    GreaterThan,  // Gt/Lt: label and value compared as int64; false if either is not one
    LessThan,
  } op = Operator::Exists;
  std::vector<std::string> values;  // sorted, unique when built by make_requirement

  bool matches(const Labels& labels) const;
  // `value` is the label's value, nullopt when the object has no label `key`.
  bool matches_value(std::optional<std::string_view> value) const;
  // Go's Requirement.String(): "a=b", "a!=b", "a in (x,y)", "a notin (x)", "a", "!a", "a>1".
  std::string to_string() const;
  friend bool operator==(const Requirement&, const Requirement&) = default;
};

// labels.NewRequirement: validates the key (qualified name), every value (label value) and the
// value count for the operator (In/NotIn >= 1, Equals/NotEquals == 1, Exists/DoesNotExist == 0,
// Gt/Lt exactly one int64), then sorts and de-duplicates values. Throws std::invalid_argument
// with apimachinery's field-error wording.
Requirement make_requirement(std::string key, Requirement::Operator op,
                             std::vector<std::string> values);

// One core NodeSelectorRequirement {key, operator: In|NotIn|Exists|DoesNotExist|Gt|Lt, values}.
// Throws std::invalid_argument on a bad shape, unknown operator or invalid requirement.
Requirement node_selector_requirement_from_json(const boost::json::value& json);

class LabelSelector {
 public:
  LabelSelector() = default;  // empty: matches everything

  // The string grammar: comma-separated `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (v1,v2)`,
  // `k notin (v)`, `k>n`, `k<n`, whitespace between tokens ignored. "" is the empty selector.
  // Throws std::invalid_argument naming the 0-based byte position and the problem.
  static LabelSelector parse(std::string_view text);

  // metav1.LabelSelector {matchLabels, matchExpressions[{key, operator, values}]}; operators
  // In|NotIn|Exists|DoesNotExist. null or {} is the empty selector (note: Go's
  // LabelSelectorAsSelector maps a nil pointer to "nothing"; callers decide that case).
  // Unknown fields are ignored, as the API server prunes them. Throws std::invalid_argument.
  static LabelSelector from_json(const boost::json::value& json);

  // A nodeSelector-style equality map (each entry becomes key=value, validated).
  static LabelSelector from_match_labels(const Labels& match_labels);

  // A JSON array of core NodeSelectorRequirement (null = empty). Unlike a scheduler
  // NodeSelectorTerm, an empty list matches everything, since it is ANDed with other criteria.
  static LabelSelector from_node_selector_requirements(const boost::json::value& json);

  // Requirements are validated as by make_requirement.
  static LabelSelector from_requirements(std::vector<Requirement> requirements);

  bool matches(const Labels& labels) const;
  // Without a Labels map: `label(key)` answers the object's value of label `key`, or nullopt.
  bool matches_lookup(
      const std::function<std::optional<std::string_view>(std::string_view key)>& label) const;
  bool empty() const { return requirements_.empty(); }
  // Requirements joined by ',' in key order; parse(to_string()) round-trips.
  std::string to_string() const;
  // Sorted by key (stable), as Go sorts them.
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  explicit LabelSelector(std::vector<Requirement> requirements);
  std::vector<Requirement> requirements_;
};

}  // namespace nvcre::k8s
