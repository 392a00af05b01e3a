#pragma once
// The embeddable kube-sim: an ApiServer behind an HTTP/1.1 listener on loopback (plain HTTP, or
// HTTPS when KubeSimOptions::tls is set), served by one io_context thread. Boost.Beast and OpenSSL
// stay inside kube_sim.cpp (and Beast in http_request.*, its request decoder).
#include "sim/api_server.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace nvcre::sim {

// HTTPS material. Each item is a PEM file path or the PEM text itself (the text wins when both are
// set). With a client CA, every connection must present a client certificate that chains to it.
struct KubeSimTls {
  std::string cert_file;  // server certificate chain (leaf first)
  std::string cert_pem;
  std::string key_file;  // the server certificate's private key
  std::string key_pem;   // secret: never printed
  std::string client_ca_file;
  std::string client_ca_pem;
};

struct KubeSimOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 0;        // 0: ephemeral
  std::string token;              // non-empty: require "Authorization: Bearer <token>"
  std::optional<KubeSimTls> tls;  // set: serve HTTPS only; unset: plain HTTP
  ApiServerOptions api;
  // How often an open watch polls the store on its own (bookmarks, injected drops, the server-side
  // timeout). New events do not wait for it: a write wakes the watches of its type at once.
  std::chrono::milliseconds watch_poll{50};
};

class KubeSim {
 public:
  explicit KubeSim(KubeSimOptions options = {});
  ~KubeSim();
  KubeSim(const KubeSim&) = delete;
  KubeSim& operator=(const KubeSim&) = delete;

  // Loads the TLS material and binds (throws std::runtime_error naming the bad file or field, never
  // key bytes), then starts serving.
  void start();
  void stop();  // closes every connection; idempotent
  unsigned short port() const;
  std::string url() const;  // http://127.0.0.1:<port>, or https:// with TLS
  ApiServer& api();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::sim
