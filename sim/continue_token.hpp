#pragma once
// List continue tokens: opaque to clients, they name the last (namespace, name) of a page.
#include <optional>
#include <string>
#include <utility>

namespace nvcre::sim {

std::string encode_continue_token(const std::string& ns, const std::string& name);
// nullopt for a token this server did not issue.
std::optional<std::pair<std::string, std::string>> decode_continue_token(const std::string& token);

}  // namespace nvcre::sim
