// A watch response body as the reflectors read it from the API server: newline-delimited events fed
// to the decoder in chunks whose sizes the input's first byte chooses, then the end of the stream.
#include "k8s/watch_stream.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  // A small line limit, so the fuzzer reaches the overlong-line path within -max_len.
  nvcre::k8s::WatchDecoder decoder(4096);
  try {
    for (std::size_t at = 0; at < body.size(); at += chunk) {
      for (const auto& event : decoder.feed(body.substr(at, chunk))) {
        (void)event.resource_version();
        (void)event.expired();
      }
    }
    (void)decoder.finish();
  } catch (const nvcre::k8s::WatchDecodeError&) {
  }
  return 0;
}
