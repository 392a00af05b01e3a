#pragma once
// The embeddable kube-sim: an ApiServer behind an HTTP/1.1 listener on loopback, served by one
// io_context thread. Boost.Beast stays inside kube_sim.cpp.
#include "sim/api_server.hpp"

#include <memory>
#include <string>

namespace nvcre::sim {

struct KubeSimOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 0;  // 0: ephemeral
  std::string token;        // non-empty: require "Authorization: Bearer <token>"
  ApiServerOptions api;
};

class KubeSim {
 public:
  explicit KubeSim(KubeSimOptions options = {});
  ~KubeSim();
  KubeSim(const KubeSim&) = delete;
  KubeSim& operator=(const KubeSim&) = delete;

  void start();  // binds (throws std::runtime_error on failure) and starts serving
  void stop();   // closes every connection; idempotent
  unsigned short port() const;
  std::string url() const;  // http://127.0.0.1:<port>
  ApiServer& api();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::sim
