// kube-sim's store: the API-server semantics that need no HTTP.
#include "sim/api_server.hpp"
#include "sim/store.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::sim {
namespace {

namespace json = boost::json;

ResourceType cert_type() {
  return ResourceType{
      "nvcre.nvidia.com", "v1alpha1", "certifications", "Certification", true, true, false};
}
ResourceType cm_type() {
  return ResourceType{"", "v1", "configmaps", "ConfigMap", true, false, true};
}

StoreOptions fixed_options(std::size_t window = 100) {
  StoreOptions options;
  options.clock = [] {
    return std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
  };
  options.retained_events = window;
  options.seed = 42;
  return options;
}

json::value cert(const std::string& name,
                 json::value spec = json::object{{"testScale", "intra-rack"}}) {
  return json::object{{"apiVersion", "nvcre.nvidia.com/v1alpha1"},
                      {"kind", "Certification"},
                      {"metadata", json::object{{"name", name}}},
                      {"spec", std::move(spec)},
                      {"status", json::object{{"phase", "Bogus"}}}};
}

std::string rv(const json::value& object) { return meta_string(object, "resourceVersion"); }
std::int64_t generation(const json::value& object) {
  return object.at("metadata").at("generation").as_int64();
}

TEST(SimStore, CreateFillsMetadataAndDropsStatusWithSubresource) {
  Store store(fixed_options());
  auto created = store.create(cert_type(), "ns1", cert("a"));
  EXPECT_EQ(meta_string(created, "namespace"), "ns1");
  EXPECT_EQ(meta_string(created, "creationTimestamp"), "2023-11-14T22:13:20Z");
  EXPECT_EQ(meta_string(created, "uid").size(), 36u);
  EXPECT_EQ(meta_string(created, "uid")[14], '4');
  EXPECT_EQ(generation(created), 1);
  EXPECT_FALSE(created.as_object().contains("status"));
  EXPECT_EQ(rv(created), std::to_string(store.resource_version()));
  EXPECT_EQ(store.get(cert_type(), "ns1", "a"), created);
}

TEST(SimStore, ResourceVersionIsGlobalAndIncreasing) {
  Store store(fixed_options());
  auto a = store.create(cert_type(), "ns1", cert("a"));
  auto b = store.create(cm_type(), "ns1", json::object{{"metadata", json::object{{"name", "b"}}}});
  EXPECT_LT(std::stoull(rv(a)), std::stoull(rv(b)));
  EXPECT_NE(meta_string(a, "uid"), meta_string(b, "uid"));
}

TEST(SimStore, AlreadyExistsAndNotFoundUseKubeMessages) {
  Store store(fixed_options());
  store.create(cert_type(), "ns1", cert("a"));
  try {
    store.create(cert_type(), "ns1", cert("a"));
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 409);
    EXPECT_EQ(e.reason, "AlreadyExists");
    EXPECT_STREQ(e.what(), "certifications.nvcre.nvidia.com \"a\" already exists");
  }
  try {
    store.get(cm_type(), "ns1", "zz");
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 404);
    EXPECT_STREQ(e.what(), "configmaps \"zz\" not found");
    auto status = e.to_status();
    EXPECT_EQ(status.at("kind"), "Status");
    EXPECT_EQ(status.at("details").at("kind"), "configmaps");
    EXPECT_EQ(status.at("details").at("name"), "zz");
  }
  // Same name in another namespace is fine.
  EXPECT_NO_THROW(store.create(cert_type(), "ns2", cert("a")));
}

TEST(SimStore, StaleResourceVersionConflicts) {
  Store store(fixed_options());
  auto a = store.create(cert_type(), "ns1", cert("a"));
  auto first = a;
  first.at("metadata").as_object()["labels"] = json::object{{"x", "1"}};
  store.update(cert_type(), "ns1", "a", first);
  try {
    a.at("metadata").as_object()["labels"] = json::object{{"x", "2"}};
    store.update(cert_type(), "ns1", "a", a);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 409);
    EXPECT_EQ(e.reason, "Conflict");
    EXPECT_STREQ(e.what(),
                 "Operation cannot be fulfilled on certifications.nvcre.nvidia.com \"a\": the "
                 "object has been "
                 "modified; please apply your changes to the latest version and try again");
  }
}

TEST(SimStore, CustomResourcesNeedResourceVersionOnUpdate) {
  Store store(fixed_options());
  auto a = store.create(cert_type(), "ns1", cert("a"));
  a.at("metadata").as_object().erase("resourceVersion");
  try {
    store.update(cert_type(), "ns1", "a", a);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 422);
    EXPECT_EQ(e.causes.at(0).field, "metadata.resourceVersion");
  }
  auto cm = store.create(cm_type(), "ns1", json::object{{"metadata", json::object{{"name", "c"}}}});
  cm.at("metadata").as_object().erase("resourceVersion");
  cm.as_object()["data"] = json::object{{"k", "v"}};
  EXPECT_NO_THROW(store.update(cm_type(), "ns1", "c", cm));
}

TEST(SimStore, GenerationBumpsOnSpecChangesOnly) {
  Store store(fixed_options());
  auto a = store.create(cert_type(), "ns1", cert("a"));
  a.at("metadata").as_object()["labels"] = json::object{{"x", "1"}};
  a = store.update(cert_type(), "ns1", "a", a);
  EXPECT_EQ(generation(a), 1);
  a.as_object()["spec"] = json::object{{"testScale", "full-scale"}};
  a = store.update(cert_type(), "ns1", "a", a);
  EXPECT_EQ(generation(a), 2);
  a.as_object()["status"] = json::object{{"phase", "Running"}};
  a = store.update(cert_type(), "ns1", "a", a, Store::UpdateKind::Status);
  EXPECT_EQ(generation(a), 2);
  EXPECT_EQ(a.at("status").at("phase"), "Running");
}

TEST(SimStore, StatusSubresourceSplit) {
  Store store(fixed_options());
  auto a = store.create(cert_type(), "ns1", cert("a"));
  auto with_status = a;
  with_status.as_object()["status"] = json::object{{"phase", "Running"}};
  with_status.as_object()["spec"] = json::object{{"testScale", "diagnose"}};
  with_status.at("metadata").as_object()["labels"] = json::object{{"ignored", "yes"}};
  auto after_status = store.update(cert_type(), "ns1", "a", with_status, Store::UpdateKind::Status);
  EXPECT_EQ(after_status.at("status").at("phase"), "Running");
  EXPECT_EQ(after_status.at("spec").at("testScale"),
            "intra-rack");  // spec kept from the old object
  EXPECT_FALSE(after_status.at("metadata").as_object().contains("labels"));

  auto main = after_status;
  main.as_object()["status"] = json::object{{"phase", "Hacked"}};
  main.as_object()["spec"] = json::object{{"testScale", "diagnose"}};
  auto after_main = store.update(cert_type(), "ns1", "a", main);
  EXPECT_EQ(after_main.at("status").at("phase"), "Running");  // status kept from the old object
  EXPECT_EQ(after_main.at("spec").at("testScale"), "diagnose");
}

TEST(SimStore, NoOpUpdateKeepsResourceVersion) {
  Store store(fixed_options());
  auto a = store.create(cert_type(), "ns1", cert("a"));
  auto same = store.update(cert_type(), "ns1", "a", a);
  EXPECT_EQ(rv(same), rv(a));
  EXPECT_TRUE(store.events_since(std::stoull(rv(a)), cert_type(), "").empty());
}

TEST(SimStore, FinalizersDelayDeletion) {
  Store store(fixed_options());
  auto object = cert("a");
  object.at("metadata").as_object()["finalizers"] = json::array{"nvcre.nvidia.com/cleanup"};
  auto a = store.create(cert_type(), "ns1", object);
  auto marked = store.remove(cert_type(), "ns1", "a");
  EXPECT_FALSE(marked.deleted);
  EXPECT_EQ(meta_string(marked.object, "deletionTimestamp"), "2023-11-14T22:13:20Z");
  EXPECT_EQ(generation(marked.object), 2);
  EXPECT_TRUE(store.find(cert_type(), "ns1", "a").has_value());

  auto adding = marked.object;
  adding.at("metadata").as_object()["finalizers"] =
      json::array{"nvcre.nvidia.com/cleanup", "other"};
  EXPECT_THROW(store.update(cert_type(), "ns1", "a", adding), ApiError);

  auto removing = marked.object;
  removing.at("metadata").as_object()["finalizers"] = json::array{};
  store.update(cert_type(), "ns1", "a", removing);
  EXPECT_FALSE(store.find(cert_type(), "ns1", "a").has_value());
  auto events = store.events_since(std::stoull(rv(a)), cert_type(), "ns1");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, EventType::Modified);
  EXPECT_EQ(events[1].type, EventType::Deleted);
}

TEST(SimStore, DeleteWithoutFinalizersRemovesAndRecords) {
  Store store(fixed_options());
  auto a = store.create(cert_type(), "ns1", cert("a"));
  auto result = store.remove(cert_type(), "ns1", "a");
  EXPECT_TRUE(result.deleted);
  EXPECT_GT(std::stoull(rv(result.object)), std::stoull(rv(a)));
  EXPECT_THROW(store.remove(cert_type(), "ns1", "a"), ApiError);
  auto events = store.events_since(0, cert_type(), "");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(std::string(to_string(events[1].type)), "DELETED");
}

// A snapshot and the event log share the stored objects; a later write stores a new object, so
// neither what a reader took nor an older event changes under it.
TEST(SimStore, SnapshotsAndEventsKeepTheObjectAsItWasWhenTaken) {
  Store store(fixed_options());
  store.create(cert_type(), "ns1", cert("a"));
  store.create(cert_type(), "ns2", cert("b"));
  auto taken = store.snapshot(cert_type());
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(meta_string(*taken[0], "name"), "a");
  EXPECT_EQ(meta_string(*taken[1], "name"), "b");
  const auto before = *taken[0];

  auto changed = *taken[0];
  changed.as_object()["spec"] = json::object{{"testScale", "multi-rack"}};
  auto written = store.update(cert_type(), "ns1", "a", changed);
  EXPECT_EQ(*taken[0], before);
  EXPECT_EQ(store.get(cert_type(), "ns1", "a"), written);
  EXPECT_EQ(*store.snapshot(cert_type())[0], written);

  auto events = store.events_since(0, cert_type(), "");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(*events[0].object, before);
  EXPECT_EQ(*events[2].object, written);
  // Serialized once, and the same text for every copy of the event (each watch gets a copy).
  const auto copy = events[2];
  EXPECT_EQ(copy.object_json(), json::serialize(written));
  EXPECT_EQ(&copy.object_json(), &events[2].object_json());
  // A watch sends that text in the same line as one built from the object.
  EXPECT_EQ(watch_line("MODIFIED", copy.object_json()), watch_line("MODIFIED", written));
  EXPECT_EQ(json::parse(watch_line("MODIFIED", copy.object_json())),
            (json::object{{"type", "MODIFIED"}, {"object", written}}));
}

// The commit hook sees each committed event, in order, as the event log holds it; the change
// hook (kube-sim's watch wake-ups) names the type written. Rejected and dry-run writes call
// neither.
TEST(SimStore, HooksSeeEveryCommitWithItsType) {
  Store store(fixed_options());
  std::vector<std::pair<std::string, std::uint64_t>> committed;  // type, resourceVersion
  std::vector<std::string> changed;
  store.set_on_commit([&](const WatchEvent& event) {
    committed.emplace_back(std::string(to_string(event.type)) + " " + event.resource + "/" +
                               meta_string(*event.object, "name"),
                           event.resource_version);
  });
  store.set_on_change(
      [&](const ResourceType& type) { changed.push_back(Store::bucket_key(type)); });

  auto a = store.create(cert_type(), "ns1", cert("a"));
  store.create(cm_type(), "ns1", json::object{{"metadata", json::object{{"name", "b"}}}});
  store.create(cm_type(), "ns1", json::object{{"metadata", json::object{{"name", "dry"}}}}, {},
               true);
  EXPECT_THROW(store.create(cert_type(), "ns1", cert("a")), ApiError);
  auto stale = a;
  stale.as_object()["spec"] = json::object{{"testScale", "multi-rack"}};
  auto updated = store.update(cert_type(), "ns1", "a", stale);
  stale.as_object()["spec"] = json::object{{"testScale", "intra-rack"}};
  EXPECT_THROW(store.update(cert_type(), "ns1", "a", stale),
               ApiError);  // its resourceVersion is old now
  store.remove(cm_type(), "ns1", "b");

  const auto log = store.events_since(0, cert_type(), "");
  ASSERT_EQ(log.size(), 2u);
  ASSERT_EQ(committed.size(), 4u);
  EXPECT_EQ(committed[0],
            std::make_pair(std::string("ADDED certifications/a"), log[0].resource_version));
  EXPECT_EQ(committed[1].first, "ADDED configmaps/b");
  EXPECT_EQ(committed[2],
            std::make_pair(std::string("MODIFIED certifications/a"), log[1].resource_version));
  EXPECT_EQ(std::to_string(committed[2].second), rv(updated));
  EXPECT_EQ(committed[3].first, "DELETED configmaps/b");
  EXPECT_LT(committed[0].second, committed[1].second);
  EXPECT_EQ(changed, (std::vector<std::string>{"nvcre.nvidia.com/certifications", "/configmaps",
                                               "nvcre.nvidia.com/certifications", "/configmaps"}));

  store.set_on_commit(nullptr);
  store.create(cm_type(), "ns1", json::object{{"metadata", json::object{{"name", "c"}}}});
  EXPECT_EQ(committed.size(), 4u);
}

TEST(SimStore, DryRunCommitsNothing) {
  Store store(fixed_options());
  auto before = store.resource_version();
  store.create(cert_type(), "ns1", cert("a"), {}, true);
  EXPECT_FALSE(store.find(cert_type(), "ns1", "a").has_value());
  EXPECT_EQ(store.resource_version(), before);
}

TEST(SimStore, AdmitCanReject) {
  Store store(fixed_options());
  Admit reject = [](const json::value*, json::value&) {
    throw invalid("nvcre.nvidia.com", "Certification", "a",
                  {{"FieldValueRequired", "Required value", "spec.target"}});
  };
  try {
    store.create(cert_type(), "ns1", cert("a"), reject);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 422);
    EXPECT_STREQ(e.what(),
                 "Certification.nvcre.nvidia.com \"a\" is invalid: spec.target: Required value");
  }
  EXPECT_FALSE(store.find(cert_type(), "ns1", "a").has_value());
}

TEST(SimStore, WatchWindowAnswersGone) {
  Store store(fixed_options(3));
  auto first = store.create(cert_type(), "ns1", cert("a"));
  for (const char* name : {"b", "c", "d", "e"}) store.create(cert_type(), "ns1", cert(name));
  try {
    store.events_since(std::stoull(rv(first)) - 1, cert_type(), "");
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 410);
    EXPECT_EQ(e.reason, "Expired");
    EXPECT_NE(std::string(e.what()).find("too old resource version"), std::string::npos);
  }
  EXPECT_EQ(store.events_since(store.resource_version() - 3, cert_type(), "").size(), 3u);
  store.compact();
  EXPECT_THROW(store.events_since(store.resource_version() - 1, cert_type(), ""), ApiError);
  EXPECT_TRUE(store.events_since(store.resource_version(), cert_type(), "").empty());
}

// compact_all: the latest version served is gone too; the version after it is the new start.
TEST(SimStore, CompactAllExpiresTheLatestVersionToo) {
  Store store(fixed_options());
  store.create(cert_type(), "ns1", cert("a"));
  const std::uint64_t latest = store.resource_version();
  store.compact_all();
  EXPECT_EQ(store.resource_version(), latest + 1);
  EXPECT_THROW(store.events_since(latest, cert_type(), ""), ApiError);
  EXPECT_TRUE(store.events_since(latest + 1, cert_type(), "").empty());
  EXPECT_EQ(store.list(cert_type(), "", {}).resource_version, latest + 1);
  auto b = store.create(cert_type(), "ns1", cert("b"));
  EXPECT_EQ(rv(b), std::to_string(latest + 2));
  EXPECT_EQ(store.events_since(latest + 1, cert_type(), "").size(), 1u);
}

TEST(SimStore, ListPaginatesInNamespaceNameOrder) {
  Store store(fixed_options());
  for (const char* ns : {"b", "a"})
    for (const char* name : {"y", "x", "z"}) store.create(cert_type(), ns, cert(name));
  auto page1 = store.list(cert_type(), "", {}, 4);
  ASSERT_EQ(page1.items.size(), 4u);
  EXPECT_EQ(meta_string(page1.items[0], "namespace"), "a");
  EXPECT_EQ(meta_string(page1.items[0], "name"), "x");
  EXPECT_EQ(page1.remaining_item_count, 2);
  ASSERT_FALSE(page1.continue_token.empty());
  auto page2 = store.list(cert_type(), "", {}, 4, page1.continue_token);
  ASSERT_EQ(page2.items.size(), 2u);
  EXPECT_TRUE(page2.continue_token.empty());
  EXPECT_EQ(meta_string(page2.items[1], "name"), "z");
  EXPECT_EQ(store.list(cert_type(), "b", {}).items.size(), 3u);
  auto only_x = store.list(cert_type(), "",
                           [](const json::value& o) { return meta_string(o, "name") == "x"; });
  EXPECT_EQ(only_x.items.size(), 2u);
}

TEST(SimStore, GenerateName) {
  Store store(fixed_options());
  auto object = cert("");
  object.at("metadata").as_object().erase("name");
  object.at("metadata").as_object()["generateName"] = "run-";
  auto created = store.create(cert_type(), "ns1", object);
  EXPECT_EQ(meta_string(created, "name").size(), 9u);
  object.at("metadata").as_object().erase("generateName");
  EXPECT_THROW(store.create(cert_type(), "ns1", object), ApiError);
}

}  // namespace
}  // namespace nvcre::sim
