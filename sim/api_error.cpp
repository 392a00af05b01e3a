#include "sim/api_error.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

ApiError::ApiError(int code_, std::string reason_, std::string message_)
    : std::runtime_error(message_), code(code_), reason(std::move(reason_)) {}

json::value ApiError::to_status() const {
  json::object status{{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{}},
                      {"status", "Failure"},
                      {"message", what()}};
  if (!reason.empty()) status["reason"] = reason;
  json::object details;
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  if (!kind.empty()) details["kind"] = kind;
  if (!causes.empty()) {
    json::array array;
    for (const auto& cause : causes) {
      json::object c;
      if (!cause.reason.empty()) c["reason"] = cause.reason;
      if (!cause.message.empty()) c["message"] = cause.message;
      if (!cause.field.empty()) c["field"] = cause.field;
      array.push_back(std::move(c));
    }
    details["causes"] = std::move(array);
  }
  if (retry_after_seconds > 0) details["retryAfterSeconds"] = retry_after_seconds;
  if (!details.empty()) status["details"] = std::move(details);
  status["code"] = code;
  return status;
}

std::string qualified_resource(const std::string& resource, const std::string& group) {
  return group.empty() ? resource : resource + "." + group;
}

namespace {
ApiError with_details(ApiError error, const std::string& group, const std::string& kind,
                      const std::string& name) {
  error.group = group;
  error.kind = kind;
  error.name = name;
  return error;
}
}  // namespace

ApiError not_found(const std::string& group, const std::string& resource, const std::string& name) {
  return with_details(ApiError(404, "NotFound",
                               qualified_resource(resource, group) + " \"" + name + "\" not found"),
                      group, resource, name);
}

ApiError already_exists(const std::string& group, const std::string& resource,
                        const std::string& name) {
  return with_details(
      ApiError(409, "AlreadyExists",
               qualified_resource(resource, group) + " \"" + name + "\" already exists"),
      group, resource, name);
}

ApiError conflict(const std::string& group, const std::string& resource, const std::string& name) {
  return with_details(
      ApiError(409, "Conflict",
               "Operation cannot be fulfilled on " + qualified_resource(resource, group) + " \"" +
                   name +
                   "\": the object has been modified; please apply your changes to the latest "
                   "version and try again"),
      group, resource, name);
}

ApiError uid_precondition_failed(const std::string& group, const std::string& resource,
                                 const std::string& name, const std::string& expected_uid,
                                 const std::string& actual_uid) {
  return with_details(
      ApiError(409, "Conflict",
               "Operation cannot be fulfilled on " + qualified_resource(resource, group) + " \"" +
                   name + "\": Precondition failed: UID in precondition: " + expected_uid +
                   ", UID in object meta: " + actual_uid),
      group, resource, name);
}

ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                 std::vector<StatusCause> causes) {
  std::string list;
  for (std::size_t i = 0; i < causes.size(); ++i) {
    if (i > 0) list += ", ";
    list += (causes[i].field.empty() ? std::string("<nil>") : causes[i].field) + ": " +
            causes[i].message;
  }
  if (causes.size() != 1) list = "[" + list + "]";
  ApiError error(422, "Invalid",
                 qualified_resource(kind, group) + " \"" + name + "\" is invalid: " + list);
  error = with_details(std::move(error), group, kind, name);
  error.causes = std::move(causes);
  return error;
}

ApiError bad_request(const std::string& message) { return ApiError(400, "BadRequest", message); }
ApiError gone(const std::string& message) { return ApiError(410, "Expired", message); }
ApiError method_not_allowed(const std::string& message) {
  return ApiError(405, "MethodNotAllowed", message);
}

}  // namespace nvcre::sim
