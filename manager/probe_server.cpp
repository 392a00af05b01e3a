#include "manager/probe_server.hpp"

namespace nvcre::manager {

namespace {

HttpAnswer probe_answer(const HttpAsk& ask, const std::function<bool()>& ready) {
  if (ask.path == "/healthz") return {200, "text/plain; charset=utf-8", "ok"};
  if (ask.path == "/readyz") {
    const bool is_ready = ready && ready();
    return {is_ready ? 200 : 503, "text/plain; charset=utf-8",
            is_ready ? "ok" : "caches not synced"};
  }
  return {404, "text/plain; charset=utf-8", "not found"};
}

}  // namespace

ProbeServer::ProbeServer(const std::string& bind_address, std::function<bool()> ready)
    : listener_(
          "health probe server", bind_address,
          [ready = std::move(ready)](const HttpAsk& ask) { return probe_answer(ask, ready); }) {}

}  // namespace nvcre::manager
