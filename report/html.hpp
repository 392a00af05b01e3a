#pragma once
// The report as one self-contained HTML page (`nvcrectl certification report --html FILE`): the
// text report's header, categories and summary, plus per category a chart of every group's bus
// bandwidth against message size (log-scale sizes, the busBandwidthGBps threshold drawn in), a
// grid of the nodes coloured by verdict with the reasons on hover, and the diagnose rounds as a
// timeline. Inline CSS and SVG only: no script, nothing fetched (a Content-Security-Policy says
// so), so it opens offline from a file and can be archived next to the JUnit file. Every string
// from the cluster is escaped (markup.hpp) after the terminal sanitiser removes control and bidi
// characters.
#include "report/model.hpp"

#include <string>
#include <vector>

namespace nvcre::report {

std::string render_html(const std::vector<CertificationReport>& reports);

}  // namespace nvcre::report
