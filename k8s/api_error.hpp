#pragma once
// Errors from a Kubernetes API server as a client sees them: a metav1.Status decoded into ApiError
// {code, reason, message, causes}. The REST client throws ApiError for every non-2xx answer (our
// choice over an expected-style result: callers of a reconcile step abort on the first failure and
// the actor layer catches once); the is_* helpers mirror apimachinery's errors.IsNotFound & co.
#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

struct StatusCause {
  std::string reason;  // e.g. "FieldValueInvalid", "FieldValueRequired"
  std::string message;
  std::string field;  // e.g. "spec.categories[0]"
};

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, std::string message, std::vector<StatusCause> causes = {},
           boost::json::value status = {});

  int code = 0;         // HTTP status code (Status.code when present)
  std::string reason;   // StatusReason: NotFound, AlreadyExists, Conflict, Invalid, Expired, ...
  std::string message;  // Status.message
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;  // Status.details.retryAfterSeconds
  boost::json::value status;    // the whole Status body when the server sent one, else null
};

// Decodes a Status object (kind: Status). When `body` is not a Status (a proxy's HTML page, an
// empty body), the reason is derived from the HTTP code as client-go does and the message is a
// short excerpt of the body.
ApiError decode_api_error(int http_code, std::string_view body);
ApiError api_error_from_status(int http_code, const boost::json::value& status);

// One line for a request the server refused with 401 or 403: the method and path, the server's
// message (an API server's 403 names the user, verb, resource, API group and namespace) and what to
// change. Carries no credentials: the request's headers are not part of it. A refusal to set
// blockOwnerDeletion (the OwnerReferencesPermissionEnforcement plugin, whose message names no
// permission) is completed from the request's body: the owners' finalizers it needs.
std::string describe_refusal(const std::string& method, const std::string& path,
                             const ApiError& error, std::string_view request_body = {});

// The StatusReason a bare HTTP code implies (client-go's reasonForError table).
std::string reason_for_code(int http_code);

inline bool is_not_found(const ApiError& e) { return e.code == 404 || e.reason == "NotFound"; }
inline bool is_already_exists(const ApiError& e) { return e.reason == "AlreadyExists"; }
inline bool is_conflict(const ApiError& e) { return e.code == 409 && e.reason != "AlreadyExists"; }
// The Conflict of a write whose UID precondition names another object than the one under the name
// (the API server's storage layer words it so). Any other Conflict is transient.
inline bool is_uid_precondition_failure(const ApiError& e) {
  return is_conflict(e) &&
         e.message.find("Precondition failed: UID in precondition") != std::string::npos;
}
inline bool is_invalid(const ApiError& e) { return e.code == 422 || e.reason == "Invalid"; }
inline bool is_gone(const ApiError& e) {
  return e.code == 410 || e.reason == "Expired" || e.reason == "Gone";
}

}  // namespace nvcre::k8s
