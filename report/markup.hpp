#pragma once
// Text for XML and HTML documents (the JUnit file, the HTML page): one escaper for both.
#include <string>
#include <string_view>

namespace nvcre::report {

// XML 1.0 text: markup characters escaped; characters XML cannot carry (C0 controls other than
// tab, newline and carriage return) and invalid UTF-8 replaced by U+FFFD. In attributes (always
// double-quoted) quotes, newlines and tabs are escaped too, so they survive attribute
// normalisation. The same text is safe in HTML text and double-quoted attributes.
std::string xml_escape(std::string_view text, bool attribute);

}  // namespace nvcre::report
