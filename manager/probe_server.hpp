#pragma once
// The health-probe endpoint (--health-probe-bind-address, default :8081): GET /healthz answers
// 200 while the process runs; GET /readyz answers 200 once `ready()` says so (caches synced),
// else 503; GET /metrics serves the Prometheus text when a Metrics object is given (the separate
// --metrics-bind-address listener is the production path). One thread, plain HTTP/1.1.
#include <functional>
#include <memory>
#include <string>

namespace nvcre::k8s {
class Metrics;
}

namespace nvcre::manager {

// ":8081" -> ("0.0.0.0", 8081); "127.0.0.1:0" -> ephemeral. Throws std::invalid_argument.
std::pair<std::string, unsigned short> parse_bind_address(const std::string& address);

class ProbeServer {
 public:
  ProbeServer(const std::string& bind_address, std::function<bool()> ready,
              std::shared_ptr<k8s::Metrics> metrics = nullptr);
  ~ProbeServer();
  ProbeServer(const ProbeServer&) = delete;
  ProbeServer& operator=(const ProbeServer&) = delete;

  void start();  // binds (throws std::runtime_error naming the address) and serves
  void stop();
  unsigned short port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::manager
