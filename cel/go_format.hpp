#pragma once
// Numbers as Go prints them, for messages and values that must read exactly as the Go
// implementation's do.
#include <string>

namespace nvcre::cel {

// fmt's %v of a float64, i.e. strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that read
// back as `value`, in exponent form when the decimal exponent is below -4 or at least 6 (two
// exponent digits at least): 850, 371.9, 123456, 1e+06, 1.234567e+06, 0.0001, 1e-05, -0, +Inf,
// -Inf, NaN. CEL's string(double) gives the same text.
std::string format_go_float(double value);

// fmt's %.<precision>f of a float64: "350.0000" for precision 4, "+Inf", "-Inf", "NaN".
std::string format_go_fixed(double value, int precision);

}  // namespace nvcre::cel
