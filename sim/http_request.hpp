#pragma once
// How kube-sim's listener turns the bytes of one HTTP/1.1 request into an HttpRequest: Beast's
// request parser with the listener's limits, then the target split into path and query and the
// headers ApiServer reads picked out. One decoder for the listener (kube_sim.cpp) and for the
// fuzz target and tests that feed it raw bytes.
#include "sim/api_server.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace nvcre::sim {

using BeastRequest = boost::beast::http::request<boost::beast::http::string_body>;
using BeastRequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// The largest body the listener reads (a CRD bundle fits many times over); a larger one is refused
// by the parser before it is buffered. Headers keep Beast's 8 KiB limit.
inline constexpr std::uint64_t kMaxRequestBodyBytes = 256u * 1024u * 1024u;

// Applies the listener's limits to a fresh parser.
void limit_request_parser(BeastRequestParser& parser);

// The request ApiServer::handle reads, or the 400 answer for a target that is not an origin-form
// URI. Headers other than the ones HttpRequest names are ignored.
std::variant<HttpRequest, HttpResponse> to_http_request(BeastRequest request);

// The answer the listener gives a request it could not read (what Go's HTTP server and the API
// server answer): 413 for a body past kMaxRequestBodyBytes, 431 for headers past 8 KiB, 400 for
// anything else malformed; nullopt when nobody is left to answer (the peer closed, or the error is
// not the parser's).
std::optional<HttpResponse> refusal_for_read_error(const boost::beast::error_code& ec);

// Parses one complete request from `bytes` (the rest of the buffer is ignored) with the listener's
// parser and limits; a malformed, truncated or oversized request gives the 400 a client would see
// before the connection closes.
std::variant<HttpRequest, HttpResponse> parse_http_request(std::string_view bytes);

}  // namespace nvcre::sim
