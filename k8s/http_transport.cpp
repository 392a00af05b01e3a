#include "k8s/http_transport.hpp"

#include "k8s/tls_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <array>
#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

namespace nvcre::k8s {
namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

ServerUrl parse_server_url(const std::string& server) {
  ServerUrl out;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    out.tls = false;
    rest = server.substr(7);
  } else {
    throw std::invalid_argument("server URL \"" + server +
                                "\" must start with https:// or http://");
  }
  auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) out.base_path = rest.substr(slash);
  while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
  if (authority.find('@') != std::string::npos)
    throw std::invalid_argument("server URL must not contain user info");
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos)
      throw std::invalid_argument("server URL \"" + server + "\": unterminated [");
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      out.port = authority.substr(close + 2);
  } else {
    auto colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) out.port = authority.substr(colon + 1);
  }
  if (out.host.empty()) throw std::invalid_argument("server URL \"" + server + "\" has no host");
  if (out.port.empty()) out.port = out.tls ? "443" : "80";
  return out;
}

namespace {

bool unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
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

// One kept-alive HTTP/1.1 connection. It owns its io_context so that a blocking call on one
// connection never runs another connection's handlers (calls from several threads stay
// independent).
struct Connection {
  // Beast reads max(512, free capacity) bytes at a time: from an empty buffer an answer of a few
  // KB takes a dozen reads, each an operation with its own timer.
  static constexpr std::size_t kReadCapacity = 64 * 1024;

  Connection() { buffer.reserve(kReadCapacity); }

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

  // Until released, a stop request closes this connection from any thread: the close is posted to
  // its own io_context (thread-safe), so a connect, read or write in progress, or the next one,
  // completes at once with an error.
  struct PostClose {
    Connection* connection;
    void operator()() const {
      asio::post(connection->ioc, [c = connection] { c->close(); });
    }
  };
  void close_on(const std::stop_token& stop) { close_on_stop.emplace(stop, PostClose{this}); }
  void release_stop() { close_on_stop.reset(); }
  std::optional<std::stop_callback<PostClose>>
      close_on_stop;  // last: unregistered before the rest goes
};

using Clock = std::chrono::steady_clock;

TransportError cancelled(const std::string& what) {
  return TransportError(what + ": " + std::string(kCancelledByShutdown));
}

}  // namespace

struct HttpTransport::Impl {
  Impl(const ClientConfig& config, TransportOptions o)
      : options(std::move(o)),
        impersonate_user(config.impersonate_user),
        impersonate_groups(config.impersonate_groups),
        impersonate_uid(config.impersonate_uid) {
    try {
      url = parse_server_url(config.server);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(std::string(e.what()));
    }
    if (url.tls) tls.emplace(config, url.host);
  }

  std::string where(const std::string& method, const std::string& path) const {
    return method + " " + (url.tls ? "https://" : "http://") + url.host + ":" + url.port + path;
  }

  std::unique_ptr<Connection> take_connection() {
    std::lock_guard lock(mutex);
    if (idle.empty()) return nullptr;
    auto c = std::move(idle.back());
    idle.pop_back();
    c->reused = true;
    return c;
  }

  void give_back(std::unique_ptr<Connection> c) {
    std::lock_guard lock(mutex);
    if (idle.size() < options.max_idle_connections) idle.push_back(std::move(c));
  }

  // A new connection, closed by `stop` until the caller releases it.
  std::unique_ptr<Connection> connect(Clock::time_point deadline, const std::string& what,
                                      const std::stop_token& stop) {
    auto c = std::make_unique<Connection>();
    tcp::resolver resolver(c->ioc);
    beast::error_code ec;
    // Synchronous resolution: no deadline, but API servers are addressed by IP or a local name.
    auto endpoints = resolver.resolve(url.host, url.port, ec);
    if (ec) throw TransportError(what + ": cannot resolve " + url.host + ": " + ec.message());
    if (url.tls) {
      c->secure.emplace(c->ioc, tls->context());
    } else {
      c->plain.emplace(c->ioc);
    }
    c->close_on(stop);
    c->lowest().expires_at(deadline);
    ec = c->run([&](auto handler) { c->lowest().async_connect(endpoints, std::move(handler)); });
    if (ec && stop.stop_requested()) throw cancelled(what);
    if (ec) throw TransportError(what + ": connect failed: " + ec.message());
    ++opened;
    c->lowest().socket().set_option(tcp::no_delay(true), ec);
    if (url.tls) {
      if (!tls->prepare(c->secure->native_handle()))
        throw TransportError(what + ": cannot set the TLS server name");
      ec = c->run([&](auto handler) {
        c->secure->async_handshake(ssl::stream_base::client, std::move(handler));
      });
      if (ec && stop.stop_requested()) throw cancelled(what);
      if (ec)
        throw TransportError(what + ": " +
                             tls->describe_handshake_failure(c->secure->native_handle(), ec));
    }
    return c;
  }

  http::request<http::string_body> build(const RestRequest& r, const std::string& token,
                                         bool watch) const {
    http::request<http::string_body> req;
    req.method_string(r.method);
    req.target(target_of(r));
    req.version(11);
    const bool default_port = (url.tls && url.port == "443") || (!url.tls && url.port == "80");
    std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
    req.set(http::field::host, default_port ? host : host + ":" + url.port);
    req.set(http::field::user_agent, options.user_agent);
    req.set(http::field::accept,
            watch ? "application/json;stream=watch, application/json" : "application/json");
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    if (!impersonate_user.empty()) {
      req.set("Impersonate-User", impersonate_user);
      for (const auto& group : impersonate_groups) req.insert("Impersonate-Group", group);
      if (!impersonate_uid.empty()) req.set("Impersonate-Uid", impersonate_uid);
    }
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

  // The message of a failed read or write: TLS alerts get a hint (a rejected client certificate
  // only shows up here with TLS 1.3, after the handshake).
  std::string io_failure(const beast::error_code& ec, std::chrono::milliseconds timeout) const {
    if (ec == beast::error::timeout)
      return "timed out after " + std::to_string(timeout.count()) + "ms";
    return tls ? TlsClient::describe_io_failure(ec) : ec.message();
  }

  // A reused connection the server closed while it sat idle fails before any answer; that is
  // retried once on a fresh connection. A timeout is not that: retried, it would double the bound.
  RestResponse exchange(const RestRequest& r, const std::string& token,
                        std::chrono::milliseconds timeout, const std::stop_token& stop) {
    const std::string what = where(r.method, r.path);
    auto req = build(r, token, false);
    for (int attempt = 0;; ++attempt) {
      if (stop.stop_requested()) throw cancelled(what);
      const auto deadline = Clock::now() + timeout;
      auto conn = take_connection();
      if (conn) {
        conn->close_on(stop);
      } else {
        conn = connect(deadline, what, stop);
      }
      conn->lowest().expires_at(deadline);
      beast::error_code ec = conn->io(
          [&](auto& stream, auto handler) { http::async_write(stream, req, std::move(handler)); });
      http::response_parser<http::string_body> parser;
      parser.body_limit(std::uint64_t{1} << 30);
      if (!ec)
        ec = conn->io([&](auto& stream, auto handler) {
          http::async_read(stream, conn->buffer, parser, std::move(handler));
        });
      conn->release_stop();
      const bool stopped = stop.stop_requested();  // a close may be pending on it: never pooled
      if (ec) {
        if (stopped) throw cancelled(what);
        const bool stale =
            conn->reused && attempt == 0 && !parser.got_some() && ec != beast::error::timeout;
        conn->close();
        if (stale) continue;
        throw TransportError(what + ": " + io_failure(ec, timeout));
      }
      auto& res = parser.get();
      RestResponse out;
      out.status = static_cast<int>(res.result_int());
      out.content_type = std::string(res[http::field::content_type]);
      if (auto ra = res.find(http::field::retry_after); ra != res.end())
        out.headers["retry-after"] = std::string(ra->value());
      out.body = std::move(res.body());
      if (res.keep_alive() && !stopped) {
        conn->lowest().expires_never();
        give_back(std::move(conn));
      } else {
        conn->close();
      }
      return out;
    }
  }

  int stream(const RestRequest& r, const std::string& token, std::chrono::milliseconds idle_timeout,
             const std::function<bool(int, std::string_view)>& on_body,
             const std::stop_token& stop) {
    const std::string what = where(r.method, r.path);
    auto req = build(r, token, true);
    if (stop.stop_requested()) return 0;
    std::unique_ptr<Connection> conn;
    try {
      conn = connect(Clock::now() + options.timeout, what, stop);
    } catch (const TransportError&) {
      if (stop.stop_requested()) return 0;
      throw;
    }
    // The connection stays closed by a stop: the pending operation then completes at once with an
    // error, which the checks below turn into a return.
    conn->lowest().expires_after(options.timeout);
    beast::error_code ec = conn->io(
        [&](auto& stream, auto handler) { http::async_write(stream, req, std::move(handler)); });
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);
    if (!ec)
      ec = conn->io([&](auto& stream, auto handler) {
        http::async_read_header(stream, conn->buffer, parser, std::move(handler));
      });
    if (ec) {
      conn->close();
      if (stop.stop_requested()) return 0;
      throw TransportError(what + ": " +
                           (ec == beast::error::timeout ? std::string("timed out")
                                                        : io_failure(ec, options.timeout)));
    }
    const int status = static_cast<int>(parser.get().result_int());
    const bool success = status >= 200 && status < 300;
    std::array<char, 16384> buf;
    bool more = true;
    while (!parser.is_done() && more) {
      parser.get().body().data = buf.data();
      parser.get().body().size = buf.size();
      conn->lowest().expires_after(success ? idle_timeout : options.timeout);
      // read_some: hand over whatever arrived (a watch event must not wait for a full buffer).
      ec = conn->io([&](auto& stream, auto handler) {
        http::async_read_some(stream, conn->buffer, parser, std::move(handler));
      });
      if (ec == http::error::need_buffer) ec = {};
      std::size_t n = buf.size() - parser.get().body().size;
      if (ec) {
        conn->close();
        if (stop.stop_requested()) return 0;
        if (ec == http::error::end_of_stream || ec == http::error::partial_message) {
          // The server dropped the connection mid-body: a transport failure; the caller re-watches.
          throw TransportError(what + ": watch stream broken: " + ec.message());
        }
        throw TransportError(what + ": " +
                             (ec == beast::error::timeout ? std::string("watch idle timeout")
                                                          : io_failure(ec, options.timeout)));
      }
      more = on_body(status, std::string_view(buf.data(), n));
    }
    conn->close();
    return status;
  }

  TransportOptions options;
  std::string impersonate_user;
  std::vector<std::string> impersonate_groups;
  std::string impersonate_uid;
  ServerUrl url;
  std::optional<TlsClient> tls;
  std::mutex mutex;
  std::vector<std::unique_ptr<Connection>> idle;
  std::atomic<std::size_t> opened{0};
};

HttpTransport::HttpTransport(const ClientConfig& config, TransportOptions options)
    : impl_(std::make_unique<Impl>(config, std::move(options))) {}

HttpTransport::~HttpTransport() = default;

std::string HttpTransport::where(const std::string& method, const std::string& path) const {
  return impl_->where(method, path);
}

RestResponse HttpTransport::exchange(const RestRequest& request, const std::string& bearer_token,
                                     std::chrono::milliseconds timeout,
                                     const std::stop_token& stop) {
  return impl_->exchange(request, bearer_token, timeout, stop);
}

int HttpTransport::stream(const RestRequest& request, const std::string& bearer_token,
                          std::chrono::milliseconds idle_timeout,
                          const std::function<bool(int, std::string_view)>& on_body,
                          const std::stop_token& stop) {
  return impl_->stream(request, bearer_token, idle_timeout, on_body, stop);
}

std::size_t HttpTransport::connections_opened() const { return impl_->opened.load(); }

}  // namespace nvcre::k8s
