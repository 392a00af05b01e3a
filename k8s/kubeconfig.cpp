#include "k8s/kubeconfig.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nvcre::k8s {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace {

std::optional<std::string> std_getenv(const char* name) {
  if (const char* v = std::getenv(name)) return std::string(v);
  return std::nullopt;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return out.str();
}

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// One kubeconfig being interpreted: every message starts with "kubeconfig <origin>: ".
struct Reader {
  std::string origin;
  fs::path base_dir;

  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError("kubeconfig " + origin + ": " + what);
  }

  const json::object& object_at(const json::object& parent, std::string_view key,
                                const std::string& where) const {
    const auto* v = parent.if_contains(key);
    if (!v || !v->is_object()) fail(where + " has no \"" + std::string(key) + "\" map");
    return v->as_object();
  }

  // A string field; absent -> "". Never echoes the value (it may be a secret).
  std::string string_at(const json::object& o, std::string_view key,
                        const std::string& where) const {
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) return {};
    if (!v->is_string()) fail(where + ": \"" + std::string(key) + "\" must be a string");
    return std::string(v->as_string());
  }

  bool bool_at(const json::object& o, std::string_view key, const std::string& where) const {
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) return false;
    if (v->is_bool()) return v->as_bool();
    if (v->is_string() && (v->as_string() == "true" || v->as_string() == "false"))
      return v->as_string() == "true";
    fail(where + ": \"" + std::string(key) + "\" must be a boolean");
  }

  std::string base64_at(const json::object& o, std::string_view key,
                        const std::string& where) const {
    std::string raw = string_at(o, key, where);
    if (raw.empty()) return {};
    auto decoded = decode_base64(raw);
    if (!decoded) fail(where + ": \"" + std::string(key) + "\" is not valid base64");
    return *decoded;
  }

  std::string path_at(const json::object& o, std::string_view key, const std::string& where) const {
    std::string raw = string_at(o, key, where);
    if (raw.empty()) return {};
    fs::path p(raw);
    if (p.is_relative() && !base_dir.empty()) p = base_dir / p;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      fail(where + ": " + std::string(key) + " file " + p.string() + " does not exist");
    return p.string();
  }

  // The entry of `list_key` (clusters/users/contexts) called `name`, as its inner map.
  const json::object& named(const json::object& root, std::string_view list_key,
                            std::string_view inner_key, const std::string& name,
                            const std::string& referrer) const {
    std::vector<std::string> names;
    if (const auto* list = root.if_contains(list_key); list && list->is_array()) {
      for (const auto& entry : list->as_array()) {
        const auto* e = entry.if_object();
        if (!e) continue;
        const auto* n = e->if_contains("name");
        if (!n || !n->is_string()) continue;
        names.emplace_back(n->as_string());
        if (n->as_string() == name) {
          const auto* inner = e->if_contains(inner_key);
          if (!inner || !inner->is_object()) {
            static const json::object empty;
            if (inner_key == "user" && (!inner || inner->is_null()))
              return empty;  // an anonymous user
            fail(std::string(list_key) + " entry \"" + name + "\" has no \"" +
                 std::string(inner_key) + "\" map");
          }
          return inner->as_object();
        }
      }
    }
    std::string singular(inner_key);
    std::string msg = referrer + singular + " \"" + name + "\" not found; available: ";
    if (names.empty()) msg += "(none)";
    for (std::size_t i = 0; i < names.size(); ++i) msg += (i ? ", " : "") + names[i];
    fail(msg);
  }
};

}  // namespace

std::optional<std::string> decode_base64(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  int padding = 0;
  std::size_t symbols = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding) return std::nullopt;  // data after padding
    int v = value(c);
    if (v < 0) return std::nullopt;
    ++symbols;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  if (symbols % 4 == 1 || padding > 2) return std::nullopt;
  if (padding && (symbols + static_cast<std::size_t>(padding)) % 4 != 0) return std::nullopt;
  return out;
}

std::string ClientConfig::describe() const {
  std::string out = "server=" + server + " namespace=" + ns;
  if (!source.empty()) out += " source=" + source;
  if (!bearer_token.empty()) out += " token=<redacted>";
  if (!token_file.empty()) out += " tokenFile=" + token_file;
  if (!ca_data.empty()) out += " ca=<data>";
  if (!ca_file.empty()) out += " caFile=" + ca_file;
  if (!client_cert_data.empty()) out += " clientCert=<data>";
  if (!client_cert_file.empty()) out += " clientCertFile=" + client_cert_file;
  if (!client_key_data.empty()) out += " clientKey=<redacted>";
  if (!client_key_file.empty()) out += " clientKeyFile=" + client_key_file;
  if (insecure_skip_tls_verify) out += " insecure-skip-tls-verify";
  if (!tls_server_name.empty()) out += " tlsServerName=" + tls_server_name;
  return out;
}

ClientConfig parse_kubeconfig(const std::string& text, const std::string& origin,
                              const std::string& context, const fs::path& base_dir,
                              const std::string& cluster_override,
                              const std::string& user_override) {
  Reader r{origin, base_dir};
  json::value doc;
  try {
    doc = jsonkit::parse_yaml(text);
  } catch (const std::exception& e) {
    // The parser's message names a position, not content; still, never echo the document.
    r.fail(std::string("not valid YAML: ") + e.what());
  }
  if (!doc.is_object()) r.fail("top level is not a map");
  const auto& root = doc.as_object();

  std::string context_name = context;
  if (context_name.empty()) {
    context_name = r.string_at(root, "current-context", "top level");
    if (context_name.empty()) r.fail("no current-context is set and no context was given");
  }
  const auto& ctx = r.named(root, "contexts", "context", context_name, "");
  const std::string ctx_where = "context \"" + context_name + "\"";
  std::string cluster_name =
      cluster_override.empty() ? r.string_at(ctx, "cluster", ctx_where) : cluster_override;
  if (cluster_name.empty()) r.fail(ctx_where + " names no cluster");
  std::string user_name =
      user_override.empty() ? r.string_at(ctx, "user", ctx_where) : user_override;

  ClientConfig config;
  config.source = "kubeconfig " + origin + " (context " + context_name + ")";
  if (auto ns = r.string_at(ctx, "namespace", ctx_where); !ns.empty()) config.ns = ns;

  const auto& cluster = r.named(root, "clusters", "cluster", cluster_name,
                                cluster_override.empty() ? ctx_where + ": " : "--cluster: ");
  const std::string cl_where = "cluster \"" + cluster_name + "\"";
  config.server = r.string_at(cluster, "server", cl_where);
  if (config.server.empty()) r.fail(cl_where + " has no server");
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0)
    r.fail(cl_where + ": server \"" + config.server + "\" must start with https:// or http://");
  config.ca_data = r.base64_at(cluster, "certificate-authority-data", cl_where);
  config.ca_file = r.path_at(cluster, "certificate-authority", cl_where);
  config.insecure_skip_tls_verify = r.bool_at(cluster, "insecure-skip-tls-verify", cl_where);
  config.tls_server_name = r.string_at(cluster, "tls-server-name", cl_where);
  if (config.insecure_skip_tls_verify && (!config.ca_data.empty() || !config.ca_file.empty()))
    r.fail(cl_where +
           ": certificate-authority and insecure-skip-tls-verify are mutually exclusive");

  if (!user_name.empty()) {
    const auto& user = r.named(root, "users", "user", user_name,
                               user_override.empty() ? ctx_where + ": " : "--user: ");
    const std::string u_where = "user \"" + user_name + "\"";
    config.bearer_token = r.string_at(user, "token", u_where);
    config.token_file = r.path_at(user, "tokenFile", u_where);
    config.client_cert_data = r.base64_at(user, "client-certificate-data", u_where);
    config.client_cert_file = r.path_at(user, "client-certificate", u_where);
    config.client_key_data = r.base64_at(user, "client-key-data", u_where);
    config.client_key_file = r.path_at(user, "client-key", u_where);
    const bool has_cert = !config.client_cert_data.empty() || !config.client_cert_file.empty();
    const bool has_key = !config.client_key_data.empty() || !config.client_key_file.empty();
    if (has_cert && !has_key)
      r.fail(u_where + " has a client certificate but no client-key(-data)");
    if (has_key && !has_cert)
      r.fail(u_where + " has a client key but no client-certificate(-data)");
    for (const char* unsupported : {"exec", "auth-provider"}) {
      if (const auto* v = user.if_contains(unsupported); v && !v->is_null() &&
                                                         config.bearer_token.empty() &&
                                                         config.token_file.empty() && !has_cert)
        r.fail(u_where + " authenticates with \"" + unsupported +
               "\", which nvcre does not support; use a token, tokenFile or client certificate");
    }
    if (const auto* v = user.if_contains("username");
        v && !v->is_null() && config.bearer_token.empty() && config.token_file.empty() && !has_cert)
      r.fail(u_where + " uses basic auth (username/password), which nvcre does not support");
  }
  return config;
}

ClientConfig load_kubeconfig(const fs::path& path, const std::string& context,
                             const std::string& cluster, const std::string& user) {
  auto text = read_file(path);
  std::error_code ec;
  if (!text || fs::is_directory(path, ec))
    throw ConfigError("kubeconfig " + path.string() + ": cannot read the file");
  return parse_kubeconfig(*text, path.string(), context, path.parent_path(), cluster, user);
}

std::optional<fs::path> default_kubeconfig_path(
    const std::function<std::optional<std::string>(const char*)>& getenv) {
  auto env = getenv ? getenv : std::function<std::optional<std::string>(const char*)>(std_getenv);
  if (auto k = env("KUBECONFIG"); k && !k->empty()) {
    std::string first = k->substr(0, k->find(':'));
    if (!first.empty()) return fs::path(first);
  }
  if (auto home = env("HOME"); home && !home->empty()) return fs::path(*home) / ".kube" / "config";
  return std::nullopt;
}

ClientConfig load_in_cluster(const InClusterOptions& options) {
  auto env = options.getenv ? options.getenv
                            : std::function<std::optional<std::string>(const char*)>(std_getenv);
  auto host = env("KUBERNETES_SERVICE_HOST");
  auto port = env("KUBERNETES_SERVICE_PORT");
  std::vector<std::string> missing;
  if (!host || host->empty()) missing.push_back("KUBERNETES_SERVICE_HOST");
  if (!port || port->empty()) missing.push_back("KUBERNETES_SERVICE_PORT");
  if (!missing.empty()) {
    std::string names = missing[0] + (missing.size() > 1 ? " and " + missing[1] : "");
    throw ConfigError("in-cluster config: environment variable" +
                      std::string(missing.size() > 1 ? "s " : " ") + names +
                      " not set (not running in a pod?)");
  }
  std::error_code ec;
  if (!fs::is_regular_file(options.token_file, ec))
    throw ConfigError("in-cluster config: service-account token file " +
                      options.token_file.string() + " does not exist");
  auto token = read_file(options.token_file);
  if (!token || trim(*token).empty())
    throw ConfigError("in-cluster config: service-account token file " +
                      options.token_file.string() + " is empty or unreadable");
  if (!fs::is_regular_file(options.ca_file, ec))
    throw ConfigError("in-cluster config: CA file " + options.ca_file.string() + " does not exist");

  ClientConfig config;
  config.source = "in-cluster";
  const bool ipv6 = host->find(':') != std::string::npos;
  config.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;
  config.ca_file = options.ca_file.string();
  config.token_file = options.token_file.string();
  config.bearer_token = trim(*token);
  if (auto ns = read_file(options.namespace_file); ns && !trim(*ns).empty()) config.ns = trim(*ns);
  return config;
}

std::string single_context_kubeconfig(const std::string& server_url, const std::string& token,
                                      const std::string& ca_file) {
  return "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: " +
         server_url + "\n" +
         (ca_file.empty() ? std::string() : "    certificate-authority: " + ca_file + "\n") +
         "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\n"
         "current-context: sim\nusers:\n- name: sim\n  user: " +
         (token.empty() ? std::string("{}") : "{token: " + token + "}") + "\n";
}

}  // namespace nvcre::k8s
