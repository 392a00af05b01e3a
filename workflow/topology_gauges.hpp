#pragma once
// The topology gauges a Workflow's status projects, under NVCRE's names and labels ({namespace,
// workflow, topology_key, domain, node}, value 1 per node): nvcre_topology_failed_nodes for every
// node of a Failed group, nvcre_topology_validated_nodes for every node of a Succeeded group that
// no Failed group holds. Only Workflows with spec.orchestration.topology.topologyKey project them,
// and only the current iteration's groups count. A node's domain is its group's domain when the
// group spans one; nodes of a group spanning several domains (an overflow group) are left out,
// because the status does not say which domain each of them is in (NVCRE reads the node's label
// there; this projection sees the Workflow alone). Pure: the gauge projector applies them on every
// change of the Workflow and drops them with it.
#include "k8s/metrics.hpp"

#include <boost/json/value.hpp>

#include <vector>

namespace nvcre::workflow {

std::vector<k8s::GaugeSample> topology_gauges(const boost::json::value& workflow);

// Everything a Workflow projects: its lifecycle status (reconcile::workflow_status_gauges) and
// its topology gauges.
std::vector<k8s::GaugeSample> workflow_gauges(const boost::json::value& workflow);

}  // namespace nvcre::workflow
