#include "certification/options.hpp"

#include <boost/describe.hpp>
#include <boost/mp11/algorithm.hpp>

namespace nvcre::certification {
namespace {

template <class T>
bool is_set(const T& value) {
  if constexpr (requires { value.has_value(); }) {
    return value.has_value();
  } else {
    return !value.empty();  // strings, lists and maps
  }
}

}  // namespace

api::CategoryOptions merge_category_options(const api::CategoryOptions& global,
                                            const api::CategoryOptions& per_category) {
  api::CategoryOptions merged = global;
  using Members =
      boost::describe::describe_members<api::CategoryOptions, boost::describe::mod_public>;
  boost::mp11::mp_for_each<Members>([&](auto member) {
    const auto& override_value = per_category.*member.pointer;
    if (is_set(override_value)) merged.*member.pointer = override_value;
  });
  // Labels merge per key; every other workloadMetadata field (none today) follows the rule above.
  if (global.workloadMetadata && per_category.workloadMetadata) {
    auto labels = global.workloadMetadata->labels;
    for (const auto& [key, value] : per_category.workloadMetadata->labels) labels[key] = value;
    merged.workloadMetadata->labels = std::move(labels);
  }
  return merged;
}

api::CategoryOptions resolved_options(const api::CertificationSpec& spec,
                                      const api::CertificateCategory& category) {
  return category.options ? merge_category_options(spec.options, *category.options) : spec.options;
}

}  // namespace nvcre::certification
