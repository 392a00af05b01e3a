#include "platform/resource_slices.hpp"

#include "jsonkit/paths.hpp"
#include "platform/detect.hpp"

#include <boost/json.hpp>

#include <cctype>

namespace nvcre::platform {
namespace json = boost::json;

namespace {

bool allowed_in_product(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.' ||
         c == ' ';
}

// A device attribute's string value ("" when absent or not a string).
std::string_view string_attribute(const json::object& device, std::string_view name) {
  const json::object* attribute = jsonkit::find_object(device, {"attributes", name});
  return jsonkit::view_of(attribute, "string");
}

}  // namespace

bool lacks_gpu_product(const json::value& node) {
  auto product = NodeView(node).label(kGpuProductLabel);
  return !product || product->empty();
}

std::string gfd_product_label_value(std::string_view device_name) {
  std::string out;
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    if (!out.empty()) out += '-';
    out += word;
    word.clear();
  };
  for (char c : device_name) {
    if (!allowed_in_product(c)) continue;
    if (c == ' ') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

bool any_node_lacks_gpu_product(std::span<const json::value> nodes) {
  for (const auto& node : nodes) {
    if (lacks_gpu_product(node)) return true;
  }
  return false;
}

std::map<std::string, std::string> gpu_products_by_node(const json::value& slice_list) {
  std::map<std::string, std::string> products;
  const json::array* items =
      slice_list.is_object() ? jsonkit::find_array(slice_list.get_object(), {"items"}) : nullptr;
  if (items == nullptr) return products;
  for (const auto& slice : *items) {
    const json::object* spec = jsonkit::object_at(slice, {"spec"});
    if (spec == nullptr || jsonkit::view_of(spec, "driver") != kGpuResourceSliceDriver) continue;
    const json::string* node = jsonkit::find_string(spec, "nodeName");
    const json::array* devices = jsonkit::find_array(*spec, {"devices"});
    if (node == nullptr || node->empty() || devices == nullptr) continue;
    for (const auto& device : *devices) {
      if (!device.is_object() || string_attribute(device.get_object(), "type") == "vfio") continue;
      const json::object* attribute =
          jsonkit::find_object(device.get_object(), {"attributes", "productName"});
      const json::string* name = jsonkit::find_string(attribute, "string");
      if (name == nullptr) continue;
      products[std::string(*node)] = gfd_product_label_value(*name);
      break;
    }
  }
  return products;
}

bool label_gpu_product(json::value& node, std::string_view product) {
  if (!node.is_object() || !lacks_gpu_product(node)) return false;
  json::object& labels = jsonkit::ensure_path(node.get_object(), {"metadata", "labels"});
  labels[kGpuProductLabel] = product;
  return true;
}

std::vector<std::string> augment_gpu_product_labels(
    std::vector<json::value>& nodes, const std::map<std::string, std::string>& products) {
  std::vector<std::string> synthesized;
  for (auto& node : nodes) {
    auto product = products.find(std::string(NodeView(node).name()));
    if (product != products.end() && label_gpu_product(node, product->second))
      synthesized.push_back(product->first);
  }
  return synthesized;
}

}  // namespace nvcre::platform
