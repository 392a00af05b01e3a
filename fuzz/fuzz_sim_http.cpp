// kube-sim's request handling from the bytes on the wire: one HTTP/1.1 request parsed as the
// listener parses it (request line, headers, body, limits), then served by the ApiServer (routing,
// query parameters, selectors, bodies of every verb); a watch it opens is polled once.
#include "sim/http_request.hpp"
#include "sim_fixture.hpp"

#include <cstdint>
#include <string_view>
#include <variant>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto parsed = nvcre::sim::parse_http_request(bytes);
  auto* request = std::get_if<nvcre::sim::HttpRequest>(&parsed);
  if (request == nullptr) return 0;
  auto& server = nvcre::fuzz::fixture_server();
  auto result = server.handle(*request);
  if (auto* watch = std::get_if<std::shared_ptr<nvcre::sim::WatchStream>>(&result)) {
    (void)server.poll_watch(**watch);
  }
  return 0;
}
