#include "manager/metrics_server.hpp"

#include "k8s/metrics.hpp"
#include "manager/probe_server.hpp"
#include "manager/self_signed.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>
#include <thread>

namespace nvcre::manager {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct MetricsServer::Impl {
  MetricsServerOptions options;
  std::shared_ptr<k8s::Metrics> metrics;
  std::function<ScrapeVerdict(const ScrapeRequest&)> authorize;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::unique_ptr<ssl::context> tls;
  std::thread thread;

  void load_certificate() {
    tls = std::make_unique<ssl::context>(ssl::context::tls_server);
    tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                     ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    boost::system::error_code ec;
    if (options.cert_path.empty()) {
      const auto pair = make_self_signed("nvcre-metrics", {"localhost"}, {"127.0.0.1"});
      tls->use_certificate_chain(asio::buffer(pair.certificate), ec);
      if (!ec) tls->use_private_key(asio::buffer(pair.private_key), ssl::context::pem, ec);
      if (ec) throw std::runtime_error("metrics server: self-signed certificate: " + ec.message());
      return;
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
  }

  http::response<http::string_body> answer(const http::request<http::string_body>& request) {
    http::response<http::string_body> response;
    response.version(request.version());
    response.keep_alive(false);
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    const std::string target(request.target());
    const std::string path = target.substr(0, target.find('?'));
    if (path != "/metrics") {
      response.result(http::status::not_found);
      response.body() = "404 page not found\n";
      return response;
    }
    if (options.secure) {
      const ScrapeVerdict verdict = authorize({std::string(request.method_string()), path,
                                               std::string(request[http::field::authorization])});
      if (verdict.status != 200) {
        spdlog::debug("{}", verdict.log);
        response.result(static_cast<http::status>(verdict.status));
        response.body() = verdict.body + "\n";
        return response;
      }
    }
    response.result(http::status::ok);
    response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    response.body() = metrics->render();
    return response;
  }

  template <typename Stream>
  void exchange(Stream& stream) {
    beast::error_code ec;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(stream, buffer, request, ec);
    if (ec) return;
    auto response = answer(request);
    response.prepare_payload();
    http::write(stream, response, ec);
  }

  void serve(tcp::socket socket) {
    beast::error_code ec;
    if (!tls) {
      exchange(socket);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      return;
    }
    // A peer that never finishes the handshake must not hold the only thread forever.
    struct timeval timeout {
      10, 0
    };
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    beast::ssl_stream<tcp::socket> stream(std::move(socket), *tls);
    stream.handshake(ssl::stream_base::server, ec);
    if (ec) return;
    exchange(stream);
    stream.shutdown(ec);
  }

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;
      serve(std::move(socket));
      accept();
    });
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
  if (impl_->options.secure) {
    if (!impl_->authorize) throw std::logic_error("metrics server: secure without an authorizer");
    impl_->load_certificate();
  }
  auto [host, port] = parse_bind_address(impl_->options.bind_address);
  try {
    tcp::endpoint endpoint(asio::ip::make_address(host), port);
    impl_->acceptor.open(endpoint.protocol());
    impl_->acceptor.set_option(asio::socket_base::reuse_address(true));
    impl_->acceptor.bind(endpoint);
    impl_->acceptor.listen();
  } catch (const std::exception& error) {
    throw std::runtime_error("metrics server: cannot listen on " + impl_->options.bind_address +
                             ": " + error.what());
  }
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

void MetricsServer::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  asio::post(impl_->io, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
  });
  impl_->io.stop();
  impl_->thread.join();
}

unsigned short MetricsServer::port() const { return impl_->acceptor.local_endpoint().port(); }

}  // namespace nvcre::manager
