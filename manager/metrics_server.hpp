#pragma once
// The Prometheus endpoint (--metrics-bind-address; "0" turns it off): GET /metrics answers the
// registry's text. Secure (--metrics-secure, the default) it serves HTTPS only, with the
// certificate in --metrics-cert-path (tls.crt / tls.key, names set by --metrics-cert-name /
// --metrics-cert-key) or a self-signed one made at start, and lets a scrape through only when
// `authorize` says so (TokenReview + SubjectAccessReview, manager/metrics_auth.hpp). HTTP/1.1
// only: HTTP/2 is never offered (--enable-http2 is accepted for compatibility). One thread, one
// connection at a time: scrapes are rare.
#include "manager/metrics_auth.hpp"

#include <functional>
#include <memory>
#include <string>

namespace nvcre::k8s {
class Metrics;
}

namespace nvcre::manager {

struct MetricsServerOptions {
  std::string bind_address;  // ":8443", "127.0.0.1:0"
  bool secure = true;
  std::string cert_path;  // "" -> self-signed
  std::string cert_name = "tls.crt";
  std::string key_name = "tls.key";
};

class MetricsServer {
 public:
  // `authorize` is required when secure (the scrape's verdict), ignored otherwise.
  MetricsServer(MetricsServerOptions options, std::shared_ptr<k8s::Metrics> metrics,
                std::function<ScrapeVerdict(const ScrapeRequest&)> authorize = {});
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Loads or makes the certificate and binds; throws std::runtime_error naming the address or the
  // file that is wrong.
  void start();
  void stop();
  unsigned short port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::manager
