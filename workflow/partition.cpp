#include "workflow/partition.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace nvcre::workflow {

namespace {

struct Domain {
  std::string name;
  std::vector<std::string> nodes;  // name order
};

std::vector<PartitionGroup> partition_simple(const std::vector<std::string>& names,
                                             std::size_t npj) {
  std::vector<PartitionGroup> groups;
  const std::size_t full = names.size() / npj;
  for (std::size_t i = 0; i < full; ++i) {
    groups.push_back({"group-" + std::to_string(i),
                      {names.begin() + static_cast<std::ptrdiff_t>(i * npj),
                       names.begin() + static_cast<std::ptrdiff_t>((i + 1) * npj)},
                      {},
                      false});
  }
  const std::size_t remainder = names.size() % npj;
  if (remainder == 0) return groups;
  if (full == 0) {
    groups.push_back({"group-0", names, {}, false});
    return groups;
  }
  // The remainder borrows the tail of the last full group to reach nodesPerJob.
  const auto& last = groups.back().nodes;
  std::vector<std::string> nodes(names.begin() + static_cast<std::ptrdiff_t>(full * npj),
                                 names.end());
  nodes.insert(nodes.end(), last.end() - static_cast<std::ptrdiff_t>(npj - remainder), last.end());
  std::sort(nodes.begin(), nodes.end());
  groups.push_back({"group-" + std::to_string(full) + "-overflow", std::move(nodes), {}, true});
  return groups;
}

// Overflow groups for nodes the greedy pass left untested: racks with the most untested nodes first
// (then the larger rack, then name), untested nodes before already-tested ones within a rack.
void add_overflow_groups(std::vector<PartitionGroup>& groups, std::size_t group_index,
                         const std::vector<Domain>& domains, std::set<std::string>& untested,
                         std::size_t npj) {
  struct Pool {
    std::string domain;
    std::vector<std::string> nodes;
    std::size_t untested = 0;
  };
  std::vector<Pool> pools;
  for (const auto& d : domains) {
    Pool pool{d.name, {}, 0};
    std::vector<std::string> reusable;
    for (const auto& n : d.nodes) (untested.count(n) ? pool.nodes : reusable).push_back(n);
    pool.nodes.insert(pool.nodes.end(), reusable.begin(), reusable.end());
    pools.push_back(std::move(pool));
  }
  for (std::size_t overflow = 0;; ++overflow) {
    std::size_t total = 0;
    for (auto& pool : pools) {
      pool.untested = static_cast<std::size_t>(
          std::count_if(pool.nodes.begin(), pool.nodes.end(),
                        [&](const std::string& n) { return untested.count(n) != 0; }));
      total += pool.untested;
    }
    if (total == 0) return;
    std::sort(pools.begin(), pools.end(), [](const Pool& a, const Pool& b) {
      if (a.untested != b.untested) return a.untested > b.untested;
      if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
      return a.domain < b.domain;
    });
    PartitionGroup group;
    group.overflow = true;
    for (auto& pool : pools) {
      if (group.nodes.size() >= npj) break;
      if (pool.nodes.empty()) continue;
      const std::size_t take = std::min(npj - group.nodes.size(), pool.nodes.size());
      group.nodes.insert(group.nodes.end(), pool.nodes.begin(),
                         pool.nodes.begin() + static_cast<std::ptrdiff_t>(take));
      pool.nodes.erase(pool.nodes.begin(), pool.nodes.begin() + static_cast<std::ptrdiff_t>(take));
      group.domains.push_back(pool.domain);
    }
    if (group.nodes.empty()) return;
    for (const auto& n : group.nodes) untested.erase(n);
    std::sort(group.nodes.begin(), group.nodes.end());
    std::sort(group.domains.begin(), group.domains.end());
    group.name = "group-" + std::to_string(group_index + overflow) + "-overflow";
    groups.push_back(std::move(group));
  }
}

std::vector<PartitionGroup> partition_topology(const std::vector<PartitionNode>& nodes,
                                               const std::string& key, bool strict,
                                               std::size_t npj) {
  std::map<std::string, std::vector<std::string>> by_domain;
  std::map<std::string, std::string> domain_of;
  for (const auto& node : nodes) {
    auto label = node.labels.find(key);
    if (label == node.labels.end() || label->second.empty()) {
      throw std::invalid_argument("node \"" + node.name + "\" missing topology label \"" + key +
                                  "\"");
    }
    by_domain[label->second].push_back(node.name);
    domain_of[node.name] = label->second;
  }
  std::vector<Domain> domains;
  for (auto& [name, members] : by_domain) domains.push_back({name, std::move(members)});
  std::stable_sort(domains.begin(), domains.end(), [](const Domain& a, const Domain& b) {
    return a.nodes.size() > b.nodes.size();
  });

  std::vector<PartitionGroup> groups;
  if (strict) {
    for (std::size_t i = 0; i < domains.size(); ++i) {
      groups.push_back({"group-" + std::to_string(i), domains[i].nodes, {domains[i].name}, false});
    }
    return groups;
  }

  std::map<std::string, std::vector<std::string>> pools;
  for (const auto& d : domains) pools[d.name] = d.nodes;
  const std::size_t largest = domains.front().nodes.size();
  const std::size_t max_domains = (npj + largest - 1) / largest;  // fewest racks a group can span

  while (true) {
    std::vector<Domain> available;
    for (const auto& d : domains) {
      if (!pools[d.name].empty()) available.push_back({d.name, pools[d.name]});
    }
    std::stable_sort(available.begin(), available.end(), [](const Domain& a, const Domain& b) {
      if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
      return a.name < b.name;
    });
    std::size_t unassigned = 0;
    std::size_t top = 0;
    for (std::size_t i = 0; i < available.size(); ++i) {
      unassigned += available[i].nodes.size();
      if (i < max_domains) top += available[i].nodes.size();
    }
    if (unassigned == 0 || unassigned < npj || top < npj) break;
    PartitionGroup group;
    group.name = "group-" + std::to_string(groups.size());
    for (std::size_t i = 0; i < available.size() && group.nodes.size() < npj && i < max_domains;
         ++i) {
      auto& pool = pools[available[i].name];
      const std::size_t take = std::min(npj - group.nodes.size(), pool.size());
      group.nodes.insert(group.nodes.end(), pool.begin(),
                         pool.begin() + static_cast<std::ptrdiff_t>(take));
      pool.erase(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(take));
      group.domains.push_back(available[i].name);
    }
    std::sort(group.nodes.begin(), group.nodes.end());
    std::sort(group.domains.begin(), group.domains.end());
    groups.push_back(std::move(group));
  }

  std::set<std::string> untested;
  for (const auto& [domain, pool] : pools) untested.insert(pool.begin(), pool.end());
  if (untested.empty()) return groups;
  if (groups.empty()) {
    PartitionGroup partial{"group-0", {untested.begin(), untested.end()}, {}, false};
    std::set<std::string> partial_domains;
    for (const auto& n : partial.nodes) partial_domains.insert(domain_of[n]);
    partial.domains.assign(partial_domains.begin(), partial_domains.end());
    groups.push_back(std::move(partial));
    return groups;
  }
  add_overflow_groups(groups, groups.size(), domains, untested, npj);
  return groups;
}

}  // namespace

std::vector<PartitionGroup> partition_nodes(PartitionInput input) {
  if (input.nodes_per_job < 1) {
    throw std::invalid_argument("nodesPerJob must be >= 1, got " +
                                std::to_string(input.nodes_per_job));
  }
  if (input.nodes.empty()) throw std::invalid_argument("no nodes provided");
  std::sort(input.nodes.begin(), input.nodes.end(),
            [](const PartitionNode& a, const PartitionNode& b) { return a.name < b.name; });
  const auto npj = static_cast<std::size_t>(input.nodes_per_job);
  if (!input.topology_key.empty())
    return partition_topology(input.nodes, input.topology_key, input.strict_domain, npj);
  std::vector<std::string> names;
  for (const auto& node : input.nodes) names.push_back(node.name);
  return partition_simple(names, npj);
}

}  // namespace nvcre::workflow
