#include "sim/protobuf_body.hpp"

#include "jsonkit/parse.hpp"
#include "sim/api_error.hpp"

#include <boost/json.hpp>
#include <openssl/evp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

ApiError malformed(const std::string& what) {
  return bad_request("the protobuf body of the request could not be decoded: " + what);
}

// One field of a protobuf message: its number and, for the wire types kept, its payload.
struct Field {
  std::uint32_t number = 0;
  std::uint64_t varint = 0;  // wire type 0
  std::string_view bytes;    // wire type 2 (strings, bytes, nested messages, map entries)
  bool length_delimited = false;
};

// The fields of one message in wire order (repeated fields appear once per element).
std::vector<Field> read_fields(std::string_view message) {
  std::size_t at = 0;
  auto varint = [&]() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= message.size()) throw malformed("a varint runs past the end of the message");
      const auto byte = static_cast<unsigned char>(message[at++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    throw malformed("a varint is longer than 10 bytes");
  };
  std::vector<Field> fields;
  while (at < message.size()) {
    const std::uint64_t key = varint();
    Field field;
    field.number = static_cast<std::uint32_t>(key >> 3);
    switch (key & 7) {
      case 0:
        field.varint = varint();
        break;
      case 1:
      case 5: {
        const std::size_t width = (key & 7) == 1 ? 8 : 4;
        if (message.size() - at < width) throw malformed("a fixed-width field is cut short");
        at += width;
        break;
      }
      case 2: {
        const std::uint64_t length = varint();
        if (length > message.size() - at) throw malformed("a field's length exceeds the message");
        field.bytes = message.substr(at, static_cast<std::size_t>(length));
        field.length_delimited = true;
        at += static_cast<std::size_t>(length);
        break;
      }
      default:
        throw malformed("unsupported wire type " + std::to_string(key & 7));
    }
    fields.push_back(field);
  }
  return fields;
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(written));
  return out;
}

// A map<string, string> (or map<string, bytes> when `binary`: base64 in JSON) entry into `out`.
void add_map_entry(json::object& out, std::string_view entry, bool binary) {
  std::string key, value;
  for (const auto& field : read_fields(entry)) {
    if (field.number == 1) key = std::string(field.bytes);
    if (field.number == 2) value = std::string(field.bytes);
  }
  out[key] = binary ? base64(value) : value;
}

json::object owner_reference(std::string_view message) {
  json::object out;
  for (const auto& field : read_fields(message)) {
    switch (field.number) {
      case 1:
        out["kind"] = std::string(field.bytes);
        break;
      case 3:
        out["name"] = std::string(field.bytes);
        break;
      case 4:
        out["uid"] = std::string(field.bytes);
        break;
      case 5:
        out["apiVersion"] = std::string(field.bytes);
        break;
      case 6:
        out["controller"] = field.varint != 0;
        break;
      case 7:
        out["blockOwnerDeletion"] = field.varint != 0;
        break;
      default:
        break;
    }
  }
  return out;
}

// Go's protobuf writes empty strings that its JSON encoding omits; they are left out here too.
void set_string(json::object& out, std::string_view key, std::string_view value) {
  if (!value.empty()) out[key] = std::string(value);
}

json::object object_meta(std::string_view message) {
  json::object meta;
  json::object labels, annotations;
  json::array owners, finalizers;
  for (const auto& field : read_fields(message)) {
    switch (field.number) {
      case 1:
        set_string(meta, "name", field.bytes);
        break;
      case 2:
        set_string(meta, "generateName", field.bytes);
        break;
      case 3:
        set_string(meta, "namespace", field.bytes);
        break;
      case 6:
        set_string(meta, "resourceVersion", field.bytes);
        break;
      case 11:
        add_map_entry(labels, field.bytes, false);
        break;
      case 12:
        add_map_entry(annotations, field.bytes, false);
        break;
      case 13:
        owners.push_back(owner_reference(field.bytes));
        break;
      case 14:
        finalizers.emplace_back(std::string(field.bytes));
        break;
      default:
        break;  // server-owned fields (uid, timestamps, managedFields) are not taken
    }
  }
  if (!labels.empty()) meta["labels"] = std::move(labels);
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  if (!owners.empty()) meta["ownerReferences"] = std::move(owners);
  if (!finalizers.empty()) meta["finalizers"] = std::move(finalizers);
  return meta;
}

void namespace_fields(json::object& out, const std::vector<Field>& fields) {
  for (const auto& field : fields) {
    if (field.number != 2) continue;  // spec; status is the server's
    json::object spec;
    json::array finalizers;
    for (const auto& item : read_fields(field.bytes))
      if (item.number == 1) finalizers.emplace_back(std::string(item.bytes));
    if (!finalizers.empty()) spec["finalizers"] = std::move(finalizers);
    out["spec"] = std::move(spec);
  }
}

void config_map_fields(json::object& out, const std::vector<Field>& fields) {
  json::object data, binary;
  for (const auto& field : fields) {
    if (field.number == 2) add_map_entry(data, field.bytes, false);
    if (field.number == 3) add_map_entry(binary, field.bytes, true);
    if (field.number == 4) out["immutable"] = field.varint != 0;
  }
  if (!data.empty()) out["data"] = std::move(data);
  if (!binary.empty()) out["binaryData"] = std::move(binary);
}

void secret_fields(json::object& out, const std::vector<Field>& fields) {
  json::object data, string_data;
  for (const auto& field : fields) {
    if (field.number == 2) add_map_entry(data, field.bytes, true);
    if (field.number == 3) set_string(out, "type", field.bytes);
    if (field.number == 4) add_map_entry(string_data, field.bytes, false);
    if (field.number == 5) out["immutable"] = field.varint != 0;
  }
  if (!data.empty()) out["data"] = std::move(data);
  if (!string_data.empty()) out["stringData"] = std::move(string_data);
}

// ServiceAccount: automountServiceAccountToken = 4 (secrets and imagePullSecrets are not taken).
void service_account_fields(json::object& out, const std::vector<Field>& fields) {
  for (const auto& field : fields)
    if (field.number == 4) out["automountServiceAccountToken"] = field.varint != 0;
}

json::array strings(const std::vector<Field>& fields, std::uint32_t number) {
  json::array out;
  for (const auto& field : fields)
    if (field.number == number) out.emplace_back(std::string(field.bytes));
  return out;
}

// TokenRequestSpec: audiences = 1, boundObjectRef = 3 {kind, apiVersion, name, uid},
// expirationSeconds = 4.
void token_request_fields(json::object& out, const std::vector<Field>& fields) {
  for (const auto& field : fields) {
    if (field.number != 2) continue;
    json::object spec;
    const auto spec_fields = read_fields(field.bytes);
    if (auto audiences = strings(spec_fields, 1); !audiences.empty())
      spec["audiences"] = std::move(audiences);
    for (const auto& item : spec_fields) {
      if (item.number == 4) spec["expirationSeconds"] = static_cast<std::int64_t>(item.varint);
      if (item.number != 3) continue;
      json::object bound;
      for (const auto& ref : read_fields(item.bytes)) {
        static constexpr const char* kKeys[] = {"", "kind", "apiVersion", "name", "uid"};
        if (ref.number >= 1 && ref.number <= 4) set_string(bound, kKeys[ref.number], ref.bytes);
      }
      spec["boundObjectRef"] = std::move(bound);
    }
    out["spec"] = std::move(spec);
  }
}

// TokenReviewSpec: token = 1, audiences = 2.
void token_review_fields(json::object& out, const std::vector<Field>& fields) {
  for (const auto& field : fields) {
    if (field.number != 2) continue;
    json::object spec;
    const auto spec_fields = read_fields(field.bytes);
    for (const auto& item : spec_fields)
      if (item.number == 1) set_string(spec, "token", item.bytes);
    if (auto audiences = strings(spec_fields, 2); !audiences.empty())
      spec["audiences"] = std::move(audiences);
    out["spec"] = std::move(spec);
  }
}

// ResourceAttributes: namespace 1, verb 2, group 3, version 4, resource 5, subresource 6, name 7;
// NonResourceAttributes: path 1, verb 2.
json::object access_attributes(std::string_view message, bool resource) {
  static constexpr const char* kResource[] = {"",        "namespace", "verb",        "group",
                                              "version", "resource",  "subresource", "name"};
  json::object out;
  for (const auto& field : read_fields(message)) {
    if (resource && field.number >= 1 && field.number <= 7)
      set_string(out, kResource[field.number], field.bytes);
    if (!resource && field.number == 1) set_string(out, "path", field.bytes);
    if (!resource && field.number == 2) set_string(out, "verb", field.bytes);
  }
  return out;
}

// (Self)SubjectAccessReviewSpec: resourceAttributes = 1, nonResourceAttributes = 2; the
// SubjectAccessReviewSpec adds user = 3, groups = 4 and uid = 6.
void access_review_fields(json::object& out, const std::vector<Field>& fields) {
  for (const auto& field : fields) {
    if (field.number != 2) continue;
    json::object spec;
    const auto spec_fields = read_fields(field.bytes);
    for (const auto& item : spec_fields) {
      if (item.number == 1) spec["resourceAttributes"] = access_attributes(item.bytes, true);
      if (item.number == 2) spec["nonResourceAttributes"] = access_attributes(item.bytes, false);
      if (item.number == 3) set_string(spec, "user", item.bytes);
      if (item.number == 6) set_string(spec, "uid", item.bytes);
    }
    if (auto groups = strings(spec_fields, 4); !groups.empty()) spec["groups"] = std::move(groups);
    out["spec"] = std::move(spec);
  }
}

}  // namespace

bool is_protobuf_media_type(std::string_view content_type) {
  return content_type.substr(0, content_type.find(';')) == "application/vnd.kubernetes.protobuf";
}

json::value decode_protobuf_object(std::string_view body) {
  constexpr std::string_view magic("k8s\0", 4);
  if (!body.starts_with(magic)) throw malformed("it does not start with the \"k8s\\0\" prefix");
  std::string api_version, kind;
  std::string_view raw;
  for (const auto& field : read_fields(body.substr(magic.size()))) {
    if (field.number == 1 && field.length_delimited) {
      for (const auto& type_field : read_fields(field.bytes)) {
        if (type_field.number == 1) api_version = std::string(type_field.bytes);
        if (type_field.number == 2) kind = std::string(type_field.bytes);
      }
    } else if (field.number == 2 && field.length_delimited) {
      raw = field.bytes;
    }
  }
  using Decoder = void (*)(json::object&, const std::vector<Field>&);
  Decoder decoder = nullptr;
  if (api_version == "v1" && kind == "Namespace") decoder = namespace_fields;
  if (api_version == "v1" && kind == "ConfigMap") decoder = config_map_fields;
  if (api_version == "v1" && kind == "Secret") decoder = secret_fields;
  if (api_version == "v1" && kind == "ServiceAccount") decoder = service_account_fields;
  if (api_version == "authentication.k8s.io/v1" && kind == "TokenRequest")
    decoder = token_request_fields;
  if (api_version == "authentication.k8s.io/v1" && kind == "TokenReview")
    decoder = token_review_fields;
  if (api_version == "authorization.k8s.io/v1" &&
      (kind == "SubjectAccessReview" || kind == "SelfSubjectAccessReview"))
    decoder = access_review_fields;
  if (!decoder)
    throw ApiError(
        415, "UnsupportedMediaType",
        "kube-sim reads protobuf bodies of v1 Namespace, ConfigMap, Secret and ServiceAccount, "
        "authentication.k8s.io/v1 TokenRequest and TokenReview, and authorization.k8s.io/v1 "
        "(Self)SubjectAccessReview only, not " +
            (api_version.empty() ? std::string("this body") : api_version + " " + kind) +
            ": send it as application/json");
  const auto fields = read_fields(raw);
  json::object object{{"apiVersion", api_version}, {"kind", kind}};
  object["metadata"] = json::object{};
  for (const auto& field : fields)
    if (field.number == 1) object["metadata"] = object_meta(field.bytes);
  decoder(object, fields);
  return object;
}

json::value decode_request_body(std::string_view content_type, std::string_view body) {
  if (is_protobuf_media_type(content_type)) return decode_protobuf_object(body);
  if (content_type.find("protobuf") != std::string_view::npos)
    throw ApiError(
        415, "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf");
  boost::system::error_code ec;
  json::value parsed = jsonkit::parse_json(body, ec);
  if (ec || !parsed.is_object())
    throw bad_request("the body of the request could not be decoded as a JSON object: " +
                      (ec ? ec.message() : std::string("not an object")));
  return parsed;
}

}  // namespace nvcre::sim
