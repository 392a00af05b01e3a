// Our kinds as `nvcrectl validate` and the API server's admission read them: YAML/JSON documents,
// each validated as a create and as an update of itself (schema, CRD rules, defaults), then decoded
// into the typed model (Certification, WorkloadRun, Workflow, Job, measurements, LogProfile) and
// encoded back.
#include "api/codec.hpp"
#include "api/objects.hpp"
#include "api/validation.hpp"
#include "jsonkit/yaml.hpp"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<boost::json::value> documents;
  try {
    documents = nvcre::jsonkit::parse_yaml_documents(text);
  } catch (const nvcre::jsonkit::ParseError&) {
    return 0;
  }
  for (const auto& object : documents) {
    (void)nvcre::api::causes_to_json(nvcre::api::validate_create(object));
    (void)nvcre::api::validate_update(object, object);
    (void)nvcre::api::validate_status_update(object, object);
    boost::json::value stored = object;
    nvcre::api::apply_defaults(stored);
    try {
      const auto typed = nvcre::api::decode_any_object(stored);
      (void)nvcre::api::encode_any_object(typed);
    } catch (const nvcre::api::DecodeError&) {
    }
  }
  return 0;
}
