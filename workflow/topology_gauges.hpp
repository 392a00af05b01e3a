#pragma once
// The topology gauges a Workflow's status projects, under NVCRE's names and labels ({namespace,
// workflow, topology_key, domain, node}, value 1 per node): nvcre_topology_failed_nodes for every
// node of a Failed group, nvcre_topology_validated_nodes for every node of a Succeeded group that
// no Failed group holds. Only Workflows with spec.orchestration.topology.topologyKey project them,
// and only the current iteration's groups count. A node's domain is its group's domain when the
// group spans exactly one; otherwise (an overflow group spanning several domains) it is the
// node's own value of the topology key, and a node whose value is unknown is left out.
#include "k8s/metrics.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace nvcre::workflow {

// Node name -> its value of the Workflow's topology key.
using NodeDomains = std::map<std::string, std::string>;

// The nodes of the Succeeded and Failed groups that do not span exactly one domain: the ones whose
// domain topology_gauges takes from NodeDomains.
std::vector<std::string> nodes_needing_own_domain(const boost::json::value& workflow);

// Pure: the gauges of `workflow`, the domains of nodes_needing_own_domain read from `node_domains`.
std::vector<k8s::GaugeSample> topology_gauges(const boost::json::value& workflow,
                                              const NodeDomains& node_domains);

// Everything a Workflow projects: its lifecycle status (reconcile::workflow_status_gauges) and
// its topology gauges, the domains of overflow groups' nodes read from the cached Nodes' labels.
// Applied by the gauge projector on every change of the Workflow and dropped with it.
std::vector<k8s::GaugeSample> workflow_gauges(const boost::json::value& workflow,
                                              const k8s::CacheView& cache);

}  // namespace nvcre::workflow
