// JSON as kube-sim reads request bodies (jsonkit::parse_json: boost::json's default limits, numbers
// settled as the API server reads them), then through jsonkit: pretty printing, YAML out and back,
// merge patch.
#include "jsonkit/merge_patch.hpp"
#include "jsonkit/parse.hpp"
#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  boost::system::error_code ec;
  const boost::json::value value = nvcre::jsonkit::parse_json(text, ec);
  if (ec) return 0;
  (void)boost::json::serialize(value);
  (void)nvcre::jsonkit::to_pretty_json(value);
  // What we write as YAML must read back as the same value (`nvcrectl ... -o yaml` then apply).
  const std::string yaml = nvcre::jsonkit::to_yaml(value);
  try {
    const auto back = nvcre::jsonkit::parse_yaml_documents(yaml);
    const bool same = value.is_null()
                          ? back.empty()
                          : back.size() == 1 && nvcre::jsonkit::json_equal(back[0], value);
    if (!same) std::abort();
  } catch (const nvcre::jsonkit::ParseError&) {
    std::abort();  // our own YAML must parse
  }
  try {
    (void)nvcre::jsonkit::merge_patch(value, value);
    (void)nvcre::jsonkit::merge_patch(boost::json::object{}, value);
  } catch (const std::invalid_argument&) {
    // A strategic-merge directive ("$patch", ...) in the patch: refused by design, with its path.
  }
  return 0;
}
