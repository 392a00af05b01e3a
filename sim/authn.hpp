#pragma once
// Who is asking, for kube-sim's access control: the bearer tokens it knows (an admin token in
// system:masters, and the ServiceAccount tokens TokenRequest issued), and the review APIs other
// components call to ask it (TokenReview, SubjectAccessReview, SelfSubjectAccessReview). Pure
// apart from the registry's token store; decisions come from sim/rbac.
#include "sim/rbac.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace nvcre::sim::auth {

inline constexpr std::string_view kAdminUser = "kube-sim-admin";

class TokenRegistry {
 public:
  // The token that authenticates as kAdminUser in system:masters ("" = none).
  void set_admin_token(std::string token);

  // A new random token for ServiceAccount `ns`/`name` (what TokenRequest returns).
  std::string issue(const std::string& ns, const std::string& name);

  // The user a token authenticates as; nullopt for an unknown token.
  std::optional<rbac::UserInfo> authenticate(std::string_view token) const;

 private:
  mutable std::mutex mutex_;
  std::string admin_token_;
  std::map<std::string, rbac::UserInfo, std::less<>> issued_;
};

// POST .../serviceaccounts/<name>/token: the TokenRequest answered with a fresh token.
// `now` stamps status.expirationTimestamp (spec.expirationSeconds later, default one hour).
boost::json::value answer_token_request(TokenRegistry& tokens, const std::string& ns,
                                        const std::string& service_account,
                                        const boost::json::value& request,
                                        std::chrono::system_clock::time_point now);

// POST tokenreviews: status.authenticated and status.user for spec.token.
boost::json::value review_token(const TokenRegistry& tokens, const boost::json::value& review);

// POST subjectaccessreviews: may spec.user (spec.groups) do spec.resourceAttributes or
// spec.nonResourceAttributes? Throws std::invalid_argument when the spec names neither.
boost::json::value review_access(const rbac::RbacObjects& objects,
                                 const boost::json::value& review);

// POST selfsubjectaccessreviews (`kubectl auth can-i`): the same for the requesting user.
boost::json::value review_self_access(const rbac::RbacObjects& objects,
                                      const rbac::UserInfo& requester,
                                      const boost::json::value& review);

}  // namespace nvcre::sim::auth
