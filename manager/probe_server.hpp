#pragma once
// The health-probe endpoint (--health-probe-bind-address, default :8081): GET /healthz answers
// 200 while the process runs; GET /readyz answers 200 once `ready()` says so (caches synced),
// else 503. Plain HTTP/1.1 (manager/http_listener.hpp).
#include "manager/http_listener.hpp"

#include <functional>
#include <memory>
#include <string>

namespace nvcre::manager {

class ProbeServer {
 public:
  ProbeServer(const std::string& bind_address, std::function<bool()> ready);

  void start() { listener_.start(); }  // binds (throws std::runtime_error naming the address)
  void stop() { listener_.stop(); }
  unsigned short port() const { return listener_.port(); }

 private:
  HttpListener listener_;
};

}  // namespace nvcre::manager
