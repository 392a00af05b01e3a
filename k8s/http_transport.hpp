#pragma once
// The HTTP/1.1 transport under RestClient: the server URL, TCP or TLS connections (Boost.Beast +
// OpenSSL, both hidden in http_transport.cpp) kept alive in a small pool, one request/response
// exchange bounded by a deadline, and streamed answers for watches. It knows nothing of Kubernetes:
// rate limits, 429 retries, Status decoding and token rotation live in RestClient.
//
// Threading: exchange() and stream() may run on several threads at once; each takes its own
// connection (pooled or new).
#include "k8s/kubeconfig.hpp"
#include "k8s/rest_client.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

namespace nvcre::k8s {

// What a TransportError says after the call was ended by a stop request (RestClient::shutdown()).
inline constexpr std::string_view kCancelledByShutdown = "cancelled: the client is shutting down";

// A server URL split into what a connection needs.
struct ServerUrl {
  bool tls = true;
  std::string host;       // without brackets
  std::string port;       // defaults to 443 / 80
  std::string base_path;  // "" or "/prefix" (no trailing slash)
};

// "https://host[:port][/prefix]" or "http://...". Throws std::invalid_argument.
ServerUrl parse_server_url(const std::string& server);

struct TransportOptions {
  std::chrono::milliseconds timeout{30000};  // a stream's connect, request and non-2xx answer
  std::size_t max_idle_connections = 25;     // RestClientOptions::max_idle_connections
  std::string user_agent = "nvcre";
};

class HttpTransport {
 public:
  // Throws ConfigError for a bad server URL or unusable TLS material (naming the field or file,
  // never the bytes).
  HttpTransport(const ClientConfig& config, TransportOptions options);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // "GET https://host:port/path": the prefix of every TransportError (never headers or query).
  std::string where(const std::string& method, const std::string& path) const;

  // One request on a pooled or new connection, bounded by `timeout` (connect included);
  // `bearer_token` empty: no Authorization header. Any status is returned; only "no answer" throws
  // TransportError. A stop request closes the connection from any thread, the connect included:
  // exchange() then throws TransportError at once.
  RestResponse exchange(const RestRequest& request, const std::string& bearer_token,
                        std::chrono::milliseconds timeout, const std::stop_token& stop = {});

  // A streamed answer on a connection of its own (closed afterwards). `on_body` gets the status and
  // each piece of body as it arrives, and returns false to end the stream early. Reads of a 2xx
  // body may wait `idle_timeout`; anything else is bounded by TransportOptions::timeout. Returns
  // the status; throws TransportError when the connection breaks before the body is complete. A
  // stop request closes the connection from any thread, the connect included: stream() then returns
  // 0 without throwing.
  int stream(const RestRequest& request, const std::string& bearer_token,
             std::chrono::milliseconds idle_timeout,
             const std::function<bool(int status, std::string_view body)>& on_body,
             const std::stop_token& stop = {});

  // TCP connects so far: with keep-alive, sequential exchanges share one.
  std::size_t connections_opened() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::k8s
