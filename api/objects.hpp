#pragma once
// Whole nvcre.nvidia.com/v1alpha1 objects: typed decode with apiVersion/kind checks, encode, and a
// variant over every kind of the group for input whose kind is only known at run time.
#include "api/certification.hpp"
#include "api/codec.hpp"
#include "api/job.hpp"
#include "api/measurement.hpp"
#include "api/meta.hpp"
#include "api/report_export.hpp"
#include "api/workflow.hpp"
#include "api/workloadrun.hpp"

#include <boost/json/value.hpp>

#include <concepts>
#include <string_view>
#include <variant>

namespace nvcre::api {

template <class T>
concept ObjectKind = std::same_as<T, Certification> || std::same_as<T, WorkloadRun> ||
    std::same_as<T, Workflow> || std::same_as<T, Job> || std::same_as<T, GoodputMeasurement> ||
    std::same_as<T, BandwidthMeasurement> || std::same_as<T, LogProfile> ||
    std::same_as<T, ReportExportPolicy>;

using AnyObject = std::variant<Certification, WorkloadRun, Workflow, Job, GoodputMeasurement,
                               BandwidthMeasurement, LogProfile, ReportExportPolicy>;

// Decodes one object of kind `Kind`. Throws DecodeError when the input is not an object, when
// `kind` is not Kind::kKind (`kind: expected kind WorkloadRun, got "Workflow"`), when `apiVersion`
// is not kApiVersion (`apiVersion: unsupported apiVersion "x" for kind Certification: expected
// nvcre.nvidia.com/v1alpha1`) -- in those cases nothing else is decoded -- and otherwise with every
// problem the typed decode finds (unknown fields, wrong types), each with its path.
template <ObjectKind Kind>
Kind decode_object(const boost::json::value& in);

// Encodes an object; apiVersion and kind are always written as kApiVersion and Kind::kKind (first,
// in that order), whatever the members hold, so programmatically built objects need not set them.
template <ObjectKind Kind>
boost::json::value encode_object(const Kind& object);

// Dispatches on `kind`; an unsupported or missing kind is a DecodeError naming the supported ones.
AnyObject decode_any_object(const boost::json::value& in);
boost::json::value encode_any_object(const AnyObject& object);

std::string_view kind_of(const AnyObject& object);
const ObjectMeta& metadata_of(const AnyObject& object);

extern template Certification decode_object<Certification>(const boost::json::value&);
extern template WorkloadRun decode_object<WorkloadRun>(const boost::json::value&);
extern template Workflow decode_object<Workflow>(const boost::json::value&);
extern template Job decode_object<Job>(const boost::json::value&);
extern template GoodputMeasurement decode_object<GoodputMeasurement>(const boost::json::value&);
extern template BandwidthMeasurement decode_object<BandwidthMeasurement>(const boost::json::value&);
extern template LogProfile decode_object<LogProfile>(const boost::json::value&);
extern template boost::json::value encode_object<Certification>(const Certification&);
extern template boost::json::value encode_object<WorkloadRun>(const WorkloadRun&);
extern template boost::json::value encode_object<Workflow>(const Workflow&);
extern template boost::json::value encode_object<Job>(const Job&);
extern template boost::json::value encode_object<GoodputMeasurement>(const GoodputMeasurement&);
extern template boost::json::value encode_object<BandwidthMeasurement>(const BandwidthMeasurement&);
extern template boost::json::value encode_object<LogProfile>(const LogProfile&);

}  // namespace nvcre::api
