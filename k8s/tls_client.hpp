#pragma once
// The client side of TLS for HttpTransport: the OpenSSL context built from a ClientConfig (CA,
// client certificate and key as files or PEM data, insecure-skip-tls-verify), the per-connection
// server name (SNI + certificate name check), and failure messages that say what went wrong
// without any secret. Only .cpp files include this; OpenSSL/Asio types are forward-declared.
#include "k8s/kubeconfig.hpp"

#include <memory>
#include <string>

struct ssl_st;  // OpenSSL's SSL
namespace boost::asio::ssl {
class context;
}
namespace boost::system {
class error_code;
}

namespace nvcre::k8s {

class TlsClient {
 public:
  // `url_host` is the server URL's host; config.tls_server_name overrides it. Throws ConfigError
  // naming the field or file that holds unusable PEM material, never its bytes.
  TlsClient(const ClientConfig& config, const std::string& url_host);
  ~TlsClient();
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  boost::asio::ssl::context& context();

  // Before the handshake: SNI (for DNS names) and, unless verification is off, the DNS name or IP
  // address the server certificate must carry. False when OpenSSL refuses the name.
  bool prepare(ssl_st* ssl) const;

  // "TLS handshake with <name> failed: ...": names a certificate verification failure and its
  // reason (unknown issuer, name mismatch, expiry) instead of OpenSSL's generic text.
  std::string describe_handshake_failure(ssl_st* ssl, const boost::system::error_code& ec) const;

  // A read/write failure; TLS alerts from the server about our client certificate get a hint.
  static std::string describe_io_failure(const boost::system::error_code& ec);

 private:
  std::unique_ptr<boost::asio::ssl::context> context_;
  std::string peer_name_;
  bool peer_is_ip_ = false;
  bool verify_ = true;
};

}  // namespace nvcre::k8s
