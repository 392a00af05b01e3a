#pragma once
// Numbers as Go prints them, for messages and values that must read exactly as the Go
// implementation's do.
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::cel {

// fmt's %v of a float64, i.e. strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that read
// back as `value`, in exponent form when the decimal exponent is below -4 or at least 6 (two
// exponent digits at least): 850, 371.9, 123456, 1e+06, 1.234567e+06, 0.0001, 1e-05, -0, +Inf,
// -Inf, NaN. CEL's string(double) gives the same text.
std::string format_go_float(double value);

// fmt's %.<precision>f of a float64: "350.0000" for precision 4, "+Inf", "-Inf", "NaN".
std::string format_go_fixed(double value, int precision);

// fmt's %q of a string (strconv.Quote): double quotes, with \\ \" \a \b \f \n \r \t \v and
// \xHH for other control bytes; printable UTF-8 stays as it is.
std::string quote_go_string(std::string_view text);

// fmt's %v of a []string: "[a b c]", "[]".
std::string format_go_string_list(const std::vector<std::string>& items);

}  // namespace nvcre::cel
