#pragma once
// `nvcrectl certification report NAME...`: fetches each Certification and what it left in its
// namespace, prints the report (text, or JSON with -o json) on stdout, writes --results-file,
// --junit-file and --html, and exits 1 when a Certification is missing, still running or failed.
#include "api/common_types.hpp"
#include "cli/connection_flags.hpp"
#include "report/build.hpp"
#include "report/model.hpp"

#include <boost/json/value.hpp>

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace nvcre::cli {

struct ReportOptions {
  std::vector<std::string> names;
  ConnectionFlags connection;
  std::string output = "text";  // text | json
  std::string results_file;
  std::string junit_file;
  std::string html_file;
};

// Runs the command; returns the exit code. Messages ("Error: ...", "Results written to ...") go
// to `err`.
int run_certification_report(const ReportOptions& options, std::ostream& out, std::ostream& err);

// Writes the self-contained HTML page of `reports` (report/html.hpp) to `path` and says so on
// `err` ("HTML report written to <path>"). Throws std::runtime_error
// `write HTML report: <path>: cannot write the file (does its directory exist?)`.
void write_html_report(const std::vector<report::CertificationReport>& reports,
                       const std::string& path, std::ostream& err);

// Fetches the objects one report needs from namespace `ns`. Throws std::runtime_error
// `certification "<n>" not found in namespace "<ns>"` for a missing one.
report::ReportObjects fetch_report_objects(k8s::RestClient& client, const std::string& ns,
                                           const std::string& name);

// The WorkloadRun `name` and the objects of its namespace its report needs. Throws
// std::runtime_error `workloadrun "<n>" not found in namespace "<ns>"` for a missing one.
std::pair<boost::json::value, report::ReportObjects> fetch_workloadrun_objects(
    k8s::RestClient& client, const std::string& ns, const std::string& name);

// The command's error for these reports: `certification "<n>" is still running` /
// `certification "<n>" failed`, joined with "; "; "" when every one passed (INCOMPLETE included).
std::string report_verdict(const std::vector<report::CertificationReport>& reports);

// Writes a report file; throws std::runtime_error "write <what>: <path>: ..." when it cannot.
void write_report_file(const std::string& path, const std::string& content,
                       const std::string& what);

// The entries of a failed-nodes ConfigMap (binaryData "failed-nodes.json.gz": gzip of a JSON
// array of {name, reason, message}). Throws std::runtime_error when it cannot be decoded.
std::vector<api::FailedNode> failed_nodes_of_configmap(const boost::json::value& configmap);

// The node names of a succeeded-nodes ConfigMap (binaryData "succeeded-nodes.csv.gz": gzip of
// the comma-joined names). Throws std::runtime_error when it cannot be decoded.
std::vector<std::string> succeeded_nodes_of_configmap(const boost::json::value& configmap);

}  // namespace nvcre::cli
