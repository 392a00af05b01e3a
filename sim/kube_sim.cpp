#include "sim/kube_sim.hpp"
#include "sim/api_error.hpp"
#include "sim/http_request.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/url.hpp>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

namespace nvcre::sim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using TlsStream = ssl::stream<tcp::socket>;

namespace {

// A watch woken within this long after it last sent waits out the rest, so a burst of writes goes
// out in a few chunks rather than one per event. Measured with nvcre_sim_capacity_bench (100
// watchers of one type, one writer): 0 or 1 ms gave 66-68k events/s delivered, 2 ms 158k, 5 ms
// 177k. A watch that has been quiet for 2 ms is woken at once.
constexpr std::chrono::milliseconds kBurstGap{2};

// An open watch, as WatchWakeups sees it.
class WatchTarget {
 public:
  virtual ~WatchTarget() = default;
  virtual void wake() = 0;
};

// Wakes the open watches of a type as soon as the store records an event of that type, as
// kube-apiserver pushes each event to the watchers of its resource only. Writes made while the io
// thread is busy cost one wake-up. Touched only on the io_context thread, except notify(), which
// any writer (a request, the simulated Trainer) calls.
class WatchWakeups {
 public:
  explicit WatchWakeups(asio::io_context& ioc) : ioc_(ioc) {}

  void add(std::string type_key, std::weak_ptr<WatchTarget> target) {
    watches_.push_back({std::move(type_key), std::move(target)});
  }

  void notify(const ResourceType& type) {
    {
      std::lock_guard lock(mutex_);
      changed_.insert(Store::bucket_key(type));
      if (wake_posted_) return;  // the wake-up in flight serves this change too
      wake_posted_ = true;
    }
    asio::post(ioc_, [this] {
      std::set<std::string> changed;
      {
        std::lock_guard lock(mutex_);
        changed.swap(changed_);
        wake_posted_ = false;
      }
      std::erase_if(watches_, [&](const Watch& watch) {
        auto target = watch.target.lock();
        if (target && changed.contains(watch.type_key)) target->wake();
        return !target;
      });
    });
  }

 private:
  struct Watch {
    std::string type_key;
    std::weak_ptr<WatchTarget> target;
  };

  asio::io_context& ioc_;
  std::vector<Watch> watches_;
  std::mutex mutex_;
  std::set<std::string> changed_;  // types written since the last wake-up
  bool wake_posted_ = false;
};

bool log_enabled() { return std::getenv("KUBE_SIM_LOG") != nullptr; }

// One connection. Stream is tcp::socket (HTTP) or TlsStream (HTTPS, handshake first).
template <class Stream>
class Session : public WatchTarget, public std::enable_shared_from_this<Session<Stream>> {
  using std::enable_shared_from_this<Session<Stream>>::shared_from_this;

 public:
  template <class... StreamArgs>
  Session(ApiServer& api, WatchWakeups& wakeups, std::string token,
          std::chrono::milliseconds watch_poll, StreamArgs&&... stream_args)
      : stream_(std::forward<StreamArgs>(stream_args)...),
        timer_(stream_.get_executor()),
        api_(api),
        wakeups_(wakeups),
        token_(std::move(token)),
        watch_poll_(watch_poll) {}

  void start() {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      stream_.async_handshake(
          ssl::stream_base::server, [self = shared_from_this()](beast::error_code ec) {
            if (!ec) return self->read();
            if (log_enabled())
              std::fprintf(stderr, "kube-sim: TLS handshake failed: %s\n", ec.message().c_str());
            self->linger_close();
          });
    } else {
      read();
    }
  }

 private:
  tcp::socket& tcp_socket() { return beast::get_lowest_layer(stream_); }

  void read() {
    parser_.emplace();
    limit_request_parser(*parser_);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec) return self->on_request();
                       auto refusal = refusal_for_read_error(ec);
                       if (!refusal) return self->close();
                       self->keep_alive_ = false;  // the rest of the stream cannot be trusted
                       self->respond(std::move(*refusal));
                     });
  }

  void on_request() {
    auto request = parser_->release();
    keep_alive_ = request.keep_alive();
    const bool authorized =
        token_.empty() || request[http::field::authorization] == "Bearer " + token_;
    const std::string target(request.target());
    auto decoded = to_http_request(std::move(request));
    if (auto* refusal = std::get_if<HttpResponse>(&decoded)) return respond(std::move(*refusal));
    auto& req = std::get<HttpRequest>(decoded);
    if (!authorized) {
      return respond(HttpResponse{
          401, "application/json",
          boost::json::serialize(ApiError(401, "Unauthorized", "Unauthorized").to_status())});
    }
    auto result = api_.handle(req);
    if (log_enabled()) {
      const auto* plain = std::get_if<HttpResponse>(&result);
      std::fprintf(stderr, "kube-sim: %s %s ct=%s accept=%s -> %d\n", req.method.c_str(),
                   target.c_str(), req.content_type.c_str(), req.accept.c_str(),
                   plain ? plain->status : 200);
    }
    if (auto* response = std::get_if<HttpResponse>(&result)) {
      if (response->delay.count() <= 0) return respond(std::move(*response));
      auto delayed = std::make_shared<HttpResponse>(std::move(*response));
      timer_.expires_after(delayed->delay);  // injected latency
      return timer_.async_wait([self = shared_from_this(), delayed](beast::error_code) {
        self->respond(std::move(*delayed));
      });
    }
    watch_ = std::get<std::shared_ptr<WatchStream>>(result);
    if (watch_->delay.count() <= 0) return start_watch();
    timer_.expires_after(watch_->delay);
    timer_.async_wait([self = shared_from_this()](beast::error_code) { self->start_watch(); });
  }

  void respond(HttpResponse response) {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(response.status), 11);
    res->set(http::field::content_type, response.content_type);
    res->set(http::field::cache_control, "no-cache, private");
    for (const auto& [name, value] : response.headers) res->set(name, value);
    res->keep_alive(keep_alive_);
    res->body() = std::move(response.body);
    res->prepare_payload();
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                        if (ec || !self->keep_alive_) return self->close();
                        self->read();
                      });
  }

  // ---- watch: raw chunked transfer encoding, one event per chunk ----
  // The connection ends with the watch, and the head says so: a client that pooled it for its next
  // request would otherwise race our close (urllib3 lost that race under a slowed kube-sim).
  void start_watch() {
    std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n"
        "Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (const auto& line : watch_->initial) head += chunk(line);
    watch_->initial.clear();
    enqueue(std::move(head));
    // Notice a client hang-up while we only write.
    stream_.async_read_some(asio::buffer(probe_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) {
                                self->watch_gone_ = true;
                                self->timer_.cancel();
                              }
                            });
    wakeups_.add(Store::bucket_key(watch_->type), this->weak_from_this());
    schedule_poll();
  }

  static std::string chunk(const std::string& data) {
    char size[20];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n";
  }

  void schedule_poll() {
    timer_.expires_after(watch_poll_);
    timer_.async_wait(
        [self = shared_from_this()](beast::error_code ec) { self->on_poll_timer(ec); });
  }

  // A new event of our type cancels the poll wait, whose handler then polls.
  void wake() override {
    if (!watch_done_) timer_.cancel();
  }

  // Expired, or cancelled by a wake-up or a hang-up (which poll() handles). Woken within the burst
  // gap after our last write: wait out the rest of it.
  void on_poll_timer(beast::error_code ec) {
    const auto due = last_sent_ + kBurstGap;
    if (ec == asio::error::operation_aborted && !watch_gone_ &&
        std::chrono::steady_clock::now() < due) {
      timer_.expires_at(due);
      timer_.async_wait(
          [self = shared_from_this()](beast::error_code next) { self->on_poll_timer(next); });
      return;
    }
    poll();
  }

  void poll() {
    if (watch_gone_) return close();
    std::string out;
    for (const auto& line : api_.poll_watch(*watch_)) out += chunk(line);
    if (watch_->dropped) return close();  // an injected drop: no terminating chunk
    if (watch_->closed) {
      out += "0\r\n\r\n";
      watch_done_ = true;
    }
    if (!out.empty()) {
      last_sent_ = std::chrono::steady_clock::now();
      enqueue(std::move(out));
    }
    if (!watch_done_) schedule_poll();
  }

  void enqueue(std::string data) {
    outbox_.push_back(std::move(data));
    if (!writing_) write_next();
  }

  void write_next() {
    if (outbox_.empty()) {
      writing_ = false;
      if (watch_done_) close();  // a watch ends its connection, as the API server does on timeout
      return;
    }
    writing_ = true;
    asio::async_write(stream_, asio::buffer(outbox_.front()),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        self->outbox_.pop_front();
                        if (ec) {
                          self->watch_gone_ = true;
                          self->timer_.cancel();
                          return self->close();
                        }
                        self->write_next();
                      });
  }

  void close() {
    beast::error_code ignored;
    tcp_socket().shutdown(tcp::socket::shutdown_both, ignored);
    tcp_socket().close(ignored);
  }

  // After a failed handshake the alert is already written; closing with the client's data still
  // unread would send RST, which can destroy that alert before the client reads it (TLS 1.3 clients
  // send their request before the server has judged their certificate). So: FIN, drain, close.
  void linger_close() {
    beast::error_code ignored;
    tcp_socket().shutdown(tcp::socket::shutdown_send, ignored);
    timer_.expires_after(std::chrono::seconds(5));
    timer_.async_wait([self = shared_from_this()](beast::error_code) { self->close(); });
    drain();
  }

  void drain() {
    tcp_socket().async_read_some(asio::buffer(probe_),
                                 [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                   if (!ec) return self->drain();
                                   self->timer_.cancel();  // its handler closes the socket
                                 });
  }

  Stream stream_;
  asio::steady_timer timer_;
  ApiServer& api_;
  WatchWakeups& wakeups_;
  std::string token_;
  std::chrono::milliseconds watch_poll_;
  beast::flat_buffer buffer_;
  std::optional<BeastRequestParser> parser_;
  bool keep_alive_ = true;
  std::shared_ptr<WatchStream> watch_;
  bool watch_gone_ = false;
  bool watch_done_ = false;
  std::chrono::steady_clock::time_point last_sent_{};
  bool writing_ = false;
  std::deque<std::string> outbox_;
  std::array<char, 512> probe_{};
};

// The PEM text of one TLS item: the inline text, else the file's content; "" when neither is set.
std::string pem_of(const std::string& pem, const std::string& file, const std::string& what) {
  if (!pem.empty() || file.empty()) return pem;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("kube-sim: cannot read " + what + " file " + file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Names the item in errors: its file, or "<what> PEM" for inline text (whose bytes are never
// shown).
std::string name_of(const std::string& pem, const std::string& file, const std::string& what) {
  return pem.empty() ? what + " file " + file : what + " PEM";
}

// Every certificate in `pem` becomes an acceptable client-certificate issuer announced in the
// CertificateRequest (clients such as Go's pick their certificate by that list).
void announce_client_cas(ssl::context& context, const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    SSL_CTX_add_client_CA(context.native_handle(), cert);  // copies the subject name
    X509_free(cert);
  }
  ERR_clear_error();  // the loop ends on "no start line"; leave no stale error for the next TLS
                      // call
}

ssl::context make_server_tls(const KubeSimTls& options) {
  ssl::context context(ssl::context::tls_server);
  context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  const auto cert = pem_of(options.cert_pem, options.cert_file, "server certificate");
  const auto key = pem_of(options.key_pem, options.key_file, "server private key");
  if (cert.empty() || key.empty())
    throw std::runtime_error("kube-sim: TLS needs a server certificate and its private key");
  auto fail = [](const std::string& what, const beast::error_code& ec) {
    // OpenSSL's messages name the PEM problem, never the bytes.
    throw std::runtime_error("kube-sim: " + what + " is not usable: " + ec.message());
  };
  beast::error_code ec;
  context.use_certificate_chain(asio::buffer(cert), ec);
  if (ec) fail(name_of(options.cert_pem, options.cert_file, "server certificate"), ec);
  context.use_private_key(asio::buffer(key), ssl::context::pem,
                          ec);  // also checks it matches the certificate
  if (ec) fail(name_of(options.key_pem, options.key_file, "server private key"), ec);
  const auto client_ca = pem_of(options.client_ca_pem, options.client_ca_file, "client CA");
  if (!client_ca.empty()) {
    context.add_certificate_authority(asio::buffer(client_ca), ec);
    if (ec) fail(name_of(options.client_ca_pem, options.client_ca_file, "client CA"), ec);
    announce_client_cas(context, client_ca);
    context.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  return context;
}

}  // namespace

struct KubeSim::Impl {
  explicit Impl(KubeSimOptions o) : options(std::move(o)), api(options.api) {}

  void accept() {
    acceptor->async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;  // closed by stop()
      socket.set_option(tcp::no_delay(true), ec);
      if (tls) {
        std::make_shared<Session<TlsStream>>(api, wakeups, options.token, options.watch_poll,
                                             std::move(socket), *tls)
            ->start();
      } else {
        std::make_shared<Session<tcp::socket>>(api, wakeups, options.token, options.watch_poll,
                                               std::move(socket))
            ->start();
      }
      accept();
    });
  }

  KubeSimOptions options;
  std::optional<ssl::context> tls;
  ApiServer api;
  asio::io_context ioc{1};
  WatchWakeups wakeups{ioc};
  std::optional<tcp::acceptor> acceptor;
  std::thread thread;
  unsigned short port = 0;
  bool running = false;
};

KubeSim::KubeSim(KubeSimOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

KubeSim::~KubeSim() { stop(); }

void KubeSim::start() {
  if (impl_->running) return;
  if (impl_->options.tls && !impl_->tls) impl_->tls.emplace(make_server_tls(*impl_->options.tls));
  beast::error_code ec;
  auto address = asio::ip::make_address(impl_->options.address, ec);
  if (ec)
    throw std::runtime_error("kube-sim: bad address " + impl_->options.address + ": " +
                             ec.message());
  tcp::endpoint endpoint(address, impl_->options.port);
  impl_->acceptor.emplace(impl_->ioc);
  impl_->acceptor->open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor->bind(endpoint, ec);
  if (!ec) impl_->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error("kube-sim: cannot listen on " + impl_->options.address + ":" +
                             std::to_string(impl_->options.port) + ": " + ec.message());
  impl_->port = impl_->acceptor->local_endpoint().port();
  impl_->api.store().set_on_change(
      [this](const ResourceType& type) { impl_->wakeups.notify(type); });
  impl_->accept();
  impl_->running = true;
  impl_->thread = std::thread([this] { impl_->ioc.run(); });
  impl_->api.start_simulation();  // simulated Trainer ticks, when enabled
}

void KubeSim::stop() {
  if (!impl_ || !impl_->running) return;
  impl_->api.stop_simulation();
  asio::post(impl_->ioc, [this] {
    beast::error_code ignored;
    impl_->acceptor->close(ignored);
  });
  impl_->ioc.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->api.store().set_on_change(nullptr);
  impl_->running = false;
}

unsigned short KubeSim::port() const { return impl_->port; }

std::string KubeSim::url() const {
  return (impl_->options.tls ? "https://" : "http://") + impl_->options.address + ":" +
         std::to_string(impl_->port);
}

ApiServer& KubeSim::api() { return impl_->api; }

}  // namespace nvcre::sim
