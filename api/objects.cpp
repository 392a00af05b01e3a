#include "api/objects.hpp"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace nvcre::api {

namespace {

constexpr std::string_view kSupportedKinds =
    "Certification, WorkloadRun, Workflow, Job, GoodputMeasurement, BandwidthMeasurement, "
    "LogProfile, ReportExportPolicy";

const boost::json::object& require_object(const boost::json::value& in) {
  if (!in.is_object()) {
    throw DecodeError({{"", "expected object, got " + std::string(json_type_name(in))}});
  }
  return in.get_object();
}

// The value of a type-meta key: nullptr when absent or null; a problem when not a string.
const boost::json::string* type_meta_string(const boost::json::object& object, std::string_view key,
                                            std::vector<DecodeProblem>& problems) {
  const boost::json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return nullptr;
  if (!value->is_string()) {
    problems.push_back(
        {std::string(key), "expected string, got " + std::string(json_type_name(*value))});
    return nullptr;
  }
  return &value->get_string();
}

void check_type_meta(const boost::json::value& in, std::string_view expected_kind) {
  const auto& object = require_object(in);
  const std::string expected(expected_kind);
  std::vector<DecodeProblem> problems;

  std::size_t reported = problems.size();
  if (const auto* kind = type_meta_string(object, "kind", problems)) {
    if (*kind != expected_kind) {
      problems.push_back(
          {"kind", "expected kind " + expected + ", got \"" + std::string(*kind) + "\""});
    }
  } else if (problems.size() == reported) {
    problems.push_back({"kind", "missing kind: expected " + expected});
  }

  reported = problems.size();
  if (const auto* version = type_meta_string(object, "apiVersion", problems)) {
    if (*version != kApiVersion) {
      problems.push_back({"apiVersion", "unsupported apiVersion \"" + std::string(*version) +
                                            "\" for kind " + expected + ": expected " +
                                            std::string(kApiVersion)});
    }
  } else if (problems.size() == reported) {
    problems.push_back({"apiVersion", "missing apiVersion for kind " + expected + ": expected " +
                                          std::string(kApiVersion)});
  }

  if (!problems.empty()) throw DecodeError(std::move(problems));
}

}  // namespace

template <ObjectKind Kind>
Kind decode_object(const boost::json::value& in) {
  check_type_meta(in, Kind::kKind);
  return decode<Kind>(in);
}

template <ObjectKind Kind>
boost::json::value encode_object(const Kind& object) {
  boost::json::object encoded = encode(object).as_object();
  boost::json::object out;
  out.reserve(encoded.size() + 2);
  out.emplace("apiVersion", kApiVersion);
  out.emplace("kind", Kind::kKind);
  for (auto& entry : encoded) {
    if (entry.key() == "apiVersion" || entry.key() == "kind") continue;
    out.emplace(entry.key(), std::move(entry.value()));
  }
  return out;
}

template Certification decode_object<Certification>(const boost::json::value&);
template WorkloadRun decode_object<WorkloadRun>(const boost::json::value&);
template Workflow decode_object<Workflow>(const boost::json::value&);
template Job decode_object<Job>(const boost::json::value&);
template GoodputMeasurement decode_object<GoodputMeasurement>(const boost::json::value&);
template BandwidthMeasurement decode_object<BandwidthMeasurement>(const boost::json::value&);
template LogProfile decode_object<LogProfile>(const boost::json::value&);
template ReportExportPolicy decode_object<ReportExportPolicy>(const boost::json::value&);
template boost::json::value encode_object<Certification>(const Certification&);
template boost::json::value encode_object<WorkloadRun>(const WorkloadRun&);
template boost::json::value encode_object<Workflow>(const Workflow&);
template boost::json::value encode_object<Job>(const Job&);
template boost::json::value encode_object<GoodputMeasurement>(const GoodputMeasurement&);
template boost::json::value encode_object<BandwidthMeasurement>(const BandwidthMeasurement&);
template boost::json::value encode_object<LogProfile>(const LogProfile&);
template boost::json::value encode_object<ReportExportPolicy>(const ReportExportPolicy&);

AnyObject decode_any_object(const boost::json::value& in) {
  const auto& object = require_object(in);
  std::vector<DecodeProblem> problems;
  const auto* kind = type_meta_string(object, "kind", problems);
  if (!problems.empty()) throw DecodeError(std::move(problems));
  if (kind == nullptr) {
    throw DecodeError({{"kind", "missing kind: expected one of " + std::string(kSupportedKinds)}});
  }
  if (*kind == Certification::kKind) return decode_object<Certification>(in);
  if (*kind == WorkloadRun::kKind) return decode_object<WorkloadRun>(in);
  if (*kind == Workflow::kKind) return decode_object<Workflow>(in);
  if (*kind == Job::kKind) return decode_object<Job>(in);
  if (*kind == GoodputMeasurement::kKind) return decode_object<GoodputMeasurement>(in);
  if (*kind == BandwidthMeasurement::kKind) return decode_object<BandwidthMeasurement>(in);
  if (*kind == LogProfile::kKind) return decode_object<LogProfile>(in);
  if (*kind == ReportExportPolicy::kKind) return decode_object<ReportExportPolicy>(in);
  throw DecodeError({{"kind", "unsupported kind \"" + std::string(*kind) + "\": expected one of " +
                                  std::string(kSupportedKinds)}});
}

boost::json::value encode_any_object(const AnyObject& object) {
  return std::visit([](const auto& typed) { return encode_object(typed); }, object);
}

std::string_view kind_of(const AnyObject& object) {
  return std::visit(
      [](const auto& typed) -> std::string_view { return std::decay_t<decltype(typed)>::kKind; },
      object);
}

const ObjectMeta& metadata_of(const AnyObject& object) {
  return std::visit([](const auto& typed) -> const ObjectMeta& { return typed.metadata; }, object);
}

}  // namespace nvcre::api
