// kube-sim's garbage collector over the store: background, foreground and orphan propagation,
// finalizers on dependents, several owners, invalid cross-namespace owners, namespace deletion.
#include "sim/garbage_collector.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>

namespace nvcre::sim {
namespace {

namespace json = boost::json;

const ResourceType kNamespace{"", "v1", "namespaces", "Namespace", false, true, true};
const ResourceType kConfigMap{"", "v1", "configmaps", "ConfigMap", true, false, true};
const ResourceType kCertification{
    "nvcre.nvidia.com", "v1alpha1", "certifications", "Certification", true, true, false};
const ResourceType kWorkflow{
    "nvcre.nvidia.com", "v1alpha1", "workflows", "Workflow", true, true, false};
const ResourceType kJob{"nvcre.nvidia.com", "v1alpha1", "jobs", "Job", true, true, false};
const ResourceType kTrainJob{
    "trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob", true, true, false};
const std::vector<ResourceType> kTypes{kNamespace, kConfigMap, kCertification,
                                       kWorkflow,  kJob,       kTrainJob};

struct Owner {
  const ResourceType* type;
  json::value object;
  bool block = false;
};

class SimGc : public ::testing::Test {
 protected:
  SimGc() : store_(options()) {
    for (const char* ns : {"ns1", "ns2"})
      store_.create(kNamespace, "", json::object{{"metadata", json::object{{"name", ns}}}});
  }

  static StoreOptions options() {
    StoreOptions o;
    o.clock = [] {
      return std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
    };
    o.seed = 7;
    return o;
  }

  json::value make(const ResourceType& type, const std::string& name,
                   const std::vector<Owner>& owners = {},
                   const std::vector<std::string>& finalizers = {}, const std::string& ns = "ns1") {
    json::object meta{{"name", name}};
    json::array refs;
    for (const auto& owner : owners)
      refs.push_back(json::object{{"apiVersion", owner.type->api_version()},
                                  {"kind", owner.type->kind},
                                  {"name", meta_string(owner.object, "name")},
                                  {"uid", meta_string(owner.object, "uid")},
                                  {"controller", true},
                                  {"blockOwnerDeletion", owner.block}});
    if (!refs.empty()) meta["ownerReferences"] = std::move(refs);
    if (!finalizers.empty()) {
      json::array list;
      for (const auto& f : finalizers) list.push_back(json::value(f));
      meta["finalizers"] = std::move(list);
    }
    return store_.create(type, ns,
                         json::object{{"metadata", std::move(meta)}, {"spec", json::object{}}});
  }

  bool exists(const ResourceType& type, const std::string& name,
              const std::string& ns = "ns1") const {
    return store_.find(type, ns, name).has_value();
  }

  bool marked(const ResourceType& type, const std::string& name,
              const std::string& ns = "ns1") const {
    auto found = store_.find(type, ns, name);
    return found && !meta_string(*found, "deletionTimestamp").empty();
  }

  GcReport collect() { return collect_garbage(store_, kTypes); }

  void remove_finalizers(const ResourceType& type, const std::string& name,
                         const std::string& ns = "ns1") {
    json::value object = store_.get(type, ns, name);
    object.as_object()["metadata"].as_object().erase("finalizers");
    store_.update(type, ns, name, object);
  }

  // resourceVersion of the DELETED event of each object of `type` since rv 0 (by name).
  std::map<std::string, std::uint64_t> deletions(const ResourceType& type) const {
    std::map<std::string, std::uint64_t> out;
    for (const auto& event : store_.events_since(0, type, ""))
      if (event.type == EventType::Deleted)
        out[meta_string(*event.object, "name")] = event.resource_version;
    return out;
  }

  // Certification -> Workflow -> Job -> TrainJob, each link with blockOwnerDeletion = block.
  void chain(bool block, const std::vector<std::string>& job_finalizers = {}) {
    cert_ = make(kCertification, "cert");
    wf_ = make(kWorkflow, "wf", {{&kCertification, cert_, block}});
    job_ = make(kJob, "job", {{&kWorkflow, wf_, block}}, job_finalizers);
    tj_ = make(kTrainJob, "tj", {{&kJob, job_, block}});
  }

  Store store_;
  json::value cert_, wf_, job_, tj_;
};

TEST_F(SimGc, NothingToDoWithoutDeletions) {
  chain(false);
  auto report = collect();
  EXPECT_EQ(report.deleted, 0u);
  EXPECT_EQ(report.passes, 0u);
  EXPECT_TRUE(exists(kTrainJob, "tj"));
}

TEST_F(SimGc, BackgroundDeletionRemovesTheCrossKindChain) {
  chain(false);
  store_.remove(kCertification, "ns1", "cert");
  auto report = collect();
  EXPECT_EQ(report.deleted, 3u);
  EXPECT_FALSE(exists(kWorkflow, "wf"));
  EXPECT_FALSE(exists(kJob, "job"));
  EXPECT_FALSE(exists(kTrainJob, "tj"));
  // Background: each level goes after its owner is gone.
  EXPECT_LT(deletions(kCertification).at("cert"), deletions(kWorkflow).at("wf"));
  EXPECT_LT(deletions(kWorkflow).at("wf"), deletions(kJob).at("job"));
  EXPECT_LT(deletions(kJob).at("job"), deletions(kTrainJob).at("tj"));
}

TEST_F(SimGc, AFinalizerOnADependentDelaysOnlyThatDependent) {
  chain(false, {"nvcre.nvidia.com/cleanup"});
  store_.remove(kCertification, "ns1", "cert");
  collect();
  EXPECT_FALSE(exists(kCertification, "cert"));
  EXPECT_FALSE(exists(kWorkflow, "wf"));
  EXPECT_TRUE(marked(kJob, "job"));      // terminating, held by its finalizer
  EXPECT_TRUE(exists(kTrainJob, "tj"));  // its owner still exists (terminating is not gone)
  EXPECT_FALSE(marked(kTrainJob, "tj"));

  remove_finalizers(kJob, "job");
  EXPECT_FALSE(exists(kJob, "job"));
  collect();
  EXPECT_FALSE(exists(kTrainJob, "tj"));
}

TEST_F(SimGc, ForegroundDeletesBlockingDependentsFirstThenTheOwner) {
  chain(true);
  auto marked_owner =
      store_.remove(kCertification, "ns1", "cert", false, std::nullopt, kForegroundFinalizer);
  EXPECT_FALSE(marked_owner.deleted);
  EXPECT_FALSE(meta_string(marked_owner.object, "deletionTimestamp").empty());
  EXPECT_EQ(marked_owner.object.at("metadata").at("finalizers"),
            (json::array{"foregroundDeletion"}));
  collect();
  EXPECT_FALSE(exists(kCertification, "cert"));
  EXPECT_FALSE(exists(kWorkflow, "wf"));
  EXPECT_FALSE(exists(kJob, "job"));
  EXPECT_FALSE(exists(kTrainJob, "tj"));
  // Foreground: the leaves go first, the owner last.
  EXPECT_LT(deletions(kTrainJob).at("tj"), deletions(kJob).at("job"));
  EXPECT_LT(deletions(kJob).at("job"), deletions(kWorkflow).at("wf"));
  EXPECT_LT(deletions(kWorkflow).at("wf"), deletions(kCertification).at("cert"));
}

TEST_F(SimGc, ForegroundOwnerWaitsForABlockingDependentWithAFinalizer) {
  cert_ = make(kCertification, "cert");
  make(kWorkflow, "wf", {{&kCertification, cert_, true}}, {"nvcre.nvidia.com/cleanup"});
  make(kConfigMap, "cm", {{&kCertification, cert_, false}});
  store_.remove(kCertification, "ns1", "cert", false, std::nullopt, kForegroundFinalizer);
  collect();
  EXPECT_TRUE(marked(kCertification, "cert"));  // waits for the blocking workflow
  EXPECT_TRUE(marked(kWorkflow, "wf"));
  EXPECT_FALSE(exists(kConfigMap, "cm"));  // non-blocking dependents are deleted too

  remove_finalizers(kWorkflow, "wf");
  collect();
  EXPECT_FALSE(exists(kCertification, "cert"));
}

TEST_F(SimGc, ForegroundOwnerWithOnlyNonBlockingDependentsGoesAtOnce) {
  cert_ = make(kCertification, "cert");
  make(kWorkflow, "wf", {{&kCertification, cert_, false}}, {"nvcre.nvidia.com/cleanup"});
  store_.remove(kCertification, "ns1", "cert", false, std::nullopt, kForegroundFinalizer);
  collect();
  EXPECT_FALSE(exists(kCertification, "cert"));
  EXPECT_TRUE(marked(kWorkflow, "wf"));
}

TEST_F(SimGc, OrphanRemovesTheOwnerReferenceAndKeepsDependents) {
  chain(true);
  store_.remove(kCertification, "ns1", "cert", false, std::nullopt, kOrphanFinalizer);
  auto report = collect();
  EXPECT_FALSE(exists(kCertification, "cert"));
  ASSERT_TRUE(exists(kWorkflow, "wf"));
  EXPECT_FALSE(
      store_.get(kWorkflow, "ns1", "wf").at("metadata").as_object().contains("ownerReferences"));
  EXPECT_TRUE(exists(kJob, "job"));
  EXPECT_TRUE(exists(kTrainJob, "tj"));
  EXPECT_EQ(report.references_removed, 1u);
  EXPECT_EQ(report.finalizers_removed, 1u);
}

TEST_F(SimGc, ADependentWithAnotherLiveOwnerOnlyLosesTheReference) {
  auto a = make(kConfigMap, "owner-a");
  auto b = make(kConfigMap, "owner-b");
  make(kConfigMap, "shared", {{&kConfigMap, a}, {&kConfigMap, b}});
  store_.remove(kConfigMap, "ns1", "owner-a");
  collect();
  ASSERT_TRUE(exists(kConfigMap, "shared"));
  auto refs =
      store_.get(kConfigMap, "ns1", "shared").at("metadata").at("ownerReferences").as_array();
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].at("name"), "owner-b");
  store_.remove(kConfigMap, "ns1", "owner-b");
  collect();
  EXPECT_FALSE(exists(kConfigMap, "shared"));
}

TEST_F(SimGc, ACrossNamespaceOwnerReferenceIsTreatedAsAbsent) {
  auto owner = make(kConfigMap, "owner", {}, {}, "ns2");
  make(kConfigMap, "dependent", {{&kConfigMap, owner}});  // in ns1
  collect();
  EXPECT_FALSE(exists(kConfigMap, "dependent"));
  EXPECT_TRUE(exists(kConfigMap, "owner", "ns2"));
}

TEST_F(SimGc, DeletingANamespaceDeletesItsObjects) {
  make(kConfigMap, "a");
  make(kCertification, "c", {}, {"nvcre.nvidia.com/cleanup"});
  make(kConfigMap, "b", {}, {}, "ns2");
  store_.remove(kNamespace, "", "ns1");
  collect();
  EXPECT_FALSE(exists(kConfigMap, "a"));
  EXPECT_TRUE(marked(kCertification, "c"));  // finalizers still hold it
  EXPECT_TRUE(exists(kConfigMap, "b", "ns2"));
}

TEST_F(SimGc, PlanIsAPureFunctionOfTheSnapshot) {
  chain(false);
  std::vector<GcObject> snapshot;
  for (const auto& type : {kNamespace, kWorkflow, kJob, kTrainJob})  // the certification is gone
    for (auto& item : store_.list(type, "").items) snapshot.push_back({type, std::move(item)});
  auto actions = plan_garbage_collection(snapshot);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, GcAction::Kind::Delete);
  EXPECT_EQ(actions[0].name, "wf");
  EXPECT_EQ(actions[0].propagation, Propagation::Background);
  EXPECT_EQ(actions[0].resource_version, meta_string(wf_, "resourceVersion"));
  EXPECT_EQ(plan_garbage_collection(snapshot).size(), 1u);  // nothing was applied
}

// A fresh store with the fixture's helpers, for tests that run several scenarios.
struct Scenario : SimGc {
  void TestBody() override {}
  using SimGc::chain;
  using SimGc::collect;
  using SimGc::make;
  using SimGc::remove_finalizers;
  using SimGc::store_;
};

// A collection reads what changed and its owner links, so its work does not grow with the objects
// that have nothing to do with the deletion.
TEST_F(SimGc, ACollectionReadsOnlyWhatTheChangeIsLinkedTo) {
  auto examined_for_deletion = [](std::size_t bystanders) {
    Scenario scenario;
    scenario.chain(false);
    for (std::size_t i = 0; i < bystanders; ++i)
      scenario.make(kConfigMap, "bystander-" + std::to_string(i));
    scenario.collect();  // the creates' own work: nothing to collect
    scenario.store_.remove(kCertification, "ns1", "cert");
    auto report = scenario.collect();
    EXPECT_EQ(report.deleted, 3u);
    return report.examined;
  };
  const std::size_t alone = examined_for_deletion(0);
  EXPECT_GT(alone, 0u);
  EXPECT_EQ(examined_for_deletion(300), alone);
}

// Every object's metadata as the collector sees it, by kind/namespace/name.
std::map<std::string, std::string> collector_view(const Store& store) {
  std::map<std::string, std::string> out;
  for (const auto& type : kTypes)
    store.visit(type, [&](const json::value& o) {
      const auto& meta = o.at("metadata").as_object();
      json::object kept;
      for (const char* key : {"deletionTimestamp", "finalizers", "ownerReferences"})
        if (const auto* v = meta.if_contains(key)) kept[key] = *v;
      out[type.kind + " " + meta_string(o, "namespace") + "/" + meta_string(o, "name")] =
          json::serialize(kept);
    });
  return out;
}

// Random owner graphs (several owners, cross-namespace and dangling references,
// blockOwnerDeletion, finalizers), then random deletions with each propagation, released
// finalizers, re-parenting and creates. The same writes go to two stores: one collected over what
// changed, one over every object. After every collection both hold the same objects with the same
// metadata, and nothing is left that a collection over everything would still do.
TEST_F(SimGc, CollectingWhatChangedMatchesCollectingEverything) {
  const std::vector<const ResourceType*> kinds{&kConfigMap, &kCertification, &kWorkflow, &kJob};
  for (unsigned seed = 1; seed <= 25; ++seed) {
    Scenario changed, everything;
    std::mt19937 rng(seed);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    struct Made {
      const ResourceType* type;
      std::string ns, name;
    };
    std::vector<Made> made;
    // An owner reference to `owner` as it is stored in `in` (uids match: both stores are seeded
    // alike).
    auto owner_in = [](Scenario& in, const Made& owner, bool block) -> std::optional<Owner> {
      auto current = in.store_.find(*owner.type, owner.ns, owner.name);
      if (!current) return std::nullopt;
      return Owner{owner.type, *current, block};
    };
    auto make_one = [&] {
      const std::size_t i = made.size();
      const ResourceType* type = kinds[pick(kinds.size())];
      const std::string ns = pick(5) == 0 ? "ns2" : "ns1";
      std::vector<std::pair<Made, bool>> owners;
      for (std::size_t k = made.empty() ? 0 : pick(3); k > 0; --k)
        owners.push_back({made[pick(made.size())], pick(2) == 0});
      const bool ghost = pick(8) == 0;  // an owner that never existed
      std::vector<std::string> finalizers;
      if (pick(4) == 0) finalizers.push_back("example.com/hold");
      const std::string name = "o" + std::to_string(i);
      for (Scenario* in : {&changed, &everything}) {
        std::vector<Owner> refs;
        for (const auto& [owner, block] : owners)
          if (auto ref = owner_in(*in, owner, block)) refs.push_back(*ref);
        if (ghost)
          refs.push_back(
              {&kConfigMap,
               json::object{{"metadata", json::object{{"name", "ghost"},
                                                      {"uid", "ghost-" + std::to_string(i)}}}}});
        in->make(*type, name, refs, finalizers, ns);
      }
      made.push_back({type, ns, name});
    };
    for (std::size_t i = 0; i < 30; ++i) make_one();

    for (std::size_t step = 0; step < 60; ++step) {
      const Made target = made[pick(made.size())];
      const std::size_t op = pick(4);
      static const char* kPolicies[] = {"", kForegroundFinalizer, kOrphanFinalizer};
      const char* policy = kPolicies[pick(3)];
      const Made new_owner = made[pick(made.size())];
      const bool block = pick(2) == 0;
      if (op == 3) make_one();
      for (Scenario* in : {&changed, &everything}) {
        Store& store = in->store_;
        try {
          if (op == 0)
            store.remove(*target.type, target.ns, target.name, false, std::nullopt, policy);
          if (op == 1) in->remove_finalizers(*target.type, target.name, target.ns);
          if (op == 2) {
            json::value object = store.get(*target.type, target.ns, target.name);
            auto owner = owner_in(*in, new_owner, block);
            if (owner && meta_string(object, "deletionTimestamp").empty()) {
              object.as_object()["metadata"].as_object()["ownerReferences"] =
                  json::array{json::object{{"apiVersion", owner->type->api_version()},
                                           {"kind", owner->type->kind},
                                           {"name", new_owner.name},
                                           {"uid", meta_string(owner->object, "uid")},
                                           {"blockOwnerDeletion", block}}};
              store.update(*target.type, target.ns, target.name, std::move(object));
            }
          }
        } catch (const ApiError&) {
          // gone already: the step does nothing in either store
        }
      }
      collect_garbage(changed.store_, kTypes, GcScope::Changed);
      collect_garbage(everything.store_, kTypes, GcScope::Everything);
      ASSERT_EQ(collector_view(changed.store_), collector_view(everything.store_))
          << "seed " << seed << " step " << step;
      std::vector<GcObject> snapshot;
      for (const auto& type : kTypes)
        changed.store_.visit(type, [&](const json::value& o) { snapshot.push_back({type, o}); });
      ASSERT_TRUE(plan_garbage_collection(snapshot).empty()) << "seed " << seed << " step " << step;
    }
  }
}

TEST(SimGcPropagation, Parses) {
  EXPECT_EQ(parse_propagation("Foreground"), Propagation::Foreground);
  EXPECT_EQ(parse_propagation("Orphan"), Propagation::Orphan);
  EXPECT_EQ(parse_propagation("Background"), Propagation::Background);
  EXPECT_FALSE(parse_propagation("foreground"));
  EXPECT_STREQ(propagation_finalizer(Propagation::Background), "");
}

}  // namespace
}  // namespace nvcre::sim
