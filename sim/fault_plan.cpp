#include "sim/fault_plan.hpp"
#include "sim/query_params.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::sim {

namespace json = boost::json;

const char* to_string(Verb verb) {
  switch (verb) {
    case Verb::Get:
      return "get";
    case Verb::List:
      return "list";
    case Verb::Create:
      return "create";
    case Verb::Update:
      return "update";
    case Verb::Patch:
      return "patch";
    case Verb::Delete:
      return "delete";
    case Verb::Watch:
      return "watch";
  }
  return "unknown";
}

std::optional<Verb> parse_verb(std::string_view text) {
  for (Verb verb : kAllVerbs)
    if (text == to_string(verb)) return verb;
  return std::nullopt;
}

std::optional<RequestTarget> classify_request(const std::string& method, const std::string& path,
                                              const std::map<std::string, std::string>& query) {
  std::vector<std::string> segments;
  for (std::size_t start = 0; start < path.size();) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) segments.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  RequestTarget target;
  std::size_t i = 0;
  if (segments.size() >= 3 && segments[0] == "api") {
    i = 2;
  } else if (segments.size() >= 4 && segments[0] == "apis") {
    target.group = segments[1];
    i = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(segments.begin() + static_cast<std::ptrdiff_t>(i), segments.end());
  if (rest.size() >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize") {
    target.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  target.resource = rest[0];
  if (rest.size() > 1) target.name = rest[1];
  if (rest.size() > 2) target.subresource = rest[2];
  const bool watching = query_flag(query, "watch");
  if (method == "GET") {
    target.verb = target.name.empty() ? (watching ? Verb::Watch : Verb::List) : Verb::Get;
  } else if (method == "POST") {
    target.verb = Verb::Create;
  } else if (method == "PUT") {
    target.verb = Verb::Update;
  } else if (method == "PATCH") {
    target.verb = Verb::Patch;
  } else if (method == "DELETE") {
    target.verb = Verb::Delete;
  } else {
    return std::nullopt;
  }
  return target;
}

const VerbFaults* FaultPlan::for_verb(Verb verb) const {
  if (auto it = verbs.find(to_string(verb)); it != verbs.end()) return &it->second;
  if (auto it = verbs.find("*"); it != verbs.end()) return &it->second;
  return nullptr;
}

namespace {

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw std::invalid_argument("fault plan: " + field + ": " + what);
}

double number(const json::value& value, const std::string& field) {
  if (!value.is_number()) bad(field, "must be a number");
  return value.to_number<double>();
}

double rate(const json::value& value, const std::string& field) {
  double r = number(value, field);
  if (r < 0 || r > 1) bad(field, "must be between 0 and 1");
  return r;
}

int non_negative_int(const json::value& value, const std::string& field) {
  double n = number(value, field);
  if (n < 0 || n != static_cast<double>(static_cast<long long>(n)) || n > 86400000)
    bad(field, "must be a non-negative integer");
  return static_cast<int>(n);
}

const json::object& object(const json::value& value, const std::string& field) {
  if (!value.is_object()) bad(field, "must be a mapping");
  return value.as_object();
}

// The target keys shared by error rules and latency (resource, namespace, name): false when `key`
// is not one of them.
bool parse_target_key(json::string_view key, const json::value& value, const std::string& field,
                      TargetFilter& target) {
  if (key != "resource" && key != "namespace" && key != "name") return false;
  const std::string f = field + "." + std::string(key);
  if (!value.is_string() || value.as_string().empty()) bad(f, "must be a non-empty string");
  (key == "resource"    ? target.resource
   : key == "namespace" ? target.ns
                        : target.name) = std::string(value.as_string());
  return true;
}

VerbFaults parse_verb_faults(const json::value& value, const std::string& field, bool watch) {
  VerbFaults faults;
  for (const auto& [key, v] : object(value, field)) {
    const std::string f = field + "." + std::string(key);
    if (key == "errors") {
      if (!v.is_array()) bad(f, "must be a list");
      double total = 0;
      for (std::size_t i = 0; i < v.as_array().size(); ++i) {
        const std::string fi = f + "[" + std::to_string(i) + "]";
        ErrorRule rule;
        bool has_code = false;
        for (const auto& [k, e] : object(v.as_array()[i], fi)) {
          if (k == "code") {
            rule.code = non_negative_int(e, fi + ".code");
            has_code = true;
          } else if (k == "rate") {
            rule.rate = rate(e, fi + ".rate");
          } else if (k == "retryAfterSeconds") {
            rule.retry_after_seconds = non_negative_int(e, fi + ".retryAfterSeconds");
          } else if (!parse_target_key(k, e, fi, rule.target)) {
            bad(fi + "." + std::string(k), "unknown field");
          }
        }
        if (!has_code) bad(fi + ".code", "required");
        if (rule.code < 400 || rule.code > 599) bad(fi + ".code", "must be a 4xx or 5xx code");
        if (rule.code == 429 && rule.retry_after_seconds == 0) rule.retry_after_seconds = 1;
        // Rules for different objects may each be certain; rules for every request share one draw.
        if (rule.target.any()) total += rule.rate;
        faults.errors.push_back(rule);
      }
      if (total > 1 + 1e-9) bad(f, "rates add up to more than 1");
    } else if (key == "latency") {
      for (const auto& [k, l] : object(v, f)) {
        if (k == "fixedMs") {
          faults.latency_fixed = std::chrono::milliseconds(non_negative_int(l, f + ".fixedMs"));
        } else if (k == "jitterMs") {
          faults.latency_jitter = std::chrono::milliseconds(non_negative_int(l, f + ".jitterMs"));
        } else if (!parse_target_key(k, l, f, faults.latency_target)) {
          bad(f + "." + std::string(k), "unknown field");
        }
      }
    } else if (watch && key == "forceGoneRate") {
      faults.watch_gone_rate = rate(v, f);
    } else if (watch && key == "dropEverySeconds") {
      faults.watch_drop_seconds = non_negative_int(v, f);
    } else {
      bad(f, watch ? "unknown field"
                   : "unknown field (forceGoneRate and dropEverySeconds are for watch)");
    }
  }
  return faults;
}

}  // namespace

FaultPlan parse_fault_plan(std::string_view text) {
  json::value doc;
  try {
    doc = jsonkit::parse_yaml(text);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("fault plan: not YAML or JSON: ") + e.what());
  }
  FaultPlan plan;
  if (doc.is_null()) return plan;
  for (const auto& [key, value] : object(doc, "plan")) {
    if (key == "seed") {
      if (value.is_uint64()) {
        plan.seed = value.as_uint64();
      } else if (value.is_int64() && value.as_int64() >= 0) {
        plan.seed = static_cast<std::uint64_t>(value.as_int64());
      } else {
        bad("seed", "must be a non-negative integer");
      }
    } else if (key == "verbs") {
      for (const auto& [verb, faults] : object(value, "verbs")) {
        const std::string name(verb);
        auto parsed = parse_verb(name);
        if (!parsed && name != "*")
          bad("verbs." + name, "unknown verb (get, list, create, update, patch, delete, watch, *)");
        plan.verbs[name] =
            parse_verb_faults(faults, "verbs." + name, name == "*" || parsed == Verb::Watch);
      }
    } else {
      bad(std::string(key), "unknown field");
    }
  }
  return plan;
}

namespace {

void add_target(json::object& out, const TargetFilter& target) {
  if (!target.resource.empty()) out["resource"] = target.resource;
  if (!target.ns.empty()) out["namespace"] = target.ns;
  if (!target.name.empty()) out["name"] = target.name;
}

}  // namespace

json::value to_json(const FaultPlan& plan) {
  json::object verbs;
  for (const auto& [name, faults] : plan.verbs) {
    json::object v;
    json::array errors;
    for (const auto& rule : faults.errors) {
      json::object e{{"code", rule.code}, {"rate", rule.rate}};
      if (rule.retry_after_seconds > 0) e["retryAfterSeconds"] = rule.retry_after_seconds;
      add_target(e, rule.target);
      errors.push_back(std::move(e));
    }
    if (!errors.empty()) v["errors"] = std::move(errors);
    if (faults.latency_fixed.count() || faults.latency_jitter.count()) {
      json::object latency{{"fixedMs", faults.latency_fixed.count()},
                           {"jitterMs", faults.latency_jitter.count()}};
      add_target(latency, faults.latency_target);
      v["latency"] = std::move(latency);
    }
    if (faults.watch_gone_rate > 0) v["forceGoneRate"] = faults.watch_gone_rate;
    if (faults.watch_drop_seconds > 0) v["dropEverySeconds"] = faults.watch_drop_seconds;
    verbs[name] = std::move(v);
  }
  return json::object{{"seed", plan.seed}, {"verbs", std::move(verbs)}};
}

ApiError injected_error(const ErrorRule& rule, const RequestTarget& target) {
  const std::string what = std::string(to_string(target.verb)) + " " +
                           qualified_resource(target.resource, target.group) +
                           (target.name.empty() ? std::string() : " \"" + target.name + "\"");
  ApiError error(500, "InternalError", "");
  switch (rule.code) {
    case 503:
      error = ApiError(
          503, "ServiceUnavailable",
          "the server is currently unable to handle the request (kube-sim fault injection: " +
              what + ")");
      break;
    case 409:
      error = ApiError(409, "Conflict",
                       "Operation cannot be fulfilled on " +
                           qualified_resource(target.resource, target.group) + " \"" + target.name +
                           "\": the object has been modified; please apply your changes to the "
                           "latest version and "
                           "try again (kube-sim fault injection)");
      error.name = target.name;
      error.group = target.group;
      error.kind = target.resource;
      break;
    case 429:
      error = ApiError(
          429, "TooManyRequests",
          "Too many requests, please try again later. (kube-sim fault injection: " + what + ")");
      break;
    case 500:
      error = ApiError(500, "InternalError",
                       "Internal error occurred: kube-sim fault injection: " + what);
      break;
    default: {
      // Any other code, with the Status reason an API server gives it.
      static const std::map<int, std::string> reasons{{400, "BadRequest"},
                                                      {401, "Unauthorized"},
                                                      {403, "Forbidden"},
                                                      {404, "NotFound"},
                                                      {405, "MethodNotAllowed"},
                                                      {408, "Timeout"},
                                                      {410, "Expired"},
                                                      {413, "RequestEntityTooLarge"},
                                                      {415, "UnsupportedMediaType"},
                                                      {422, "Invalid"},
                                                      {504, "Timeout"}};
      const auto known = reasons.find(rule.code);
      error = ApiError(rule.code, known == reasons.end() ? "Unknown" : known->second,
                       qualified_resource(target.resource, target.group) +
                           (target.name.empty() ? std::string() : " \"" + target.name + "\"") +
                           " refused (kube-sim fault injection: " + what + ")");
      error.name = target.name;
      error.group = target.group;
      error.kind = target.resource;
      break;
    }
  }
  error.retry_after_seconds = rule.retry_after_seconds;
  return error;
}

void FaultInjector::set_plan(FaultPlan plan) {
  std::lock_guard lock(mutex_);
  plan_ = std::move(plan);
  rng_.seed(plan_.seed ? plan_.seed : std::random_device{}());
}

FaultPlan FaultInjector::plan() const {
  std::lock_guard lock(mutex_);
  return plan_;
}

void FaultInjector::reset_counters() {
  std::lock_guard lock(mutex_);
  counters_.clear();
}

FaultDecision FaultInjector::decide(const RequestTarget& target) {
  std::lock_guard lock(mutex_);
  FaultDecision decision;
  const VerbFaults* faults = plan_.for_verb(target.verb);
  if (!faults) return decision;
  const char* verb = to_string(target.verb);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  if (!faults->errors.empty()) {
    const double draw = unit(rng_);
    double cumulative = 0;
    for (const auto& rule : faults->errors) {
      if (!rule.applies_to(target)) continue;
      cumulative += rule.rate;
      if (rule.rate > 0 && draw < cumulative) {
        decision.error = injected_error(rule, target);
        ++counters_[decision.error->reason][verb];
        break;
      }
    }
  }
  if ((faults->latency_fixed.count() > 0 || faults->latency_jitter.count() > 0) &&
      faults->latency_target.applies_to(target)) {
    auto jitter = faults->latency_jitter.count() > 0 ? std::uniform_int_distribution<long long>(
                                                           0, faults->latency_jitter.count())(rng_)
                                                     : 0LL;
    decision.delay = faults->latency_fixed + std::chrono::milliseconds(jitter);
    ++counters_["Latency"][verb];
  }
  if (target.verb == Verb::Watch && !decision.error) {
    if (faults->watch_gone_rate > 0 && unit(rng_) < faults->watch_gone_rate) {
      decision.watch_gone = true;
      ++counters_["WatchGone"][verb];
    }
    if (faults->watch_drop_seconds > 0)
      decision.watch_drop_after = std::chrono::seconds(faults->watch_drop_seconds);
  }
  return decision;
}

void FaultInjector::count(const std::string& kind, Verb verb) {
  std::lock_guard lock(mutex_);
  ++counters_[kind][to_string(verb)];
}

std::uint64_t FaultInjector::counter(const std::string& kind, Verb verb) const {
  std::lock_guard lock(mutex_);
  auto k = counters_.find(kind);
  if (k == counters_.end()) return 0;
  auto v = k->second.find(to_string(verb));
  return v == k->second.end() ? 0 : v->second;
}

std::uint64_t FaultInjector::total() const {
  std::lock_guard lock(mutex_);
  std::uint64_t sum = 0;
  for (const auto& [kind, verbs] : counters_)
    for (const auto& [verb, n] : verbs) sum += n;
  return sum;
}

json::value FaultInjector::report() const {
  json::object counters;
  std::uint64_t sum = 0;
  FaultPlan plan;
  {
    std::lock_guard lock(mutex_);
    plan = plan_;
    for (const auto& [kind, verbs] : counters_) {
      json::object per_verb;
      for (const auto& [verb, n] : verbs) {
        per_verb[verb] = n;
        sum += n;
      }
      counters[kind] = std::move(per_verb);
    }
  }
  return json::object{{"plan", to_json(plan)}, {"counters", std::move(counters)}, {"total", sum}};
}

}  // namespace nvcre::sim
