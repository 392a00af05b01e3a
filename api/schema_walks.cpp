// The schema walks that are not OpenAPI validation: pruning (unknown fields), defaulting,
// list-type invariants and x-kubernetes-validations rules.
#include "api/cel_rules.hpp"
#include "api/schema_validator.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

namespace nvcre::api {
namespace json = boost::json;

namespace {

// field.Path.Key(): how CEL errors name map entries.
std::string key_path(const std::string& base, std::string_view key) {
  return base + "[" + std::string(key) + "]";
}

// The key fields of a list-type=map item, as the object kube reports in a Duplicate error.
json::object map_list_key(const SchemaNode& items, const json::object& item,
                          const std::vector<std::string>& keys) {
  json::object key;
  for (const auto& name : keys) {
    if (const auto* value = item.if_contains(name)) {
      key[name] = *value;
    } else if (const SchemaNode* property = items.property(name);
               property && property->default_value) {
      key[name] = *property->default_value;
    }
  }
  return key;
}

// Whether `value` has the JSON kind the node's rules are compiled for; kube never runs a rule on
// a value of the wrong type (such a value is a blocking schema error).
bool rule_input_ok(const SchemaNode& node, const json::value& value) {
  if (node.int_or_string) {
    return value.is_string() || value.is_int64() || value.is_uint64() ||
           (value.is_double() && std::trunc(value.get_double()) == value.get_double());
  }
  if (node.type == "object") return value.is_object();
  if (node.type == "array") return value.is_array();
  if (node.type == "string") return value.is_string();
  if (node.type == "boolean") return value.is_bool();
  if (node.type == "integer" || node.type == "number") return value.is_number();
  return true;
}

// How a failed rule names the rejected value, as kube-apiserver 1.35 does: a scalar is shown
// itself ("Invalid value: \"-1Gi\": ..."), an object or a list not at all ("Invalid value: ...").
// (Up to 1.34 the schema type stood in for every value: "Invalid value: \"object\": ...".)
std::string rule_error(std::string_view type, const json::value& value, const std::string& detail) {
  std::string out(type);
  if (!value.is_object() && !value.is_array()) out += ": " + go_value(value);
  if (!detail.empty()) out += ": " + detail;
  return out;
}

void add_rule_failure(const ValidationRule& rule, const json::value& value, const std::string& path,
                      const CelEvaluation& result, std::vector<Cause>& causes) {
  const std::string detail_of_rule = rule.message.empty() ? rule.rule : rule.message;
  const std::string field = path.empty() ? "<nil>" : path;
  if (result.kind == CelEvaluation::Kind::Error) {
    causes.push_back(
        {field, std::string(cause_type::kInvalid),
         rule_error("Invalid value", value, result.error + " evaluating rule: " + detail_of_rule)});
    return;
  }
  std::string where = field;
  if (!rule.field_path.empty())
    where = path.empty() ? rule.field_path.substr(1) : path + rule.field_path;
  const std::string detail = rule.message.empty() ? "failed rule: " + rule.rule : rule.message;
  if (rule.reason == "FieldValueForbidden") {
    causes.push_back({where, std::string(cause_type::kForbidden), "Forbidden: " + detail});
  } else if (rule.reason == "FieldValueRequired") {
    causes.push_back({where, std::string(cause_type::kRequired), "Required value: " + detail});
  } else if (rule.reason == "FieldValueDuplicate") {
    causes.push_back(
        {where, std::string(cause_type::kDuplicate), rule_error("Duplicate value", value, "")});
  } else {
    causes.push_back(
        {where, std::string(cause_type::kInvalid), rule_error("Invalid value", value, detail)});
  }
}

const json::value* correlated_item(const SchemaNode& list, const json::value& item,
                                   const json::value* old_list) {
  if (old_list == nullptr || !old_list->is_array() || list.list_type != "map" ||
      !item.is_object() || list.list_map_keys.empty()) {
    return nullptr;
  }
  const json::object key = map_list_key(*list.items, item.get_object(), list.list_map_keys);
  for (const auto& candidate : old_list->get_array()) {
    if (candidate.is_object() &&
        map_list_key(*list.items, candidate.get_object(), list.list_map_keys) == key) {
      return &candidate;
    }
  }
  return nullptr;
}

}  // namespace

void find_unknown_fields(const SchemaNode& node, const json::value& value, const std::string& path,
                         std::vector<std::string>& unknown) {
  if (const auto* object = value.if_object()) {
    for (const auto& entry : *object) {
      const std::string child = child_path(path, entry.key());
      if (const SchemaNode* property = node.property(entry.key())) {
        find_unknown_fields(*property, entry.value(), child, unknown);
      } else if (node.additional_properties) {
        find_unknown_fields(*node.additional_properties, entry.value(), child, unknown);
      } else if (!node.preserve_unknown_fields && !node.additional_properties_any) {
        unknown.push_back(child);
      }
    }
  } else if (const auto* items = value.if_array(); items != nullptr && node.items) {
    for (std::size_t i = 0; i < items->size(); ++i) {
      find_unknown_fields(*node.items, (*items)[i], index_path(path, i), unknown);
    }
  }
}

void prune_unknown_fields(const SchemaNode& node, json::value& value) {
  if (auto* object = value.if_object()) {
    for (auto it = object->begin(); it != object->end();) {
      const SchemaNode* child = node.property(it->key());
      if (child == nullptr) child = node.additional_properties.get();
      if (child != nullptr) {
        prune_unknown_fields(*child, it->value());
      } else if (!node.preserve_unknown_fields && !node.additional_properties_any) {
        it = object->erase(it);  // the element moved into its place is looked at next
        continue;
      }
      ++it;
    }
  } else if (auto* items = value.if_array(); items != nullptr && node.items) {
    for (auto& item : *items) prune_unknown_fields(*node.items, item);
  }
}

void apply_defaults(const SchemaNode& node, json::value& value) {
  if (auto* object = value.if_object()) {
    for (const auto& [name, property] : node.defaulted_properties) {
      auto* current = object->if_contains(name);
      if (current == nullptr || (current->is_null() && !property->nullable)) {
        (*object)[name] = *property->default_value;
      }
    }
    for (auto it = object->begin(); it != object->end();) {
      const SchemaNode* schema = node.property(it->key());
      if (schema == nullptr) schema = node.additional_properties.get();
      if (schema != nullptr && it->value().is_null() && !schema->nullable) {
        if (schema->default_value) {
          it->value() = *schema->default_value;
        } else {
          it = object->erase(it);
          continue;
        }
      }
      if (schema != nullptr) apply_defaults(*schema, it->value());
      ++it;
    }
  } else if (auto* items = value.if_array(); items != nullptr && node.items) {
    for (auto& item : *items) {
      if (item.is_null() && !node.items->nullable && node.items->default_value)
        item = *node.items->default_value;
      apply_defaults(*node.items, item);
    }
  }
}

void validate_list_types(const SchemaNode& node, const json::value& value, const std::string& path,
                         std::vector<Cause>& causes) {
  if (const auto* items = value.if_array()) {
    if (node.list_type == "set") {
      for (std::size_t i = 0; i < items->size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (cel_equal((*items)[i], (*items)[j])) {
            causes.push_back({index_path(path, i), std::string(cause_type::kDuplicate),
                              "Duplicate value: " + go_value((*items)[i])});
            break;
          }
        }
      }
    } else if (node.list_type == "map" && node.items) {
      std::vector<json::object> seen;
      for (std::size_t i = 0; i < items->size(); ++i) {
        const auto* item = (*items)[i].if_object();
        if (item == nullptr) continue;  // a type error, reported by validate_structure
        json::object key = map_list_key(*node.items, *item, node.list_map_keys);
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
          causes.push_back({index_path(path, i), std::string(cause_type::kDuplicate),
                            "Duplicate value: " + json::serialize(key)});
        } else {
          seen.push_back(std::move(key));
        }
      }
    }
    if (node.items) {
      for (std::size_t i = 0; i < items->size(); ++i) {
        validate_list_types(*node.items, (*items)[i], index_path(path, i), causes);
      }
    }
  } else if (const auto* object = value.if_object()) {
    for (const auto& entry : *object) {
      const SchemaNode* schema = node.property(entry.key());
      if (schema == nullptr) schema = node.additional_properties.get();
      if (schema != nullptr)
        validate_list_types(*schema, entry.value(), child_path(path, entry.key()), causes);
    }
  }
}

void validate_rules(const SchemaNode& node, const json::value& value, const json::value* old_value,
                    const std::string& path, std::vector<Cause>& causes) {
  if (value.is_null()) return;  // kube evaluates rules on non-null values only
  if (old_value != nullptr && old_value->is_null()) old_value = nullptr;
  if (rule_input_ok(node, value)) {
    for (const auto& rule : node.rules) {
      if (rule.transition && old_value == nullptr) continue;
      const CelEvaluation result = rule.program->evaluate(value, old_value);
      if (result.kind != CelEvaluation::Kind::True)
        add_rule_failure(rule, value, path, result, causes);
    }
  }
  if (const auto* object = value.if_object()) {
    const auto* old_object = old_value != nullptr ? old_value->if_object() : nullptr;
    // An atomic map is replaced as a whole, so its entries have no old counterparts.
    const bool correlatable = old_object != nullptr && node.map_type != "atomic";
    for (const auto& entry : *object) {
      const json::value* old_entry = correlatable ? old_object->if_contains(entry.key()) : nullptr;
      if (const SchemaNode* property = node.property(entry.key())) {
        validate_rules(*property, entry.value(), old_entry, child_path(path, entry.key()), causes);
      } else if (node.additional_properties) {
        validate_rules(*node.additional_properties, entry.value(), old_entry,
                       key_path(path, entry.key()), causes);
      }
    }
  } else if (const auto* items = value.if_array(); items != nullptr && node.items) {
    for (std::size_t i = 0; i < items->size(); ++i) {
      validate_rules(*node.items, (*items)[i], correlated_item(node, (*items)[i], old_value),
                     index_path(path, i), causes);
    }
  }
}

}  // namespace nvcre::api
