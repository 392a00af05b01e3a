#include "sim/http_request.hpp"
#include "sim/api_error.hpp"

#include <boost/json.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/url/parse.hpp>

#include <string>

namespace nvcre::sim {

namespace http = boost::beast::http;

namespace {

HttpResponse status_response(const ApiError& error) {
  return HttpResponse{error.code, "application/json", boost::json::serialize(error.to_status())};
}

// The 400 Status a malformed request gets, built as every other Status of kube-sim.
HttpResponse malformed(const std::string& message) { return status_response(bad_request(message)); }

}  // namespace

std::optional<HttpResponse> refusal_for_read_error(const boost::beast::error_code& ec) {
  // Not a refusal: the peer closed between requests, or part-way through one (nobody to answer).
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return std::nullopt;
  if (ec.category() != http::make_error_code(http::error::bad_target).category()) return {};
  if (ec == http::error::body_limit) {
    return status_response(ApiError(413, "RequestEntityTooLarge",
                                    "the request body is larger than " +
                                        std::to_string(kMaxRequestBodyBytes) +
                                        " bytes; send the objects in several requests"));
  }
  if (ec == http::error::header_limit) {
    return status_response(
        ApiError(431, "RequestHeaderFieldsTooLarge", "the request headers are larger than 8 KiB"));
  }
  return malformed("malformed HTTP request: " + ec.message());
}

void limit_request_parser(BeastRequestParser& parser) { parser.body_limit(kMaxRequestBodyBytes); }

std::variant<HttpRequest, HttpResponse> to_http_request(BeastRequest request) {
  HttpRequest req;
  req.method = std::string(request.method_string());
  req.content_type = std::string(request[http::field::content_type]);
  req.accept = std::string(request[http::field::accept]);
  req.user_agent = std::string(request[http::field::user_agent]);
  if (const std::string credentials(request[http::field::authorization]);
      credentials.starts_with("Bearer "))
    req.bearer_token = credentials.substr(7);
  req.impersonate_user = std::string(request["Impersonate-User"]);
  for (auto [it, end] = request.equal_range("Impersonate-Group"); it != end; ++it)
    req.impersonate_groups.emplace_back(it->value());
  req.impersonate_uid = std::string(request["Impersonate-Uid"]);
  req.body = std::move(request.body());
  auto parsed = boost::urls::parse_origin_form(request.target());
  if (!parsed) return malformed("bad request target");
  req.path = std::string(parsed->path());
  for (auto param : parsed->params()) req.query[std::string(param.key)] = std::string(param.value);
  return req;
}

std::variant<HttpRequest, HttpResponse> parse_http_request(std::string_view bytes) {
  BeastRequestParser parser;
  limit_request_parser(parser);
  parser.eager(true);
  boost::beast::error_code ec;
  std::size_t used = 0;
  // put() consumes what it can per call (the header first, then the body); a call that uses
  // nothing without an error needs bytes that are not there.
  while (!parser.is_done() && used < bytes.size()) {
    const auto n = parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    if (ec == http::error::need_more) break;
    if (ec) {
      if (auto refusal = refusal_for_read_error(ec)) return std::move(*refusal);
      return malformed("malformed HTTP request: " + ec.message());
    }
    if (n == 0) break;
    used += n;
  }
  if (!parser.is_done()) {
    // Like a client that closed its side: a body without a length ends here, anything else is cut.
    parser.put_eof(ec);
    if (ec || !parser.is_done()) return malformed("truncated HTTP request");
  }
  return to_http_request(parser.release());
}

}  // namespace nvcre::sim
