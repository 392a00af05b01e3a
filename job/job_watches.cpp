#include "job/job_watches.hpp"

#include "api/meta.hpp"
#include "job/job_pass.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>

#include <set>

namespace nvcre::job {
namespace json = boost::json;
using detail::string_at;

std::vector<k8s::ObjectRef> jobs_on_node(const k8s::CacheView& cache, std::string_view node_name) {
  std::set<k8s::ObjectRef> jobs;
  if (node_name.empty()) return {};
  for (const json::value* pod :
       cache.list_by_field("v1", "Pod", "", kPodNodeNamePointer, node_name)) {
    const std::string job = string_at(*pod, {"metadata", "labels", trainjob::kJobLabel});
    if (job.empty()) continue;
    jobs.insert(k8s::ObjectRef{std::string(api::kApiVersion), std::string(api::Job::kKind),
                               string_at(*pod, {"metadata", "namespace"}), job});
  }
  return {jobs.begin(), jobs.end()};
}

}  // namespace nvcre::job
