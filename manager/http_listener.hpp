#pragma once
// One thread answering one HTTP/1.1 connection at a time, plain or over TLS: what the manager's
// probe and metrics endpoints share. Both are small and rarely asked, so nothing is concurrent.
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace boost::asio::ssl {
class context;
}

namespace nvcre::manager {

// ":8081" -> ("0.0.0.0", 8081); "127.0.0.1:0" -> ephemeral. Throws std::invalid_argument.
std::pair<std::string, unsigned short> parse_bind_address(const std::string& address);

struct HttpAsk {
  std::string method;
  std::string path;           // the target without its query
  std::string authorization;  // the Authorization header, "" when absent
};

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpListener {
 public:
  using Handler = std::function<HttpAnswer(const HttpAsk&)>;
  // `name` heads the errors start() throws ("health probe server", "metrics server"); `tls` null
  // serves plain HTTP.
  HttpListener(std::string name, std::string bind_address, Handler handler,
               std::shared_ptr<boost::asio::ssl::context> tls = nullptr);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  void start();  // binds (throws std::runtime_error naming the address) and serves
  void stop();
  unsigned short port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::manager
