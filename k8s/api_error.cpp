#include "k8s/api_error.hpp"

#include "jsonkit/paths.hpp"
#include "k8s/resource_mapper.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace nvcre::k8s {
namespace json = boost::json;
namespace {

std::string what_of(int code, const std::string& reason, const std::string& message) {
  std::string out =
      message.empty() ? "the server responded with HTTP " + std::to_string(code) : message;
  if (!reason.empty()) out += " (" + reason + ", " + std::to_string(code) + ")";
  return out;
}

// What setting the request's blockOwnerDeletion references needs, in an API server's words. The
// plural is the lower-case kind + "s": true of every kind nvcre sets as an owner.
std::string blocking_owners_needs(std::string_view body) {
  boost::system::error_code ec;
  const json::value object = json::parse(body, ec);
  if (ec || !object.is_object()) return {};
  const json::array* refs =
      jsonkit::find_array(object.as_object(), {"metadata", "ownerReferences"});
  if (refs == nullptr) return {};
  std::string out;
  for (const auto& ref : *refs) {
    const json::object* fields = ref.if_object();
    const json::value* block = fields ? fields->if_contains("blockOwnerDeletion") : nullptr;
    if (block == nullptr || !block->is_bool() || !block->as_bool()) continue;
    std::string plural = jsonkit::string_of(fields, "kind");
    for (auto& c : plural) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += std::string(out.empty() ? " (needs: " : "; ") + "cannot update resource \"" + plural +
           "s/finalizers\" in API group \"" +
           split_api_version(jsonkit::string_of(fields, "apiVersion")).first + "\"";
  }
  return out.empty() ? out : out + ")";
}

}  // namespace

ApiError::ApiError(int code_, std::string reason_, std::string message_,
                   std::vector<StatusCause> causes_, json::value status_)
    : std::runtime_error(what_of(code_, reason_, message_)),
      code(code_),
      reason(std::move(reason_)),
      message(std::move(message_)),
      causes(std::move(causes_)),
      status(std::move(status_)) {}

std::string describe_refusal(const std::string& method, const std::string& path,
                             const ApiError& error, std::string_view request_body) {
  std::string what = error.message.empty() ? error.reason : error.message;
  if (what.find("cannot set blockOwnerDeletion") != std::string::npos)
    what += blocking_owners_needs(request_body);
  if (error.code == 401)
    return "API request refused (401 Unauthorized): " + method + " " + path + ": " + what +
           ": the server did not accept the client's credentials (check the kubeconfig's token "
           "or the ServiceAccount token)";
  return "API request refused (" + std::to_string(error.code) + " " + error.reason +
         "): " + method + " " + path + ": " + what +
         ": the client's role lacks this permission (grant it, e.g. in the manager's ClusterRole)";
}

std::string reason_for_code(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}

ApiError api_error_from_status(int http_code, const json::value& status) {
  const auto* o = status.if_object();
  if (!o || jsonkit::string_of(&*o, "kind") != "Status") {
    return ApiError(http_code, reason_for_code(http_code),
                    "unexpected error object from the server", {}, status);
  }
  int code = http_code;
  if (const auto* c = o->if_contains("code"); c && c->is_int64() && c->as_int64() > 0)
    code = static_cast<int>(c->as_int64());
  std::string reason = jsonkit::string_of(&*o, "reason");
  if (reason.empty()) reason = reason_for_code(code);
  std::vector<StatusCause> causes;
  int retry_after = 0;
  if (const auto* d = o->if_contains("details"); d && d->is_object()) {
    if (const auto* cs = d->as_object().if_contains("causes"); cs && cs->is_array()) {
      for (const auto& c : cs->as_array()) {
        if (!c.is_object()) continue;
        causes.push_back({jsonkit::string_of(&c.as_object(), "reason"),
                          jsonkit::string_of(&c.as_object(), "message"),
                          jsonkit::string_of(&c.as_object(), "field")});
      }
    }
    // A server's hint, bounded: a negative or absurd value must not turn into a negative wait
    // (the plain cast wrapped -99999999999 to a negative int).
    if (const auto* r = d->as_object().if_contains("retryAfterSeconds"); r && r->is_int64())
      retry_after = static_cast<int>(std::clamp<std::int64_t>(r->as_int64(), 0, 24 * 3600));
  }
  ApiError e(code, std::move(reason), jsonkit::string_of(&*o, "message"), std::move(causes),
             status);
  e.retry_after_seconds = retry_after;
  return e;
}

ApiError decode_api_error(int http_code, std::string_view body) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (!ec && v.is_object() && jsonkit::string_of(&v.as_object(), "kind") == "Status")
    return api_error_from_status(http_code, v);
  std::string excerpt(body.substr(0, 256));
  for (char& ch : excerpt)
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  std::string message = "the server responded with HTTP " + std::to_string(http_code);
  if (!excerpt.empty()) message += ": " + excerpt;
  return ApiError(http_code, reason_for_code(http_code), std::move(message));
}

}  // namespace nvcre::k8s
