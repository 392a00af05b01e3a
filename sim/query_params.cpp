#include "sim/query_params.hpp"

#include <algorithm>
#include <cctype>

namespace nvcre::sim {

bool query_flag(const QueryParams& query, const std::string& key) {
  auto it = query.find(key);
  if (it == query.end()) return false;
  std::string value = it->second;
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return value != "0" && value != "false";
}

}  // namespace nvcre::sim
