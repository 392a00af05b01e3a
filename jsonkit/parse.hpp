#pragma once
// JSON text as the Kubernetes API server reads it. boost::json reads a number whose exponent
// overflows a double as infinity ("1e400") and a zero with such an exponent as NaN ("0e717");
// the API server (Go) refuses the first and reads the second as 0. A value holding NaN or
// infinity would also be written back as text no JSON reader accepts.
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <boost/system/error_code.hpp>

#include <string_view>

namespace nvcre::jsonkit {

// boost::json::parse, then: a NaN (only a zero mantissa gives one) becomes 0 (its sign is not
// kept: boost::json's NaN does not carry the literal's), and an infinite number is an error
// (boost::json::error::exponent_overflow) with an empty result.
boost::json::value parse_json(std::string_view text, boost::system::error_code& ec,
                              const boost::json::parse_options& options = {});
// The same, throwing boost::system::system_error on an error.
boost::json::value parse_json(std::string_view text,
                              const boost::json::parse_options& options = {});

}  // namespace nvcre::jsonkit
