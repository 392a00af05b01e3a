#pragma once
// Who may scrape the secure metrics endpoint (--metrics-secure), decided the way
// controller-runtime's authentication/authorization filter decides it: the scrape's bearer token
// goes to the API server in a TokenReview; the user it names must be allowed `get` on the
// non-resource URL (the request's lowercase method and path, e.g. get /metrics) by a
// SubjectAccessReview. No token or an unauthenticated one: 401; denied: 403; a review that fails:
// 500. The reviews are sent through `send`, so this is testable without a server; tokens never
// appear in answers or logs.
#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::manager {

struct ScrapeRequest {
  std::string method;         // "GET"
  std::string path;           // "/metrics" (no query)
  std::string authorization;  // the Authorization header, "" when absent
};

struct ScrapeVerdict {
  int status = 200;  // 200: serve the metrics; else answer this status with `body`
  std::string body;
  std::string log;  // why, for the manager's log (no token in it)
};

// "Bearer <token>" -> the token; nullopt for any other scheme or an empty token.
std::optional<std::string> bearer_token(std::string_view authorization);

boost::json::value token_review(std::string_view token);

struct ReviewedUser {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  boost::json::value extra;  // object or null
};

// The user a TokenReview answer authenticates; nullopt when status.authenticated is not true.
std::optional<ReviewedUser> reviewed_user(const boost::json::value& answer);

boost::json::value subject_access_review(const ReviewedUser& user, std::string_view verb,
                                         std::string_view path);

// status.allowed of a SubjectAccessReview answer (false when absent, or when denied is true).
bool access_allowed(const boost::json::value& answer);

enum class Review { Token, Access };

// Sends one review (POST of the object to tokenreviews / subjectaccessreviews) and returns the
// server's answer; throws on failure.
using ReviewSender = std::function<boost::json::value(Review, const boost::json::value&)>;

// The verdict on one scrape.
ScrapeVerdict authorize_scrape(const ScrapeRequest& request, const ReviewSender& send);

}  // namespace nvcre::manager
