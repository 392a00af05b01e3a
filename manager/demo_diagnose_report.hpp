#pragma once
// The demo report's section for a Workflow in diagnose mode: the rounds it ran (a line each, its
// stage and every group's nodes and verdict), each faulty node the verdict blames with its reason
// and the stage that confirmed it, and the nodes that passed; each group with its measured bus
// bandwidth. The blamed and passed nodes come
// from the Workflow's node-results ConfigMaps; the rounds from its Jobs (the stage follows from
// the group name each Job is labelled with). Pure.
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace nvcre::manager {

// Whether the Workflow runs in diagnose mode (spec.orchestration.diagnose).
bool is_diagnose_workflow(const boost::json::value& workflow);

// The section, each line indented by `indent`; a group's peak bus bandwidth follows its verdict
// when `bandwidth_measurements` holds its Job's. `jobs`, `configmaps` and the measurements may
// hold other Workflows' objects too: only this Workflow's are read.
std::string diagnose_report(const boost::json::value& workflow,
                            const std::vector<boost::json::value>& jobs,
                            const std::vector<boost::json::value>& configmaps,
                            const std::string& indent,
                            const std::vector<boost::json::value>& bandwidth_measurements = {});

}  // namespace nvcre::manager
