// workflow/partition.hpp: how nodes are grouped into Jobs, and that every node is covered.
#include "workflow/partition.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

namespace {

namespace wf = nvcre::workflow;

std::vector<wf::PartitionNode> plain(std::initializer_list<const char*> names) {
  std::vector<wf::PartitionNode> nodes;
  for (const char* n : names) nodes.push_back({n, {}});
  return nodes;
}

std::vector<wf::PartitionNode> in_domains(
    const std::map<std::string, std::vector<std::string>>& domains) {
  std::vector<wf::PartitionNode> nodes;
  for (const auto& [domain, names] : domains) {
    for (const auto& n : names) nodes.push_back({n, {{"clique", domain}}});
  }
  return nodes;
}

void expect_covered(const std::vector<wf::PartitionNode>& nodes,
                    const std::vector<wf::PartitionGroup>& groups) {
  std::set<std::string> seen;
  for (const auto& g : groups) seen.insert(g.nodes.begin(), g.nodes.end());
  for (const auto& n : nodes) EXPECT_TRUE(seen.count(n.name)) << n.name << " is in no group";
}

TEST(WorkflowPartition, SimpleChunksByNameOrder) {
  auto groups = wf::partition_nodes({plain({"d", "b", "a", "c"}), 2, "", false});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (wf::PartitionGroup{"group-0", {"a", "b"}, {}, false}));
  EXPECT_EQ(groups[1], (wf::PartitionGroup{"group-1", {"c", "d"}, {}, false}));
}

TEST(WorkflowPartition, SimpleRemainderBorrowsFromLastFullGroup) {
  auto groups = wf::partition_nodes({plain({"a", "b", "c", "d", "e", "f", "g"}), 3, "", false});
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[2], (wf::PartitionGroup{"group-2-overflow", {"e", "f", "g"}, {}, true}));
}

TEST(WorkflowPartition, TooFewNodesMakeOnePartialGroup) {
  auto groups = wf::partition_nodes({plain({"b", "a"}), 4, "", false});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (wf::PartitionGroup{"group-0", {"a", "b"}, {}, false}));
}

TEST(WorkflowPartition, TopologyPacksIntoFewestDomains) {
  const auto nodes =
      in_domains({{"r1", {"a1", "a2", "a3", "a4"}}, {"r2", {"b1", "b2", "b3", "b4"}}});
  auto groups = wf::partition_nodes({nodes, 4, "clique", false});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (wf::PartitionGroup{"group-0", {"a1", "a2", "a3", "a4"}, {"r1"}, false}));
  EXPECT_EQ(groups[1], (wf::PartitionGroup{"group-1", {"b1", "b2", "b3", "b4"}, {"r2"}, false}));
}

TEST(WorkflowPartition, TopologyOverflowReusesTestedNodesOfTheSameRack) {
  const auto nodes = in_domains({{"r1", {"a1", "a2", "a3"}}, {"r2", {"b1", "b2", "b3"}}});
  auto groups = wf::partition_nodes({nodes, 2, "clique", false});
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0], (wf::PartitionGroup{"group-0", {"a1", "a2"}, {"r1"}, false}));
  EXPECT_EQ(groups[1], (wf::PartitionGroup{"group-1", {"b1", "b2"}, {"r2"}, false}));
  EXPECT_EQ(groups[2], (wf::PartitionGroup{"group-2-overflow", {"a1", "a3"}, {"r1"}, true}));
  EXPECT_EQ(groups[3], (wf::PartitionGroup{"group-3-overflow", {"b1", "b3"}, {"r2"}, true}));
  expect_covered(nodes, groups);
}

TEST(WorkflowPartition, TopologyGroupSpansDomainsOnlyWhenOneIsTooSmall) {
  const auto nodes = in_domains({{"r1", {"a1", "a2", "a3"}}, {"r2", {"b1", "b2", "b3"}}});
  auto groups = wf::partition_nodes({nodes, 4, "clique", false});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0],
            (wf::PartitionGroup{"group-0", {"a1", "a2", "a3", "b1"}, {"r1", "r2"}, false}));
  EXPECT_EQ(groups[1],
            (wf::PartitionGroup{"group-1-overflow", {"a1", "b1", "b2", "b3"}, {"r1", "r2"}, true}));
}

TEST(WorkflowPartition, StrictDomainIsOneGroupPerDomainLargestFirst) {
  const auto nodes = in_domains({{"r1", {"a1", "a2"}}, {"r2", {"b1", "b2", "b3"}}});
  auto groups = wf::partition_nodes({nodes, 1, "clique", true});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (wf::PartitionGroup{"group-0", {"b1", "b2", "b3"}, {"r2"}, false}));
  EXPECT_EQ(groups[1], (wf::PartitionGroup{"group-1", {"a1", "a2"}, {"r1"}, false}));
}

TEST(WorkflowPartition, CoverageHoldsForManyShapes) {
  for (int racks = 1; racks <= 4; ++racks) {
    for (int per_rack = 1; per_rack <= 5; ++per_rack) {
      std::map<std::string, std::vector<std::string>> domains;
      for (int r = 0; r < racks; ++r) {
        for (int n = 0; n <= (per_rack + r) % 5; ++n)
          domains["r" + std::to_string(r)].push_back("n" + std::to_string(r) + "-" +
                                                     std::to_string(n));
      }
      const auto nodes = in_domains(domains);
      for (int npj = 1; npj <= 6; ++npj) {
        const auto groups = wf::partition_nodes({nodes, npj, "clique", false});
        expect_covered(nodes, groups);
        for (const auto& g : groups) {
          // Rack pools are consumed across overflow groups (as upstream), so a late one may be
          // short.
          EXPECT_LE(static_cast<int>(g.nodes.size()), npj) << g.name;
          if (!g.overflow && g.name != "group-0") {
            EXPECT_EQ(static_cast<int>(g.nodes.size()), npj) << g.name;
          }
        }
      }
    }
  }
}

TEST(WorkflowPartition, Errors) {
  EXPECT_THROW(wf::partition_nodes({plain({"a"}), 0, "", false}), std::invalid_argument);
  EXPECT_THROW(wf::partition_nodes({{}, 1, "", false}), std::invalid_argument);
  try {
    wf::partition_nodes({plain({"a"}), 1, "clique", false});
    FAIL() << "a node without the topology label must be rejected";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "node \"a\" missing topology label \"clique\"");
  }
}

}  // namespace
