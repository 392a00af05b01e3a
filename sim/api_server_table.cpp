// Server-side printing of GET answers and watch events (sim/table.hpp).
#include "sim/api_server.hpp"

#include "jsonkit/paths.hpp"
#include "sim/table.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

HttpResponse ApiServer::as_table(const HttpRequest& request, const ResourceInfo& info,
                                 HttpResponse response, const std::shared_ptr<WatchStream>& watch) {
  auto include = request.query.find("includeObject");
  const TableRowObject row_object =
      parse_include_object(include == request.query.end() ? std::string() : include->second);
  if (watch) {
    // Each event's object becomes a one-row Table; bookmarks (no name) stay as they are.
    auto to_table = [this, info, row_object](const json::value& object) -> json::value {
      if (jsonkit::string_at(object, {"metadata", "name"}).empty()) return object;
      json::object meta{
          {"resourceVersion", jsonkit::string_at(object, {"metadata", "resourceVersion"})}};
      return make_table(info, {object}, std::move(meta), row_object, store_.now());
    };
    watch->initial = present_watch_lines(watch->initial, to_table);
    if (auto before = watch->present)
      watch->present = [before, to_table](const json::value& object) {
        return to_table(before(object));
      };
    else
      watch->present = to_table;
    return response;
  }
  if (response.status != 200) return response;
  boost::system::error_code ec;
  json::value body = json::parse(response.body, ec);
  if (ec || !body.is_object()) return response;
  const std::string kind = jsonkit::string_at(body, {"kind"});
  if (kind == "Status") return response;
  std::vector<json::value> items;
  json::object meta;
  if (kind.ends_with("List") && body.as_object().contains("items")) {
    if (const auto* list_meta = jsonkit::object_at(body, {"metadata"})) meta = *list_meta;
    for (auto& item : body.as_object()["items"].as_array()) items.push_back(std::move(item));
  } else {
    meta["resourceVersion"] = jsonkit::string_at(body, {"metadata", "resourceVersion"});
    items.push_back(std::move(body));
  }
  response.body =
      json::serialize(make_table(info, items, std::move(meta), row_object, store_.now()));
  return response;
}

}  // namespace nvcre::sim
