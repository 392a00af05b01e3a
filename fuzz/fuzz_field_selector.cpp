// kube-sim's list/watch filters: `labelSelector=` and `fieldSelector=` (the input's first line is
// the label selector, the rest the field selector), applied to a Pod.
#include "sim/api_error.hpp"
#include "sim/selectors.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto newline = text.find('\n');
  const std::string labels(text.substr(0, newline));
  const std::string fields(newline == std::string_view::npos ? "" : text.substr(newline + 1));
  static const boost::json::value pod = boost::json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "w-0", "namespace": "default", "labels": {"app": "nccl", "gpu": "8"}},
    "spec": {"nodeName": "node-1", "containers": [{"name": "main"}]},
    "status": {"phase": "Running", "podIP": "10.0.0.1"}})");
  try {
    const auto filter = nvcre::sim::make_filter(labels, fields);
    if (filter) (void)filter(pod);
  } catch (const nvcre::sim::ApiError&) {  // the 400 a malformed selector gets
  }
  return 0;
}
