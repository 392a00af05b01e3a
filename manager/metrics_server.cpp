#include "manager/metrics_server.hpp"

#include "k8s/metrics.hpp"
#include "manager/http_listener.hpp"
#include "manager/self_signed.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

namespace nvcre::manager {

namespace asio = boost::asio;
namespace ssl = asio::ssl;

namespace {

// The serving certificate: the files in --metrics-cert-path, or a self-signed pair made now.
std::shared_ptr<ssl::context> server_certificate(const MetricsServerOptions& options) {
  auto tls = std::make_shared<ssl::context>(ssl::context::tls_server);
  tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  if (options.cert_path.empty()) {
    const auto pair = make_self_signed("nvcre-metrics", {"localhost"}, {"127.0.0.1"});
    tls->use_certificate_chain(asio::buffer(pair.certificate), ec);
    if (!ec) tls->use_private_key(asio::buffer(pair.private_key), ssl::context::pem, ec);
    if (ec) throw std::runtime_error("metrics server: self-signed certificate: " + ec.message());
    return tls;
  }
  const auto dir = std::filesystem::path(options.cert_path);
  const auto cert = (dir / options.cert_name).string(), key = (dir / options.key_name).string();
  tls->use_certificate_chain_file(cert, ec);
  if (ec)
    throw std::runtime_error("--metrics-cert-path: cannot load the certificate " + cert + ": " +
                             ec.message() + " (a PEM file; its name is --metrics-cert-name)");
  tls->use_private_key_file(key, ssl::context::pem, ec);
  if (ec)
    throw std::runtime_error("--metrics-cert-path: cannot load the key " + key + ": " +
                             ec.message() + " (a PEM file; its name is --metrics-cert-key)");
  return tls;
}

}  // namespace

struct MetricsServer::Impl {
  MetricsServerOptions options;
  std::shared_ptr<k8s::Metrics> metrics;
  std::function<ScrapeVerdict(const ScrapeRequest&)> authorize;
  std::unique_ptr<HttpListener> listener;

  HttpAnswer answer(const HttpAsk& ask) const {
    if (ask.path != "/metrics") return {404, "text/plain; charset=utf-8", "404 page not found\n"};
    if (options.secure) {
      const ScrapeVerdict verdict = authorize({ask.method, ask.path, ask.authorization});
      if (verdict.status != 200) {
        spdlog::debug("{}", verdict.log);
        return {verdict.status, "text/plain; charset=utf-8", verdict.body + "\n"};
      }
    }
    return {200, "text/plain; version=0.0.4; charset=utf-8", metrics->render()};
  }
};

MetricsServer::MetricsServer(MetricsServerOptions options, std::shared_ptr<k8s::Metrics> metrics,
                             std::function<ScrapeVerdict(const ScrapeRequest&)> authorize)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->metrics = std::move(metrics);
  impl_->authorize = std::move(authorize);
}

MetricsServer::~MetricsServer() { stop(); }

void MetricsServer::start() {
  std::shared_ptr<ssl::context> tls;
  if (impl_->options.secure) {
    if (!impl_->authorize) throw std::logic_error("metrics server: secure without an authorizer");
    tls = server_certificate(impl_->options);
  }
  impl_->listener = std::make_unique<HttpListener>(
      "metrics server", impl_->options.bind_address,
      [impl = impl_.get()](const HttpAsk& ask) { return impl->answer(ask); }, std::move(tls));
  impl_->listener->start();
}

void MetricsServer::stop() {
  if (impl_ && impl_->listener) impl_->listener->stop();
}

unsigned short MetricsServer::port() const { return impl_->listener->port(); }

}  // namespace nvcre::manager
