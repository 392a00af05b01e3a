#pragma once
// Query parameters decoded as kube-apiserver's parameter codec decodes them into ListOptions,
// PodLogOptions and the other option kinds. A boolean is false when it is absent, "0", or
// "false" in any letter case, and true for any other value, the empty one included: so the Python
// client's `watch=True` opens a watch, as on a real server.
#include <map>
#include <string>

namespace nvcre::sim {

using QueryParams = std::map<std::string, std::string>;

bool query_flag(const QueryParams& query, const std::string& key);

}  // namespace nvcre::sim
