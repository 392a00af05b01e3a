#pragma once
// Errors as the Kubernetes API server reports them: an HTTP code, a StatusReason and a
// metav1.Status body (kind Status, code, reason, message, details{name, group, kind, causes}).
#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace nvcre::sim {

struct StatusCause {
  std::string reason;  // e.g. "FieldValueInvalid"
  std::string message;
  std::string field;
};

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, std::string message);

  int code = 500;
  std::string reason;
  // details; empty strings are omitted from the body, as Go's omitempty does
  std::string name;
  std::string group;
  std::string kind;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;

  boost::json::value to_status() const;
};

// `<resource>.<group>` or `<resource>` for the core group: how kube names a resource in messages.
std::string qualified_resource(const std::string& resource, const std::string& group);

ApiError not_found(const std::string& group, const std::string& resource, const std::string& name);
ApiError already_exists(const std::string& group, const std::string& resource,
                        const std::string& name);
ApiError conflict(const std::string& group, const std::string& resource, const std::string& name);
// A delete whose preconditions.uid names another object (a same-named replacement).
ApiError uid_precondition_failed(const std::string& group, const std::string& resource,
                                 const std::string& name, const std::string& expected_uid,
                                 const std::string& actual_uid);
// 422: `<Kind>.<group> "<name>" is invalid: <field>: <msg>` (one cause) or `[...]` (several).
ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                 std::vector<StatusCause> causes);
ApiError bad_request(const std::string& message);
ApiError gone(const std::string& message);
ApiError method_not_allowed(const std::string& message);

}  // namespace nvcre::sim
