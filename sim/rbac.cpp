#include "sim/rbac.hpp"

#include "jsonkit/paths.hpp"
#include "k8s/label_selector.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace nvcre::sim::rbac {
namespace {

namespace json = boost::json;
using jsonkit::string_at;

bool contains(const json::value& rule, std::string_view field, std::string_view wanted) {
  const json::value* list = jsonkit::value_at(rule, {field});
  if (list == nullptr || !list->is_array()) return false;
  return std::any_of(list->as_array().begin(), list->as_array().end(), [&](const json::value& v) {
    return v.is_string() && v.as_string() == wanted;
  });
}

bool empty_list(const json::value& rule, std::string_view field) {
  const json::value* list = jsonkit::value_at(rule, {field});
  return list == nullptr || !list->is_array() || list->as_array().empty();
}

bool resource_matches(const json::value& rule, const RequestAttributes& request) {
  const json::value* resources = jsonkit::value_at(rule, {"resources"});
  if (resources == nullptr || !resources->is_array()) return false;
  const std::string combined =
      request.subresource.empty() ? request.resource : request.resource + "/" + request.subresource;
  for (const auto& item : resources->as_array()) {
    if (!item.is_string()) continue;
    const std::string_view resource = item.as_string();
    if (resource == "*" || resource == combined) return true;
    if (!request.subresource.empty() && resource == "*/" + request.subresource) return true;
  }
  return false;
}

bool path_matches(const json::value& rule, std::string_view path) {
  const json::value* urls = jsonkit::value_at(rule, {"nonResourceURLs"});
  if (urls == nullptr || !urls->is_array()) return false;
  for (const auto& item : urls->as_array()) {
    if (!item.is_string()) continue;
    const std::string_view url = item.as_string();
    if (url == "*" || url == path) return true;
    if (url.ends_with('*') && path.starts_with(url.substr(0, url.size() - 1))) return true;
  }
  return false;
}

bool rule_allows(const json::value& rule, const RequestAttributes& request) {
  if (!contains(rule, "verbs", "*") && !contains(rule, "verbs", request.verb)) return false;
  if (!request.resource_request) return path_matches(rule, request.path);
  return (contains(rule, "apiGroups", "*") || contains(rule, "apiGroups", request.api_group)) &&
         resource_matches(rule, request) &&
         (empty_list(rule, "resourceNames") || contains(rule, "resourceNames", request.name));
}

// A subject of a binding in `binding_ns` ("" for a ClusterRoleBinding) names this user.
bool applies_to(const json::value& subject, const UserInfo& user, const std::string& binding_ns) {
  const std::string kind = string_at(subject, {"kind"});
  const std::string name = string_at(subject, {"name"});
  if (kind == "User") return name == user.name;
  if (kind == "Group")
    return std::find(user.groups.begin(), user.groups.end(), name) != user.groups.end();
  if (kind == "ServiceAccount") {
    std::string ns = string_at(subject, {"namespace"});
    if (ns.empty()) ns = binding_ns;
    return user.name == "system:serviceaccount:" + ns + ":" + name;
  }
  return false;
}

bool binding_applies(const json::value& binding, const UserInfo& user) {
  const json::value* subjects = jsonkit::value_at(binding, {"subjects"});
  if (subjects == nullptr || !subjects->is_array()) return false;
  const std::string ns = string_at(binding, {"metadata", "namespace"});
  return std::any_of(subjects->as_array().begin(), subjects->as_array().end(),
                     [&](const json::value& s) { return applies_to(s, user, ns); });
}

const json::value* named(const std::vector<json::value>& objects, const std::string& name,
                         const std::string& ns) {
  for (const auto& object : objects) {
    if (string_at(object, {"metadata", "name"}) == name &&
        string_at(object, {"metadata", "namespace"}) == ns)
      return &object;
  }
  return nullptr;
}

k8s::Labels labels_of(const json::value& object) {
  k8s::Labels labels;
  const json::value* map = jsonkit::value_at(object, {"metadata", "labels"});
  if (map == nullptr || !map->is_object()) return labels;
  for (const auto& [key, value] : map->as_object())
    if (value.is_string()) labels.emplace(key, value.as_string());
  return labels;
}

// The rules a ClusterRole grants: its own, or with an aggregationRule those of every ClusterRole
// a selector matches (as the aggregation controller writes them), nested aggregation included.
void cluster_role_rules(const RbacObjects& objects, const json::value& role,
                        std::set<std::string>& visited, std::vector<const json::value*>& out) {
  if (!visited.insert(string_at(role, {"metadata", "name"})).second) return;
  const json::value* selectors =
      jsonkit::value_at(role, {"aggregationRule", "clusterRoleSelectors"});
  if (selectors == nullptr || !selectors->is_array()) {
    if (const json::value* rules = jsonkit::value_at(role, {"rules"}); rules && rules->is_array())
      for (const auto& rule : rules->as_array()) out.push_back(&rule);
    return;
  }
  for (const auto& other : objects.cluster_roles) {
    const k8s::Labels labels = labels_of(other);
    for (const auto& selector : selectors->as_array()) {
      bool matches = false;
      try {
        matches = k8s::LabelSelector::from_json(selector).matches(labels);
      } catch (const std::invalid_argument&) {
        matches = false;  // a selector the API server would have refused selects nothing
      }
      if (matches) {
        cluster_role_rules(objects, other, visited, out);
        break;
      }
    }
  }
}

struct BindingWalk {
  const RbacObjects& objects;
  const UserInfo& user;
  const RequestAttributes& request;
  std::vector<std::string> errors;

  // True when the binding's role has a rule allowing the request; a missing role is recorded.
  bool allows(const json::value& binding) {
    const std::string kind = string_at(binding, {"roleRef", "kind"});
    const std::string name = string_at(binding, {"roleRef", "name"});
    std::vector<const json::value*> rules;
    if (kind == "ClusterRole") {
      const json::value* role = named(objects.cluster_roles, name, "");
      if (role == nullptr) {
        errors.push_back("clusterrole.rbac.authorization.k8s.io \"" + name + "\" not found");
        return false;
      }
      std::set<std::string> visited;
      cluster_role_rules(objects, *role, visited, rules);
    } else if (kind == "Role") {
      const json::value* role =
          named(objects.roles, name, string_at(binding, {"metadata", "namespace"}));
      if (role == nullptr) {
        errors.push_back("role.rbac.authorization.k8s.io \"" + name + "\" not found");
        return false;
      }
      if (const json::value* list = jsonkit::value_at(*role, {"rules"}); list && list->is_array())
        for (const auto& rule : list->as_array()) rules.push_back(&rule);
    }
    return std::any_of(rules.begin(), rules.end(),
                       [&](const json::value* rule) { return rule_allows(*rule, request); });
  }
};

}  // namespace

UserInfo service_account_user(const std::string& ns, const std::string& name) {
  return {"system:serviceaccount:" + ns + ":" + name,
          {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}};
}

std::optional<std::pair<std::string, std::string>> service_account_of(const std::string& user) {
  const std::string prefix = "system:serviceaccount:";
  if (!user.starts_with(prefix)) return std::nullopt;
  const auto colon = user.find(':', prefix.size());
  if (colon == std::string::npos) return std::nullopt;
  return std::pair{user.substr(prefix.size(), colon - prefix.size()), user.substr(colon + 1)};
}

Decision authorize(const RbacObjects& objects, const UserInfo& user,
                   const RequestAttributes& request) {
  if (std::find(user.groups.begin(), user.groups.end(), "system:masters") != user.groups.end())
    return {true, ""};
  BindingWalk walk{objects, user, request, {}};
  for (const auto& binding : objects.cluster_role_bindings) {
    if (binding_applies(binding, user) && walk.allows(binding)) return {true, ""};
  }
  // Namespaced grants apply to namespaced resource requests only.
  if (request.resource_request && !request.ns.empty()) {
    for (const auto& binding : objects.role_bindings) {
      if (string_at(binding, {"metadata", "namespace"}) != request.ns) continue;
      if (binding_applies(binding, user) && walk.allows(binding)) return {true, ""};
    }
  }
  Decision denied;
  if (walk.errors.size() == 1) {
    denied.reason = "RBAC: " + walk.errors.front();
  } else if (!walk.errors.empty()) {
    denied.reason = "RBAC: [";
    for (std::size_t i = 0; i < walk.errors.size(); ++i)
      denied.reason += (i == 0 ? "" : ", ") + walk.errors[i];
    denied.reason += "]";
  }
  return denied;
}

std::string forbidden_message(const UserInfo& user, const RequestAttributes& request,
                              const std::string& reason) {
  std::string cause;
  if (!request.resource_request) {
    cause = "User \"" + user.name + "\" cannot " + request.verb + " path \"" + request.path + "\"";
  } else {
    const std::string resource = request.subresource.empty()
                                     ? request.resource
                                     : request.resource + "/" + request.subresource;
    cause =
        "User \"" + user.name + "\" cannot " + request.verb + " resource \"" + resource +
        "\" in API group \"" + request.api_group + "\"" +
        (request.ns.empty() ? " at the cluster scope" : " in the namespace \"" + request.ns + "\"");
  }
  if (!reason.empty()) cause += ": " + reason;
  if (!request.resource_request) return "forbidden: " + cause;
  const std::string qualified =
      request.api_group.empty() ? request.resource : request.resource + "." + request.api_group;
  return request.name.empty() ? qualified + " is forbidden: " + cause
                              : qualified + " \"" + request.name + "\" is forbidden: " + cause;
}

}  // namespace nvcre::sim::rbac
