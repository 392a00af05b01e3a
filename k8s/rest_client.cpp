#include "k8s/rest_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>

#include <openssl/ssl.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace nvcre::k8s {
namespace json = boost::json;
namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

struct ServerUrl {
  bool tls = true;
  std::string host;  // without brackets
  std::string port;
  std::string base_path;  // "" or "/prefix" (no trailing slash)
};

ServerUrl parse_server(const std::string& server) {
  ServerUrl out;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    out.tls = false;
    rest = server.substr(7);
  } else {
    throw std::invalid_argument("server URL \"" + server + "\" must start with https:// or http://");
  }
  auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) out.base_path = rest.substr(slash);
  while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
  if (authority.find('@') != std::string::npos) throw std::invalid_argument("server URL must not contain user info");
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) throw std::invalid_argument("server URL \"" + server + "\": unterminated [");
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') out.port = authority.substr(close + 2);
  } else {
    auto colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) out.port = authority.substr(colon + 1);
  }
  if (out.host.empty()) throw std::invalid_argument("server URL \"" + server + "\" has no host");
  if (out.port.empty()) out.port = out.tls ? "443" : "80";
  return out;
}

bool unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

std::string percent_encode(std::string_view s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    if (unreserved(c) || (keep_slash && c == '/') || (keep_slash && c == ':')) {
      out.push_back(c);
    } else {
      auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(hex[u >> 4]);
      out.push_back(hex[u & 15]);
    }
  }
  return out;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

bool is_ip_literal(const std::string& host) {
  beast::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

// One kept-alive HTTP/1.1 connection. It owns its io_context so that a blocking call on one
// connection never runs another connection's handlers (calls from several threads stay independent).
struct Connection {
  asio::io_context ioc{1};
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;
  bool reused = false;

  beast::tcp_stream& lowest() { return secure ? beast::get_lowest_layer(*secure) : *plain; }

  // Runs one asynchronous operation to completion on this thread. The stream's expiry (set by the
  // caller) bounds it: on expiry Beast cancels the operation with error::timeout.
  template <class Initiate>
  beast::error_code run(Initiate&& initiate) {
    beast::error_code result = asio::error::would_block;
    initiate([&result](beast::error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run();
    return result;
  }

  template <class Fn>
  beast::error_code io(Fn&& fn) {
    if (secure) return run([&](auto handler) { fn(*secure, std::move(handler)); });
    return run([&](auto handler) { fn(*plain, std::move(handler)); });
  }

  void close() {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    lowest().socket().close(ignored);
  }
};

using Clock = std::chrono::steady_clock;

}  // namespace

struct RestClient::Impl {
  Impl(ClientConfig c, RestClientOptions o) : config(std::move(c)), options(std::move(o)), limiter(config.rate_limit) {
    try {
      url = parse_server(config.server);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(std::string(e.what()));
    }
    if (url.tls) setup_tls();
    token = config.bearer_token;
  }

  void setup_tls() {
    tls.emplace(ssl::context::tls_client);
    tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    beast::error_code ec;
    auto fail = [&](const std::string& what) {
      // OpenSSL messages describe the PEM problem, never the key bytes.
      throw ConfigError(config.source.empty() ? what : config.source + ": " + what);
    };
    if (config.insecure_skip_tls_verify) {
      tls->set_verify_mode(ssl::verify_none);
    } else {
      tls->set_verify_mode(ssl::verify_peer);
      if (!config.ca_data.empty()) {
        tls->add_certificate_authority(asio::buffer(config.ca_data), ec);
        if (ec) fail("certificate-authority-data is not a valid PEM certificate: " + ec.message());
      } else if (!config.ca_file.empty()) {
        tls->load_verify_file(config.ca_file, ec);
        if (ec) fail("CA file " + config.ca_file + " is not a valid PEM certificate: " + ec.message());
      } else {
        tls->set_default_verify_paths(ec);
      }
    }
    if (!config.client_cert_data.empty()) {
      tls->use_certificate_chain(asio::buffer(config.client_cert_data), ec);
      if (ec) fail("client-certificate-data is not a valid PEM certificate: " + ec.message());
    } else if (!config.client_cert_file.empty()) {
      tls->use_certificate_chain_file(config.client_cert_file, ec);
      if (ec) fail("client certificate " + config.client_cert_file + " is not valid: " + ec.message());
    }
    if (!config.client_key_data.empty()) {
      tls->use_private_key(asio::buffer(config.client_key_data), ssl::context::pem, ec);
      if (ec) fail("client-key-data is not a valid PEM private key: " + ec.message());
    } else if (!config.client_key_file.empty()) {
      tls->use_private_key_file(config.client_key_file, ssl::context::pem, ec);
      if (ec) fail("client key " + config.client_key_file + " is not valid: " + ec.message());
    }
  }

  std::string where(const std::string& method, const std::string& target) const {
    return method + " " + (url.tls ? "https://" : "http://") + url.host + ":" + url.port + target;
  }

  std::string current_token() {
    std::lock_guard lock(mutex);
    if (!config.token_file.empty() && (!token_read || Clock::now() - *token_read > std::chrono::minutes(1))) {
      token_read = Clock::now();
      if (auto t = read_file(config.token_file); t && !trim(*t).empty()) token = trim(*t);
    }
    return token;
  }

  std::unique_ptr<Connection> take_connection() {
    {
      std::lock_guard lock(mutex);
      if (!idle.empty()) {
        auto c = std::move(idle.back());
        idle.pop_back();
        c->reused = true;
        return c;
      }
    }
    return nullptr;
  }

  void give_back(std::unique_ptr<Connection> c) {
    std::lock_guard lock(mutex);
    if (idle.size() < options.max_idle_connections) idle.push_back(std::move(c));
  }

  std::unique_ptr<Connection> connect(Clock::time_point deadline, const std::string& what) {
    auto c = std::make_unique<Connection>();
    tcp::resolver resolver(c->ioc);
    beast::error_code ec;
    // Synchronous resolution: no deadline, but API servers are addressed by IP or a local name.
    auto endpoints = resolver.resolve(url.host, url.port, ec);
    if (ec) throw TransportError(what + ": cannot resolve " + url.host + ": " + ec.message());
    if (url.tls) {
      c->secure.emplace(c->ioc, *tls);
    } else {
      c->plain.emplace(c->ioc);
    }
    c->lowest().expires_at(deadline);
    ec = c->run([&](auto handler) { c->lowest().async_connect(endpoints, std::move(handler)); });
    if (ec) throw TransportError(what + ": connect failed: " + ec.message());
    ++opened;
    c->lowest().socket().set_option(tcp::no_delay(true), ec);
    if (url.tls) {
      const std::string name = config.tls_server_name.empty() ? url.host : config.tls_server_name;
      if (!is_ip_literal(name) && !SSL_set_tlsext_host_name(c->secure->native_handle(), name.c_str()))
        throw TransportError(what + ": cannot set TLS server name");
      if (!config.insecure_skip_tls_verify) c->secure->set_verify_callback(ssl::host_name_verification(name));
      ec = c->run([&](auto handler) { c->secure->async_handshake(ssl::stream_base::client, std::move(handler)); });
      if (ec) throw TransportError(what + ": TLS handshake failed: " + ec.message());
    }
    return c;
  }

  http::request<http::string_body> build(const RestRequest& r, const std::string& target, bool watch) {
    http::request<http::string_body> req;
    req.method_string(r.method);
    req.target(target);
    req.version(11);
    const bool default_port = (url.tls && url.port == "443") || (!url.tls && url.port == "80");
    std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
    req.set(http::field::host, default_port ? host : host + ":" + url.port);
    req.set(http::field::user_agent, options.user_agent);
    req.set(http::field::accept, watch ? "application/json;stream=watch, application/json" : "application/json");
    if (auto t = current_token(); !t.empty()) req.set(http::field::authorization, "Bearer " + t);
    if (!r.content_type.empty()) req.set(http::field::content_type, r.content_type);
    req.keep_alive(true);
    req.body() = r.body;
    req.prepare_payload();
    return req;
  }

  std::string target_of(const RestRequest& r) const {
    std::string target = url.base_path + percent_encode(r.path, true);
    char sep = '?';
    for (const auto& [k, v] : r.query) {
      target += sep + percent_encode(k, false) + "=" + percent_encode(v, false);
      sep = '&';
    }
    return target;
  }

  void wait_for_slot() {
    Nanos wait{};
    {
      std::lock_guard lock(mutex);
      wait = limiter.reserve(Clock::now());
    }
    if (wait > Nanos::zero()) std::this_thread::sleep_for(wait);
  }

  // One exchange on a (pooled or new) connection. A reused connection the server closed while it
  // sat idle fails before any answer; that is retried once on a fresh connection.
  RestResponse exchange(const RestRequest& r) {
    const std::string target = target_of(r);
    const std::string what = where(r.method, r.path);
    auto req = build(r, target, false);
    for (int attempt = 0;; ++attempt) {
      const auto deadline = Clock::now() + options.timeout;
      auto conn = take_connection();
      if (!conn) conn = connect(deadline, what);
      conn->lowest().expires_at(deadline);
      beast::error_code ec = conn->io([&](auto& stream, auto handler) { http::async_write(stream, req, std::move(handler)); });
      http::response_parser<http::string_body> parser;
      parser.body_limit(std::uint64_t{1} << 30);
      if (!ec) ec = conn->io([&](auto& stream, auto handler) { http::async_read(stream, conn->buffer, parser, std::move(handler)); });
      if (ec) {
        const bool stale = conn->reused && attempt == 0 && !parser.got_some();
        conn->close();
        if (stale) continue;
        if (ec == beast::error::timeout)
          throw TransportError(what + ": timed out after " + std::to_string(options.timeout.count()) + "ms");
        throw TransportError(what + ": " + ec.message());
      }
      auto& res = parser.get();
      RestResponse out;
      out.status = static_cast<int>(res.result_int());
      out.content_type = std::string(res[http::field::content_type]);
      if (auto ra = res.find(http::field::retry_after); ra != res.end()) out.headers["retry-after"] = std::string(ra->value());
      out.body = std::move(res.body());
      if (res.keep_alive()) {
        conn->lowest().expires_never();
        give_back(std::move(conn));
      } else {
        conn->close();
      }
      return out;
    }
  }

  RestResponse perform(const RestRequest& r) {
    for (int attempt = 0;; ++attempt) {
      wait_for_slot();
      RestResponse res = exchange(r);
      if (res.status >= 200 && res.status < 300) return res;
      std::optional<std::string_view> retry_after;
      if (auto it = res.headers.find("retry-after"); it != res.headers.end()) retry_after = it->second;
      auto wait = retry_after_wait(res.status, retry_after, std::chrono::system_clock::now());
      if (wait && attempt < options.max_retries) {
        Nanos pause = std::min<Nanos>(*wait, options.max_retry_wait);
        std::lock_guard lock(mutex);
        limiter.pause_for_retry_after(Clock::now(), pause);
        continue;  // wait_for_slot sleeps out the pause
      }
      throw decode_api_error(res.status, res.body);
    }
  }

  void watch(const RestRequest& r, const std::optional<int>& timeout_seconds,
             const std::function<WatchControl(const WatchEvent&)>& on_event) {
    wait_for_slot();
    const std::string target = target_of(r);
    const std::string what = where(r.method, r.path);
    auto req = build(r, target, true);
    // A watch always gets its own connection (it is closed afterwards, never pooled).
    auto conn = connect(Clock::now() + options.timeout, what);
    conn->lowest().expires_after(options.timeout);
    beast::error_code ec = conn->io([&](auto& stream, auto handler) { http::async_write(stream, req, std::move(handler)); });
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);
    if (!ec) ec = conn->io([&](auto& stream, auto handler) { http::async_read_header(stream, conn->buffer, parser, std::move(handler)); });
    if (ec) {
      conn->close();
      throw TransportError(what + ": " + (ec == beast::error::timeout ? std::string("timed out") : ec.message()));
    }
    const int status = static_cast<int>(parser.get().result_int());
    // Idle limit between reads: the server ends the watch after timeoutSeconds; allow slack.
    const auto idle = timeout_seconds ? std::chrono::milliseconds(std::chrono::seconds(*timeout_seconds + 30))
                                      : std::chrono::milliseconds(std::chrono::minutes(10));
    std::string error_body;
    WatchDecoder decoder;
    std::array<char, 16384> buf;
    bool stop = false;
    auto deliver = [&](std::vector<WatchEvent> events) {
      for (const auto& e : events) {
        if (on_event(e) == WatchControl::Stop) {
          stop = true;
          return;
        }
      }
    };
    while (!parser.is_done() && !stop) {
      parser.get().body().data = buf.data();
      parser.get().body().size = buf.size();
      conn->lowest().expires_after(status >= 200 && status < 300 ? idle : options.timeout);
      // read_some: hand over whatever arrived (a watch event must not wait for a full buffer).
      ec = conn->io([&](auto& stream, auto handler) { http::async_read_some(stream, conn->buffer, parser, std::move(handler)); });
      if (ec == http::error::need_buffer) ec = {};
      std::size_t n = buf.size() - parser.get().body().size;
      if (ec) {
        conn->close();
        if (ec == http::error::end_of_stream || ec == http::error::partial_message) {
          // The server dropped the connection mid-body: a transport failure; the caller re-watches.
          throw TransportError(what + ": watch stream broken: " + ec.message());
        }
        throw TransportError(what + ": " + (ec == beast::error::timeout ? std::string("watch idle timeout") : ec.message()));
      }
      if (status < 200 || status >= 300) {
        error_body.append(buf.data(), n);
        if (error_body.size() > (1u << 20)) break;
        continue;
      }
      deliver(decoder.feed(std::string_view(buf.data(), n)));
    }
    conn->close();
    if (status < 200 || status >= 300) throw decode_api_error(status, error_body);
    if (!stop) deliver(decoder.finish());
  }

  ClientConfig config;
  RestClientOptions options;
  ServerUrl url;
  std::optional<ssl::context> tls;
  std::mutex mutex;
  RequestRateLimiter limiter;
  std::vector<std::unique_ptr<Connection>> idle;
  std::atomic<std::size_t> opened{0};
  std::string token;
  std::optional<Clock::time_point> token_read;
};

RestClient::RestClient(ClientConfig config, RestClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options))) {}

RestClient::~RestClient() = default;

const ClientConfig& RestClient::config() const { return impl_->config; }

std::size_t RestClient::connections_opened() const { return impl_->opened.load(); }

std::string RestClient::path_for(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                 const std::string& subresource) {
  if (ref.version.empty() || ref.resource.empty())
    throw std::invalid_argument("resource reference needs a version and a resource");
  std::string path = ref.group.empty() ? "/api/" + ref.version : "/apis/" + ref.group + "/" + ref.version;
  if (ref.namespace_scoped && !ns.empty()) path += "/namespaces/" + ns;
  path += "/" + ref.resource;
  if (!name.empty()) path += "/" + name;
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

RestResponse RestClient::request(const RestRequest& request) { return impl_->perform(request); }

namespace {

json::value parse_body(const RestResponse& res, const std::string& what) {
  if (res.body.empty()) return json::value{};
  boost::system::error_code ec;
  auto v = json::parse(res.body, ec);
  if (ec) throw TransportError(what + ": response is not JSON: " + ec.message());
  return v;
}

void require_name(const ResourceRef& ref, const std::string& ns, const std::string& name, const char* verb) {
  if (name.empty()) throw std::invalid_argument(std::string(verb) + " " + ref.resource + ": name is empty");
  if (ref.namespace_scoped && ns.empty())
    throw std::invalid_argument(std::string(verb) + " " + ref.resource + "/" + name + ": namespace is empty");
}

std::string meta_field(const json::value& object, const char* key) {
  if (const auto* o = object.if_object())
    if (const auto* m = o->if_contains("metadata"); m && m->is_object())
      if (const auto* v = m->as_object().if_contains(key); v && v->is_string()) return std::string(v->as_string());
  return {};
}

void add_write_options(RestRequest& r, const WriteOptions& o) {
  if (o.dry_run) r.query.emplace_back("dryRun", "All");
  if (!o.field_manager.empty()) r.query.emplace_back("fieldManager", o.field_manager);
}

}  // namespace

json::value RestClient::get(const ResourceRef& ref, const std::string& ns, const std::string& name) {
  require_name(ref, ns, name, "get");
  RestRequest r{"GET", path_for(ref, ns, name), {}, {}, {}};
  return parse_body(request(r), r.method + " " + r.path);
}

json::value RestClient::get_status(const ResourceRef& ref, const std::string& ns, const std::string& name) {
  require_name(ref, ns, name, "get");
  RestRequest r{"GET", path_for(ref, ns, name, "status"), {}, {}, {}};
  return parse_body(request(r), r.method + " " + r.path);
}

json::value RestClient::list(const ResourceRef& ref, const std::string& ns, const ListOptions& o) {
  RestRequest r{"GET", path_for(ref, ns), {}, {}, {}};
  if (!o.label_selector.empty()) r.query.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) r.query.emplace_back("fieldSelector", o.field_selector);
  if (o.limit > 0) r.query.emplace_back("limit", std::to_string(o.limit));
  if (!o.continue_token.empty()) r.query.emplace_back("continue", o.continue_token);
  if (!o.resource_version.empty()) r.query.emplace_back("resourceVersion", o.resource_version);
  if (!o.resource_version_match.empty()) r.query.emplace_back("resourceVersionMatch", o.resource_version_match);
  return parse_body(request(r), r.method + " " + r.path);
}

json::value RestClient::create(const ResourceRef& ref, const std::string& ns, const json::value& object,
                               const WriteOptions& o) {
  if (ref.namespace_scoped && ns.empty()) throw std::invalid_argument("create " + ref.resource + ": namespace is empty");
  RestRequest r{"POST", path_for(ref, ns), {}, "application/json", json::serialize(object)};
  add_write_options(r, o);
  return parse_body(request(r), r.method + " " + r.path);
}

namespace {
json::value put(RestClient& c, const std::string& path, const json::value& object, const WriteOptions& o) {
  RestRequest r{"PUT", path, {}, "application/json", json::serialize(object)};
  add_write_options(r, o);
  return parse_body(c.request(r), r.method + " " + r.path);
}
json::value patch(RestClient& c, const std::string& path, const char* type, const json::value& body,
                  const WriteOptions& o) {
  RestRequest r{"PATCH", path, {}, type, json::serialize(body)};
  add_write_options(r, o);
  return parse_body(c.request(r), r.method + " " + r.path);
}
}  // namespace

json::value RestClient::update(const ResourceRef& ref, const std::string& ns, const json::value& object,
                               const WriteOptions& o) {
  const auto name = meta_field(object, "name");
  require_name(ref, ns, name, "update");
  return put(*this, path_for(ref, ns, name), object, o);
}

json::value RestClient::update_status(const ResourceRef& ref, const std::string& ns, const json::value& object,
                                      const WriteOptions& o) {
  const auto name = meta_field(object, "name");
  require_name(ref, ns, name, "update status of");
  return put(*this, path_for(ref, ns, name, "status"), object, o);
}

json::value RestClient::merge_patch(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                    const json::value& body, const WriteOptions& o) {
  require_name(ref, ns, name, "patch");
  return patch(*this, path_for(ref, ns, name), "application/merge-patch+json", body, o);
}

json::value RestClient::json_patch(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                   const json::value& ops, const WriteOptions& o) {
  require_name(ref, ns, name, "patch");
  return patch(*this, path_for(ref, ns, name), "application/json-patch+json", ops, o);
}

json::value RestClient::merge_patch_status(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                           const json::value& body, const WriteOptions& o) {
  require_name(ref, ns, name, "patch status of");
  return patch(*this, path_for(ref, ns, name, "status"), "application/merge-patch+json", body, o);
}

json::value RestClient::json_patch_status(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                          const json::value& ops, const WriteOptions& o) {
  require_name(ref, ns, name, "patch status of");
  return patch(*this, path_for(ref, ns, name, "status"), "application/json-patch+json", ops, o);
}

json::value RestClient::remove(const ResourceRef& ref, const std::string& ns, const std::string& name,
                               const DeleteOptions& o) {
  require_name(ref, ns, name, "delete");
  json::object body{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (o.precondition_uid || o.precondition_resource_version) {
    json::object pre;
    if (o.precondition_uid) pre["uid"] = *o.precondition_uid;
    if (o.precondition_resource_version) pre["resourceVersion"] = *o.precondition_resource_version;
    body["preconditions"] = std::move(pre);
  }
  switch (o.propagation) {
    case PropagationPolicy::Default: break;
    case PropagationPolicy::Background: body["propagationPolicy"] = "Background"; break;
    case PropagationPolicy::Foreground: body["propagationPolicy"] = "Foreground"; break;
    case PropagationPolicy::Orphan: body["propagationPolicy"] = "Orphan"; break;
  }
  if (o.grace_period_seconds) body["gracePeriodSeconds"] = *o.grace_period_seconds;
  if (o.dry_run) body["dryRun"] = json::array{"All"};
  RestRequest r{"DELETE", path_for(ref, ns, name), {}, "application/json", json::serialize(body)};
  if (o.dry_run) r.query.emplace_back("dryRun", "All");
  return parse_body(request(r), r.method + " " + r.path);
}

void RestClient::watch(const ResourceRef& ref, const std::string& ns, const WatchOptions& o,
                       const std::function<WatchControl(const WatchEvent&)>& on_event) {
  RestRequest r{"GET", path_for(ref, ns), {{"watch", "1"}}, {}, {}};
  if (!o.resource_version.empty()) r.query.emplace_back("resourceVersion", o.resource_version);
  if (o.allow_watch_bookmarks) r.query.emplace_back("allowWatchBookmarks", "true");
  if (!o.label_selector.empty()) r.query.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) r.query.emplace_back("fieldSelector", o.field_selector);
  if (o.timeout_seconds) r.query.emplace_back("timeoutSeconds", std::to_string(*o.timeout_seconds));
  impl_->watch(r, o.timeout_seconds, on_event);
}

}  // namespace nvcre::k8s
