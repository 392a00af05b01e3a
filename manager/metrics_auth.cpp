#include "manager/metrics_auth.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

namespace nvcre::manager {
namespace json = boost::json;

std::optional<std::string> bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i])
      return std::nullopt;
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return std::string(token);
}

json::value token_review(std::string_view token) {
  return json::object{{"apiVersion", "authentication.k8s.io/v1"},
                      {"kind", "TokenReview"},
                      {"spec", {{"token", token}}}};
}

std::optional<ReviewedUser> reviewed_user(const json::value& answer) {
  const auto* authenticated = jsonkit::value_at(answer, {"status", "authenticated"});
  if (authenticated == nullptr || *authenticated != true) return std::nullopt;
  ReviewedUser user;
  user.username = jsonkit::string_at(answer, {"status", "user", "username"});
  user.uid = jsonkit::string_at(answer, {"status", "user", "uid"});
  if (const auto* groups = jsonkit::value_at(answer, {"status", "user", "groups"});
      groups != nullptr && groups->is_array())
    for (const auto& group : groups->as_array())
      if (group.is_string()) user.groups.emplace_back(group.as_string());
  if (const auto* extra = jsonkit::value_at(answer, {"status", "user", "extra"});
      extra != nullptr && extra->is_object())
    user.extra = *extra;
  return user;
}

json::value subject_access_review(const ReviewedUser& user, std::string_view verb,
                                  std::string_view path) {
  json::array groups;
  for (const auto& group : user.groups) groups.emplace_back(group);
  json::object spec{{"user", user.username},
                    {"groups", std::move(groups)},
                    {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (user.extra.is_object()) spec["extra"] = user.extra;
  return json::object{{"apiVersion", "authorization.k8s.io/v1"},
                      {"kind", "SubjectAccessReview"},
                      {"spec", std::move(spec)}};
}

bool access_allowed(const json::value& answer) {
  const auto* allowed = jsonkit::value_at(answer, {"status", "allowed"});
  const auto* denied = jsonkit::value_at(answer, {"status", "denied"});
  return allowed != nullptr && *allowed == true && (denied == nullptr || *denied != true);
}

ScrapeVerdict authorize_scrape(const ScrapeRequest& request, const ReviewSender& send) {
  const auto token = bearer_token(request.authorization);
  if (!token) return {401, "Unauthorized", "metrics scrape without a bearer token"};
  std::optional<ReviewedUser> user;
  try {
    user = reviewed_user(send(Review::Token, token_review(*token)));
  } catch (const std::exception& error) {
    return {401, "Authentication failed", std::string("TokenReview failed: ") + error.what()};
  }
  if (!user) return {401, "Unauthorized", "metrics scrape with a token the API server rejects"};
  std::string verb = request.method;
  std::transform(verb.begin(), verb.end(), verb.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  bool allowed = false;
  try {
    allowed =
        access_allowed(send(Review::Access, subject_access_review(*user, verb, request.path)));
  } catch (const std::exception& error) {
    return {500, "Authorization for user " + user->username + " failed",
            std::string("SubjectAccessReview failed: ") + error.what()};
  }
  if (!allowed)
    return {403, "Authorization denied for user " + user->username,
            "metrics scrape denied: " + user->username + " may not " + verb + " " + request.path};
  return {200, {}, {}};
}

}  // namespace nvcre::manager
