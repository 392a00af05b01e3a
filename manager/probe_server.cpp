#include "manager/probe_server.hpp"

#include "k8s/metrics.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>
#include <thread>

namespace nvcre::manager {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::pair<std::string, unsigned short> parse_bind_address(const std::string& address) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("bind address \"" + address + "\" must be [host]:port");
  std::string host = address.substr(0, colon);
  std::string port = address.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535) {
    throw std::invalid_argument("bind address \"" + address +
                                "\": port must be a number from 0 to 65535");
  }
  return {host.empty() ? "0.0.0.0" : host, static_cast<unsigned short>(std::stoul(port))};
}

struct ProbeServer::Impl {
  std::string bind_address;
  std::function<bool()> ready;
  std::shared_ptr<k8s::Metrics> metrics;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread thread;

  void serve(tcp::socket socket) {
    beast::error_code ec;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(socket, buffer, request, ec);
    if (ec) return;
    http::response<http::string_body> response;
    response.version(request.version());
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    std::string target(request.target());
    if (target == "/healthz") {
      response.result(http::status::ok);
      response.body() = "ok";
    } else if (target == "/readyz") {
      bool is_ready = ready && ready();
      response.result(is_ready ? http::status::ok : http::status::service_unavailable);
      response.body() = is_ready ? "ok" : "caches not synced";
    } else if (target == "/metrics" && metrics) {
      response.result(http::status::ok);
      response.set(http::field::content_type, "text/plain; version=0.0.4");
      response.body() = metrics->render();
    } else {
      response.result(http::status::not_found);
      response.body() = "not found";
    }
    response.keep_alive(false);
    response.prepare_payload();
    http::write(socket, response, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;            // acceptor closed
      serve(std::move(socket));  // probes are tiny and rare: serve inline
      accept();
    });
  }
};

ProbeServer::ProbeServer(const std::string& bind_address, std::function<bool()> ready,
                         std::shared_ptr<k8s::Metrics> metrics)
    : impl_(std::make_unique<Impl>()) {
  impl_->bind_address = bind_address;
  impl_->ready = std::move(ready);
  impl_->metrics = std::move(metrics);
}

ProbeServer::~ProbeServer() { stop(); }

void ProbeServer::start() {
  auto [host, port] = parse_bind_address(impl_->bind_address);
  try {
    tcp::endpoint endpoint(asio::ip::make_address(host), port);
    impl_->acceptor.open(endpoint.protocol());
    impl_->acceptor.set_option(asio::socket_base::reuse_address(true));
    impl_->acceptor.bind(endpoint);
    impl_->acceptor.listen();
  } catch (const std::exception& error) {
    throw std::runtime_error("health probe server: cannot listen on " + impl_->bind_address + ": " +
                             error.what());
  }
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

void ProbeServer::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  asio::post(impl_->io, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
  });
  impl_->io.stop();
  impl_->thread.join();
}

unsigned short ProbeServer::port() const { return impl_->acceptor.local_endpoint().port(); }

}  // namespace nvcre::manager
