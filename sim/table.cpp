#include "sim/table.hpp"

#include "jsonkit/paths.hpp"
#include "k8s/rfc3339.hpp"
#include "sim/api_error.hpp"

#include <boost/json.hpp>

#include <cstdio>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

constexpr std::string_view kNameDescription =
    "Name must be unique within a namespace. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

std::string trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}

// ".a.b" steps of a JSONPath filter's left side ("@.status" -> {"status"}).
const json::value* relative_value(const json::value& root, std::string_view path) {
  const json::value* at = &root;
  std::size_t start = 0;
  while (start < path.size() && at) {
    if (path[start] == '.') ++start;
    std::size_t end = path.find('.', start);
    if (end == std::string_view::npos) end = path.size();
    const auto* object = at->if_object();
    at = object ? object->if_contains(path.substr(start, end - start)) : nullptr;
    start = end;
  }
  return at;
}

// Does `element` pass `[?(@.a.b=="v")]` / `!=`?
bool passes_filter(const json::value& element, std::string_view filter) {
  const bool negated = filter.find("!=") != std::string_view::npos;
  const std::size_t op = filter.find(negated ? "!=" : "==");
  if (op == std::string_view::npos || !filter.starts_with("@")) return false;
  std::string literal = trimmed(filter.substr(op + 2));
  if (literal.size() >= 2 && (literal.front() == '"' || literal.front() == '\''))
    literal = literal.substr(1, literal.size() - 2);
  const json::value* value = relative_value(element, trimmed(filter.substr(1, op - 1)));
  std::string text;
  if (value && value->is_string()) text = std::string(value->as_string());
  if (value && !value->is_string()) text = json::serialize(*value);
  const bool equal = value && text == literal;
  return negated ? !equal : equal;
}

// One bracket step: `[n]`, `[*]`, `['key']`, `[?(...)]`, applied to every current value.
std::vector<const json::value*> bracket_step(const std::vector<const json::value*>& current,
                                             std::string_view inside) {
  std::vector<const json::value*> next;
  for (const auto* value : current) {
    if (inside.starts_with("'") || inside.starts_with("\"")) {
      if (const auto* object = value->if_object())
        if (const auto* found = object->if_contains(inside.substr(1, inside.size() - 2)))
          next.push_back(found);
      continue;
    }
    const auto* array = value->if_array();
    if (!array) continue;
    if (inside == "*") {
      for (const auto& element : *array) next.push_back(&element);
    } else if (inside.starts_with("?(") && inside.ends_with(")")) {
      for (const auto& element : *array)
        if (passes_filter(element, inside.substr(2, inside.size() - 3))) next.push_back(&element);
    } else {
      long index = std::strtol(std::string(inside).c_str(), nullptr, 10);
      if (index < 0) index += static_cast<long>(array->size());
      if (index >= 0 && static_cast<std::size_t>(index) < array->size())
        next.push_back(&(*array)[static_cast<std::size_t>(index)]);
    }
  }
  return next;
}

// A CRD column's cell from the first value its JSONPath selects, typed as the API server types it.
json::value crd_cell(const json::value& object, const json::object& column, Clock::time_point now) {
  const std::string path = jsonkit::string_of(&column, "jsonPath");
  const std::string type = jsonkit::string_of(&column, "type");
  const auto values = json_path_values(object, path);
  if (values.empty() || values.front()->is_null()) return nullptr;
  const json::value& value = *values.front();
  if (type == "string") return value.is_string() ? value : json::value(json::serialize(value));
  if (type == "integer" && value.is_number()) return value.to_number<std::int64_t>();
  if (type == "number" && value.is_number()) return value.to_number<double>();
  if (type == "boolean" && value.is_bool()) return value;
  if (type == "date" && value.is_string())
    return json::value(k8s::parse_rfc3339(value.as_string()) ? age_of(value.as_string(), now)
                                                             : std::string("<invalid>"));
  return nullptr;
}

std::vector<json::value> crd_cells(const json::value& object, const json::array& columns,
                                   Clock::time_point now) {
  std::vector<json::value> cells{json::value(jsonkit::string_at(object, {"metadata", "name"}))};
  for (const auto& column : columns)
    cells.push_back(column.is_object() ? crd_cell(object, column.as_object(), now) : nullptr);
  return cells;
}

std::vector<json::value> default_cells(const json::value& object, const json::array&,
                                       Clock::time_point) {
  return {json::value(jsonkit::string_at(object, {"metadata", "name"})),
          json::value(jsonkit::string_at(object, {"metadata", "creationTimestamp"}))};
}

json::value row_object(const json::value& object, TableRowObject mode) {
  if (mode == TableRowObject::Object) return object;
  json::object partial{{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}};
  if (const auto* meta = jsonkit::object_at(object, {"metadata"})) partial["metadata"] = *meta;
  return partial;
}

}  // namespace

bool accepts_table(std::string_view accept) {
  std::size_t start = 0;
  while (start < accept.size()) {
    std::size_t end = accept.find(',', start);
    if (end == std::string_view::npos) end = accept.size();
    const std::string_view range = accept.substr(start, end - start);
    if (range.find("as=Table") != std::string_view::npos &&
        range.find("g=meta.k8s.io") != std::string_view::npos)
      return true;
    start = end + 1;
  }
  return false;
}

TableRowObject parse_include_object(const std::string& value) {
  if (value.empty() || value == "Metadata") return TableRowObject::Metadata;
  if (value == "None") return TableRowObject::None;
  if (value == "Object") return TableRowObject::Object;
  throw bad_request("includeObject: Unsupported value: \"" + value +
                    "\": supported values: \"Metadata\", \"None\", \"Object\"");
}

json::object column(std::string_view name, std::string_view type, std::string_view description,
                    std::int64_t priority, std::string_view format) {
  return json::object{{"name", name},
                      {"type", type},
                      {"format", format},
                      {"description", description},
                      {"priority", priority}};
}

std::string human_duration(std::chrono::nanoseconds elapsed) {
  using std::chrono::duration_cast;
  const auto seconds = duration_cast<std::chrono::seconds>(elapsed).count();
  auto text = [](const char* format, long long a, long long b = 0) {
    char out[32];
    std::snprintf(out, sizeof out, format, a, b);
    return std::string(out);
  };
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return text("%llds", seconds);
  const long long minutes = seconds / 60;
  if (minutes < 10)
    return seconds % 60 == 0 ? text("%lldm", minutes) : text("%lldm%llds", minutes, seconds % 60);
  if (minutes < 60 * 3) return text("%lldm", minutes);
  const long long hours = minutes / 60;
  if (hours < 8)
    return minutes % 60 == 0 ? text("%lldh", hours) : text("%lldh%lldm", hours, minutes % 60);
  if (hours < 48) return text("%lldh", hours);
  if (hours < 24 * 8)
    return hours % 24 == 0 ? text("%lldd", hours / 24) : text("%lldd%lldh", hours / 24, hours % 24);
  if (hours < 24 * 365 * 2) return text("%lldd", hours / 24);
  if (hours < 24 * 365 * 8) {
    const long long days = (hours / 24) % 365;
    return days == 0 ? text("%lldy", hours / 24 / 365) : text("%lldy%lldd", hours / 24 / 365, days);
  }
  return text("%lldy", hours / 24 / 365);
}

std::string age_of(std::string_view rfc3339, Clock::time_point now) {
  const auto time = rfc3339.empty() ? std::nullopt : k8s::parse_rfc3339(rfc3339);
  if (!time) return "<unknown>";
  return human_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(now - *time));
}

std::vector<const json::value*> json_path_values(const json::value& root, std::string_view path) {
  if (path.starts_with("{") && path.ends_with("}")) path = path.substr(1, path.size() - 2);
  std::vector<const json::value*> current{&root};
  std::size_t at = 0;
  while (at < path.size() && !current.empty()) {
    if (path[at] == '[') {
      const std::size_t close = path.find(']', at);
      if (close == std::string_view::npos) return {};
      current = bracket_step(current, path.substr(at + 1, close - at - 1));
      at = close + 1;
    } else if (path[at] == '.') {
      const std::size_t end = std::min(path.find('.', at + 1), path.find('[', at + 1));
      const std::string_view key =
          path.substr(at + 1, (end == std::string_view::npos ? path.size() : end) - at - 1);
      std::vector<const json::value*> next;
      for (const auto* value : current)
        if (const auto* object = value->if_object())
          if (const auto* found = object->if_contains(key)) next.push_back(found);
      current = std::move(next);
      at = end == std::string_view::npos ? path.size() : end;
    } else {
      return {};
    }
  }
  return current;
}

TableColumns table_columns(const ResourceInfo& info) {
  if (!info.crd_name.empty()) {
    json::array definitions{column("Name", "string", kNameDescription, 0, "name")};
    for (const auto& printer : info.printer_columns) {
      const auto* spec = printer.if_object();
      if (!spec) continue;
      definitions.push_back(column(jsonkit::string_of(spec, "name"),
                                   jsonkit::string_of(spec, "type"),
                                   jsonkit::string_of(spec, "description"),
                                   spec->contains("priority") && (*spec).at("priority").is_int64()
                                       ? (*spec).at("priority").as_int64()
                                       : 0,
                                   jsonkit::string_of(spec, "format")));
    }
    return {std::move(definitions), crd_cells};
  }
  if (auto builtin = builtin_table_columns(info)) return *builtin;
  return {json::array{column("Name", "string", kNameDescription, 0, "name"),
                      column("Created At", "date",
                             "CreationTimestamp is a timestamp representing the server time when "
                             "this object was created.")},
          default_cells};
}

json::value make_table(const ResourceInfo& info, const std::vector<json::value>& items,
                       json::object list_metadata, TableRowObject row_object_mode,
                       Clock::time_point now) {
  TableColumns columns = table_columns(info);
  json::array crd_columns = info.printer_columns;
  if (!info.crd_name.empty() && crd_columns.empty()) {  // the API server's default for a CRD
    crd_columns.push_back(json::object{
        {"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}});
    columns.definitions.push_back(column("Age", "date",
                                         "CreationTimestamp is a timestamp representing the "
                                         "server time when this object was created."));
  }
  json::array rows;
  for (const auto& item : items) {
    json::array cells;
    for (auto& cell : columns.cells(item, crd_columns, now)) cells.push_back(std::move(cell));
    json::object row{{"cells", std::move(cells)}};
    if (row_object_mode != TableRowObject::None) row["object"] = row_object(item, row_object_mode);
    rows.push_back(std::move(row));
  }
  return json::object{{"kind", "Table"},
                      {"apiVersion", "meta.k8s.io/v1"},
                      {"metadata", std::move(list_metadata)},
                      {"columnDefinitions", std::move(columns.definitions)},
                      {"rows", std::move(rows)}};
}

}  // namespace nvcre::sim
