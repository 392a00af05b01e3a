#include "k8s/tls_client.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

namespace nvcre::k8s {
namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using boost::system::error_code;

namespace {

bool is_ip_literal(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

// What a verification error most likely means for a kubeconfig user.
std::string verification_hint(long result, const std::string& peer) {
  switch (result) {
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return " (the server certificate is not valid for " + peer +
             "; tls-server-name can name another)";
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
      return " (the server certificate is not signed by the configured certificate-authority)";
    default:
      return {};
  }
}

}  // namespace

TlsClient::TlsClient(const ClientConfig& config, const std::string& url_host)
    : context_(std::make_unique<ssl::context>(ssl::context::tls_client)),
      peer_name_(config.tls_server_name.empty() ? url_host : config.tls_server_name),
      peer_is_ip_(is_ip_literal(peer_name_)),
      verify_(!config.insecure_skip_tls_verify) {
  auto& tls = *context_;
  tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                  ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  error_code ec;
  auto fail = [&](const std::string& what) {
    // OpenSSL messages describe the PEM problem, never the key bytes.
    throw ConfigError(config.source.empty() ? what : config.source + ": " + what);
  };
  if (!verify_) {
    tls.set_verify_mode(ssl::verify_none);
  } else {
    tls.set_verify_mode(ssl::verify_peer);
    if (!config.ca_data.empty()) {
      tls.add_certificate_authority(asio::buffer(config.ca_data), ec);
      if (ec) fail("certificate-authority-data is not a valid PEM certificate: " + ec.message());
    } else if (!config.ca_file.empty()) {
      tls.load_verify_file(config.ca_file, ec);
      if (ec)
        fail("CA file " + config.ca_file + " is not a valid PEM certificate: " + ec.message());
    } else {
      tls.set_default_verify_paths(ec);
    }
  }
  if (!config.client_cert_data.empty()) {
    tls.use_certificate_chain(asio::buffer(config.client_cert_data), ec);
    if (ec) fail("client-certificate-data is not a valid PEM certificate: " + ec.message());
  } else if (!config.client_cert_file.empty()) {
    tls.use_certificate_chain_file(config.client_cert_file, ec);
    if (ec)
      fail("client certificate " + config.client_cert_file + " is not valid: " + ec.message());
  }
  if (!config.client_key_data.empty()) {
    tls.use_private_key(asio::buffer(config.client_key_data), ssl::context::pem, ec);
    if (ec)
      fail(
          "client-key-data was refused (it must be the PEM private key of the client "
          "certificate): " +
          ec.message());
  } else if (!config.client_key_file.empty()) {
    tls.use_private_key_file(config.client_key_file, ssl::context::pem, ec);
    if (ec)
      fail("client key " + config.client_key_file +
           " was refused (it must be the PEM private key of the client certificate): " +
           ec.message());
  }
}

TlsClient::~TlsClient() = default;

ssl::context& TlsClient::context() { return *context_; }

bool TlsClient::prepare(ssl_st* ssl) const {
  // SNI carries DNS names only (RFC 6066).
  if (!peer_is_ip_ && !SSL_set_tlsext_host_name(ssl, peer_name_.c_str())) return false;
  if (!verify_) return true;
  // OpenSSL checks the name during chain verification, so a mismatch surfaces as a verify result
  // (X509_V_ERR_HOSTNAME_MISMATCH / IP_ADDRESS_MISMATCH) that describe_handshake_failure can name.
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  if (peer_is_ip_) return X509_VERIFY_PARAM_set1_ip_asc(param, peer_name_.c_str()) == 1;
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  return X509_VERIFY_PARAM_set1_host(param, peer_name_.c_str(), peer_name_.size()) == 1;
}

std::string TlsClient::describe_handshake_failure(ssl_st* ssl, const error_code& ec) const {
  const std::string prefix = "TLS handshake with " + peer_name_ + " failed: ";
  if (verify_ && ec.category() == asio::error::get_ssl_category()) {
    const long result = SSL_get_verify_result(ssl);
    if (result != X509_V_OK)
      return prefix + "certificate verification failed: " + X509_verify_cert_error_string(result) +
             verification_hint(result, peer_name_);
  }
  return prefix + describe_io_failure(ec);
}

std::string TlsClient::describe_io_failure(const error_code& ec) {
  if (ec.category() != asio::error::get_ssl_category()) return ec.message();
  switch (ERR_GET_REASON(static_cast<unsigned long>(ec.value()))) {
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
      return ec.message() +
             " (the server requires a client certificate: set client-certificate and client-key)";
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
      return ec.message() + " (the server rejected the client certificate)";
    default:
      return ec.message();
  }
}

}  // namespace nvcre::k8s
