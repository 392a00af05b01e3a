#include "sim/namespace_admission.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

void admit_namespace(const json::value* old_object, json::value& ns) {
  if (old_object || !ns.is_object()) return;
  auto& object = ns.as_object();
  object["status"] = json::object{{"phase", "Active"}};
  json::object& spec = jsonkit::ensure_object(object, "spec");
  json::value& finalizers = spec["finalizers"];
  if (!finalizers.is_array()) finalizers = json::array{};
  for (const auto& finalizer : finalizers.as_array())
    if (finalizer == "kubernetes") return;
  finalizers.as_array().emplace_back("kubernetes");
}

}  // namespace nvcre::sim
