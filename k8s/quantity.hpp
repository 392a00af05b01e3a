#pragma once
// Kubernetes resource.Quantity: "500m", "1.5Gi", "1e3", "-2". Values are exact (no floating point):
// a sign, a decimal digit string and a power of ten, with the same rounding and capping as
// apimachinery's ParseQuantity, so comparisons agree with the API server's (CEL `quantity(...)`).
#include <boost/json/fwd.hpp>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nvcre::k8s {

class Quantity {
 public:
  // How the value was written; canonical() keeps this family of suffixes.
  enum class Format { DecimalSI, BinarySI, DecimalExponent };

  Quantity() = default;  // zero, DecimalSI

  // Grammar (apimachinery): [+-]? (digits | digits.digits? | .digits) suffix, where suffix is
  // one of n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei, or e/E followed by a signed integer. No
  // whitespace. Values are exact, with Go's adjustments:
  //  - non-zero values are rounded up in magnitude to a whole nano (1e-10 -> 1n);
  //  - binary-suffixed values are capped at 2^63-1 (decimal ones are not, as in Go);
  //  - an exponent is read as int64 then truncated to int32 (Go's int32 conversion).
  static std::optional<Quantity> parse(std::string_view text);

  bool is_negative() const { return negative_; }
  bool is_zero() const { return digits_.empty(); }
  Format format() const { return format_; }

  // Kubernetes' canonical string (Quantity.String()): "0", "500m", "1536Mi", "1k", "1e3".
  // Deviation: a DecimalSI value whose exponent is beyond E (e.g. 1000E) prints as "1e21"
  // where Go would print a wrong suffix-less number.
  std::string canonical() const;

  // Value in whole units / thousandths, rounded away from zero and saturating at the int64
  // limits (Go's Value() / MilliValue() where those do not overflow).
  std::int64_t value() const;
  std::int64_t milli_value() const;

  // Ordering and equality are by numeric value only: 1Ki == 1024 although canonical() differs.
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b);
  friend bool operator==(const Quantity& a, const Quantity& b) {
    return a.negative_ == b.negative_ && a.exponent_ == b.exponent_ && a.digits_ == b.digits_;
  }

 private:
  // value = (negative_ ? -1 : 1) * digits_ * 10^exponent_. digits_ has no leading or trailing
  // zeros ("" is zero, with exponent 0), so equal values have equal representations.
  bool negative_ = false;
  std::string digits_;
  std::int64_t exponent_ = 0;
  Format format_ = Format::DecimalSI;

  std::int64_t scaled_value(std::int64_t scale) const;
};

// True when Quantity::parse accepts `text` (the apimachinery grammar, checked by hand). The CRD
// OpenAPI pattern is slightly looser (it also admits fractional exponents such as "1e1.5", which
// ParseQuantity then rejects); this answers for what can actually be used.
bool is_valid_quantity(std::string_view text);

// int-or-string: a JSON string is parsed; an integer is read as its decimal text (like Go's
// UnmarshalJSON). Deviation: an integral double (our YAML reads `1e3` as a float) is accepted as
// its integer value; fractional doubles, which int-or-string schemas reject, give nullopt.
std::optional<Quantity> quantity_from_json(const boost::json::value& value);

}  // namespace nvcre::k8s
