#include "k8s/object_gauges.hpp"

#include "k8s/packed_fields.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace nvcre::k8s {
namespace {

struct FamilyInfo {
  std::string name;
  std::string help;
  bool counter = false;
};

// Gauge and counter families, by name: a Stored's family is an index into it.
const std::vector<FamilyInfo>& families() {
  static const std::vector<FamilyInfo> all = [] {
    std::vector<FamilyInfo> out;
    for (const auto& [name, help] : object_gauge_families()) out.push_back({name, help, false});
    for (const auto& [name, help] : object_counter_families()) out.push_back({name, help, true});
    std::sort(out.begin(), out.end(),
              [](const FamilyInfo& a, const FamilyInfo& b) { return a.name < b.name; });
    return out;
  }();
  return all;
}

std::uint16_t family_index(const std::string& name) {
  const auto& all = families();
  auto found =
      std::lower_bound(all.begin(), all.end(), name,
                       [](const FamilyInfo& f, const std::string& n) { return f.name < n; });
  if (found == all.end() || found->name != name)
    throw std::invalid_argument("unknown object gauge family " + name);
  return static_cast<std::uint16_t>(found - all.begin());
}

std::string pack_labels(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [name, value] : labels) {
    append_field(out, name);
    append_field(out, value);
  }
  out.shrink_to_fit();
  return out;
}

}  // namespace

void ObjectGauges::replace(const std::string& object_key, const std::vector<GaugeSample>& samples) {
  std::vector<Stored> current;
  current.reserve(samples.size());
  for (const auto& sample : samples) {
    current.push_back({pack_labels(sample.labels), sample.value, family_index(sample.name)});
  }
  auto previous = by_object_.find(object_key);
  if (used_.empty()) used_.resize(families().size());
  for (auto& stored : current) {
    used_[stored.family] = true;
    if (!families()[stored.family].counter || previous == by_object_.end()) continue;
    // A counter only grows while its object lives.
    for (const auto& old : previous->second) {
      if (old.family == stored.family && old.labels == stored.labels)
        stored.value = std::max(stored.value, old.value);
    }
  }
  if (current.empty()) {
    if (previous != by_object_.end()) by_object_.erase(previous);
  } else if (previous == by_object_.end()) {
    by_object_.emplace(object_key, std::move(current));
  } else {
    previous->second = std::move(current);
  }
}

std::vector<prometheus::MetricFamily> ObjectGauges::collect() const {
  const auto& all = families();
  std::vector<prometheus::MetricFamily> by_family(all.size());
  std::set<std::pair<std::uint16_t, std::string_view>> exposed;
  for (const auto& [key, stored] : by_object_) {
    for (const auto& series : stored) {
      if (!exposed.emplace(series.family, series.labels).second) continue;
      prometheus::ClientMetric metric;
      for (std::size_t at = 0; at < series.labels.size();) {
        std::string name(next_field(series.labels, at));
        metric.label.push_back({std::move(name), std::string(next_field(series.labels, at))});
      }
      if (all[series.family].counter) {
        metric.counter.value = series.value;
      } else {
        metric.gauge.value = series.value;
      }
      by_family[series.family].metric.push_back(std::move(metric));
    }
  }
  std::vector<prometheus::MetricFamily> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i >= used_.size() || !used_[i]) continue;
    auto& family = by_family[i];
    family.name = all[i].name;
    family.help = all[i].help;
    family.type = all[i].counter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge;
    out.push_back(std::move(family));
  }
  return out;
}

std::size_t ObjectGauges::series() const {
  std::size_t n = 0;
  for (const auto& [key, stored] : by_object_) n += stored.size();
  return n;
}

}  // namespace nvcre::k8s
