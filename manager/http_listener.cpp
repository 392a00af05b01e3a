#include "manager/http_listener.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <stdexcept>
#include <thread>

namespace nvcre::manager {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
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

struct HttpListener::Impl {
  std::string name;
  std::string bind_address;
  Handler handler;
  std::shared_ptr<ssl::context> tls;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread thread;

  template <typename Stream>
  void exchange(Stream& stream) {
    beast::error_code ec;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(stream, buffer, request, ec);
    if (ec) return;
    const std::string target(request.target());
    const HttpAnswer answer =
        handler({std::string(request.method_string()), target.substr(0, target.find('?')),
                 std::string(request[http::field::authorization])});
    http::response<http::string_body> response;
    response.version(request.version());
    response.keep_alive(false);
    response.result(static_cast<http::status>(answer.status));
    response.set(http::field::content_type, answer.content_type);
    response.body() = answer.body;
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
      if (ec) return;  // acceptor closed
      serve(std::move(socket));
      accept();
    });
  }
};

HttpListener::HttpListener(std::string name, std::string bind_address, Handler handler,
                           std::shared_ptr<ssl::context> tls)
    : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
  impl_->bind_address = std::move(bind_address);
  impl_->handler = std::move(handler);
  impl_->tls = std::move(tls);
}

HttpListener::~HttpListener() { stop(); }

void HttpListener::start() {
  auto [host, port] = parse_bind_address(impl_->bind_address);
  try {
    tcp::endpoint endpoint(asio::ip::make_address(host), port);
    impl_->acceptor.open(endpoint.protocol());
    impl_->acceptor.set_option(asio::socket_base::reuse_address(true));
    impl_->acceptor.bind(endpoint);
    impl_->acceptor.listen();
  } catch (const std::exception& error) {
    throw std::runtime_error(impl_->name + ": cannot listen on " + impl_->bind_address + ": " +
                             error.what());
  }
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

void HttpListener::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  asio::post(impl_->io, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
  });
  impl_->io.stop();
  impl_->thread.join();
}

unsigned short HttpListener::port() const { return impl_->acceptor.local_endpoint().port(); }

}  // namespace nvcre::manager
