#pragma once
// ReportExportPolicy (nvcre.nvidia.com/v1alpha1, namespaced, no status): an administrator's
// standing subscription that sends the final report of every Certification it selects to one
// webhook. nvcre admits, validates and serves it as NVCRE's API server does; no controller delivers
// reports yet.
#include "api/codec.hpp"
#include "api/common_types.hpp"
#include "api/meta.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// metav1.LabelSelector; its requirements have NodeSelectorRequirement's shape.
struct LabelSelector {
  std::map<std::string, std::string> matchLabels{};
  std::vector<NodeSelectorRequirement> matchExpressions{};
  bool operator==(const LabelSelector&) const = default;
};
BOOST_DESCRIBE_STRUCT(LabelSelector, (), (matchLabels, matchExpressions))

struct ReportExportSourceSelector {
  std::string kind{};                     // only Certification (the CRD default)
  std::vector<std::string> namespaces{};  // 1..64, a set
  std::optional<LabelSelector> selector{};

  static constexpr std::string_view json_always_encoded[] = {"namespaces"};
  bool operator==(const ReportExportSourceSelector&) const = default;
};
BOOST_DESCRIBE_STRUCT(ReportExportSourceSelector, (), (kind, namespaces, selector))

// core/v1 SecretKeySelector.
struct SecretKeySelector {
  std::string name{};
  std::string key{};
  std::optional<bool> optional{};

  static constexpr std::string_view json_always_encoded[] = {"key"};
  bool operator==(const SecretKeySelector&) const = default;
};
BOOST_DESCRIBE_STRUCT(SecretKeySelector, (), (name, key, optional))

struct ReportWebhook {
  std::string url{};
  std::optional<SecretKeySelector> bearerTokenSecretRef{};
  std::string timeout{};  // Go duration, 1s..5m, default 10s

  static constexpr std::string_view json_always_encoded[] = {"url"};
  bool operator==(const ReportWebhook&) const = default;
};
BOOST_DESCRIBE_STRUCT(ReportWebhook, (), (url, bearerTokenSecretRef, timeout))

// Go durations, each bounded by a CRD rule; maxBackoff never below initialBackoff.
struct ReportExportRetry {
  std::string initialBackoff{};               // default 10s
  std::string maxBackoff{};                   // default 15m
  std::optional<std::int32_t> maxAttempts{};  // default 100, the first attempt included
  std::string maxElapsedTime{};               // default 24h
  bool operator==(const ReportExportRetry&) const = default;
};
BOOST_DESCRIBE_STRUCT(ReportExportRetry, (),
                      (initialBackoff, maxBackoff, maxAttempts, maxElapsedTime))

struct ReportExportRetention {
  std::string succeeded{};  // default 168h
  std::string failed{};     // default 720h
  bool operator==(const ReportExportRetention&) const = default;
};
BOOST_DESCRIBE_STRUCT(ReportExportRetention, (), (succeeded, failed))

struct ReportExportPolicySpec {
  ReportExportSourceSelector source{};
  ReportWebhook webhook{};
  std::optional<ReportExportRetry> retry{};
  std::optional<ReportExportRetention> retention{};
  std::optional<bool> suspend{};  // stops new registrations; registered exports go on

  static constexpr std::string_view json_always_encoded[] = {"source", "webhook"};
  bool operator==(const ReportExportPolicySpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(ReportExportPolicySpec, (), (source, webhook, retry, retention, suspend))

struct ReportExportPolicy {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  ReportExportPolicySpec spec{};

  static constexpr std::string_view kKind = "ReportExportPolicy";
  bool operator==(const ReportExportPolicy&) const = default;
};
BOOST_DESCRIBE_STRUCT(ReportExportPolicy, (), (apiVersion, kind, metadata, spec))

}  // namespace nvcre::api
