// The garbage collector's index of the store: which writes leave it work, and which objects a
// change links to through owner references.
#include "sim/owner_index.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>

namespace nvcre::sim {
namespace {

namespace json = boost::json;

json::value object(const std::string& name, const std::string& uid,
                   const std::vector<std::string>& owners = {},
                   const std::vector<std::string>& finalizers = {}, bool deleting = false) {
  json::object meta{{"name", name}, {"namespace", "ns1"}, {"uid", uid}};
  json::array refs;
  for (const auto& owner : owners) refs.push_back(json::object{{"uid", owner}, {"name", owner}});
  if (!refs.empty()) meta["ownerReferences"] = std::move(refs);
  json::array list;
  for (const auto& f : finalizers) list.push_back(json::value(f));
  if (!list.empty()) meta["finalizers"] = std::move(list);
  if (deleting) meta["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  return json::object{{"metadata", std::move(meta)},
                      {"status", json::object{{"phase", "Running"}}}};
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> names(const std::vector<OwnerIndex::Location>& locations) {
  std::vector<std::string> out;
  for (const auto& l : locations) out.push_back(l.bucket + ":" + l.ns + "/" + l.name);
  return sorted(out);
}

TEST(SimOwnerIndex, ACreateIsWorkForItselfAndTheOwnersItNames) {
  OwnerIndex index;
  const auto child = object("child", "u-child", {"u-owner"});
  index.record_write("/configmaps", nullptr, &child);
  auto work = index.take_work();
  EXPECT_EQ(sorted(work.uids), (std::vector<std::string>{"u-child", "u-owner"}));
  EXPECT_FALSE(work.everything);
  EXPECT_FALSE(index.has_work());  // taken
}

TEST(SimOwnerIndex, AStatusOrSpecWriteLeavesNoWork) {
  OwnerIndex index;
  const auto before = object("child", "u-child", {"u-owner"}, {"x/hold"});
  index.record_write("/configmaps", nullptr, &before);
  index.take_work();
  auto after = before;
  after.as_object()["status"] = json::object{{"phase", "Succeeded"}};
  after.as_object()["spec"] = json::object{{"replicas", 3}};
  index.record_write("/configmaps", &before, &after);
  EXPECT_FALSE(index.has_work());
}

TEST(SimOwnerIndex, FinalizerDeletionAndOwnerChangesAreWorkForOldAndNewOwners) {
  OwnerIndex index;
  const auto v1 = object("child", "u-child", {"u-a"});
  index.record_write("/configmaps", nullptr, &v1);
  index.take_work();

  const auto v2 =
      object("child", "u-child", {"u-b"});  // re-parented: u-a may have been waiting for it
  index.record_write("/configmaps", &v1, &v2);
  EXPECT_EQ(sorted(index.take_work().uids), (std::vector<std::string>{"u-a", "u-b", "u-child"}));

  const auto v3 = object("child", "u-child", {"u-b"}, {"x/hold"}, true);
  index.record_write("/configmaps", &v2, &v3);
  EXPECT_EQ(sorted(index.take_work().uids), (std::vector<std::string>{"u-b", "u-child"}));

  index.record_write("/configmaps", &v3, nullptr);  // gone
  EXPECT_EQ(sorted(index.take_work().uids), (std::vector<std::string>{"u-b", "u-child"}));
}

TEST(SimOwnerIndex, ANamespaceChangeIsWorkForEverything) {
  OwnerIndex index;
  const auto ns =
      json::value(json::object{{"metadata", json::object{{"name", "scratch"}, {"uid", "u-ns"}}}});
  index.record_write("/namespaces", nullptr, &ns);
  EXPECT_TRUE(index.take_work().everything);
  EXPECT_FALSE(index.take_work().everything);
}

TEST(SimOwnerIndex, ComponentsFollowOwnerLinksBothWaysAndThroughAGoneOwner) {
  OwnerIndex index;
  // root <- mid <- leaf, root <- sibling; gone-owner (never stored) <- orphan-a, orphan-b; loner.
  const std::vector<json::value> objects{object("root", "u-root"),
                                         object("mid", "u-mid", {"u-root"}),
                                         object("leaf", "u-leaf", {"u-mid"}),
                                         object("sibling", "u-sib", {"u-root"}),
                                         object("orphan-a", "u-oa", {"u-gone"}),
                                         object("orphan-b", "u-ob", {"u-gone"}),
                                         object("loner", "u-loner")};
  for (const auto& o : objects) index.record_write("/configmaps", nullptr, &o);
  EXPECT_EQ(names(index.components({"u-leaf"})),
            (std::vector<std::string>{"/configmaps:ns1/leaf", "/configmaps:ns1/mid",
                                      "/configmaps:ns1/root", "/configmaps:ns1/sibling"}));
  EXPECT_EQ(names(index.components({"u-gone"})),
            (std::vector<std::string>{"/configmaps:ns1/orphan-a", "/configmaps:ns1/orphan-b"}));
  EXPECT_EQ(names(index.components({"u-loner", "u-loner"})),
            (std::vector<std::string>{"/configmaps:ns1/loner"}));

  index.record_write("/configmaps", &objects[1], nullptr);  // mid leaves: leaf still names it
  EXPECT_EQ(names(index.components({"u-mid"})), (std::vector<std::string>{"/configmaps:ns1/leaf"}));
  EXPECT_EQ(names(index.components({"u-root"})),
            (std::vector<std::string>{"/configmaps:ns1/root", "/configmaps:ns1/sibling"}));
}

}  // namespace
}  // namespace nvcre::sim
