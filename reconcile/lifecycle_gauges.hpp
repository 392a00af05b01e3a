#pragma once
// The lifecycle status series of the three tiers, projected from an object's persisted
// conditions alone (each change re-projects them, so a restarted manager reports the same):
// nvcre_certification_status {namespace, certification, status}, nvcre_workflow_status
// {namespace, workflow, certification (the Workflow's nvcre.nvidia.com/certification label),
// status} and nvcre_job_status {namespace, job, workflow (its nvcre.nvidia.com/workflow label),
// status}. One series per status (in_progress, succeeded, failed), exactly one of them 1: the True
// one of the exclusive triple, Failed before Succeeded before InProgress when a leftover carries
// two. An object with none True projects nothing. Pure.
#include "k8s/metrics.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace nvcre::reconcile {

// The three series of `family` with `labels` plus status=..., from the object's conditions.
std::vector<k8s::GaugeSample> lifecycle_status_gauges(
    const std::string& family, const std::map<std::string, std::string>& labels,
    const boost::json::value& object);

std::vector<k8s::GaugeSample> certification_status_gauges(const boost::json::value& certification);
std::vector<k8s::GaugeSample> workflow_status_gauges(const boost::json::value& workflow);

}  // namespace nvcre::reconcile
