#pragma once
// Server-side printing: the meta.k8s.io/v1 Table a real API server answers when a client asks for
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` (what `kubectl get` does), so kubectl
// shows the same columns as on a cluster. Custom resources get their CRD version's
// additionalPrinterColumns (JSONPath, typed cells; an Age column when there are none); built-in
// kinds get the columns of Kubernetes' own printers (Node, Pod, Event, ...), every column always
// filled (kubectl hides those of priority > 0 unless `-o wide`); any other kind gets Name and
// Created At. Pure: the time `now` (ages) is an input.
#include "sim/resources.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

using Clock = std::chrono::system_clock;

// What each row carries besides its cells (the `includeObject` query parameter).
enum class TableRowObject { None, Metadata, Object };

// True when an Accept header lists a meta.k8s.io Table (v1 or v1beta1) among its media types.
bool accepts_table(std::string_view accept);
// `includeObject`: "" or "Metadata" -> Metadata, "None", "Object"; throws ApiError 400 otherwise.
TableRowObject parse_include_object(const std::string& value);

// One column of a kind's table, and how each object fills its cell.
struct TableColumns {
  boost::json::array definitions;  // metav1.TableColumnDefinition
  // The cells of one object's row, one per definition.
  std::vector<boost::json::value> (*cells)(const boost::json::value& object,
                                           const boost::json::array& crd_columns,
                                           Clock::time_point now) = nullptr;
};

// The columns of `info`'s kind (CRD printer columns, a built-in printer, or the default).
TableColumns table_columns(const ResourceInfo& info);

// A Table of `items` (a list answer, or one object for a GET) with `list_metadata`
// (resourceVersion, continue, remainingItemCount) as its metadata.
boost::json::value make_table(const ResourceInfo& info,
                              const std::vector<boost::json::value>& items,
                              boost::json::object list_metadata, TableRowObject row_object,
                              Clock::time_point now);

// Kubernetes' short age ("45s", "3m20s", "5h", "12d"), as kubectl shows it.
std::string human_duration(std::chrono::nanoseconds elapsed);
// human_duration(now - time) of an RFC 3339 time; "<unknown>" when absent or unparsable.
std::string age_of(std::string_view rfc3339, Clock::time_point now);

// A column definition (priority 0 unless given).
boost::json::object column(std::string_view name, std::string_view type,
                           std::string_view description, std::int64_t priority = 0,
                           std::string_view format = {});

// The built-in printer for `info`'s kind; nullopt when Kubernetes has none (default columns).
std::optional<TableColumns> builtin_table_columns(const ResourceInfo& info);
// ... for PersistentVolume, PersistentVolumeClaim and batch/v1 Job (table_storage.cpp).
std::optional<TableColumns> storage_table_columns(const ResourceInfo& info);

// Values a simple JSONPath (".a.b", ".a[0]", ".a[*].b", ".a[?(@.k=="v")].b") selects, in order.
std::vector<const boost::json::value*> json_path_values(const boost::json::value& root,
                                                        std::string_view path);

}  // namespace nvcre::sim
