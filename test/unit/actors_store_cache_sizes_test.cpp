// The store actor publishes nvcre_cache_objects as objects come and go through watch deltas and own
// writes, and a watch event that only replaces an object leaves the published counts as they are.
#include "actors/store.hpp"
#include "k8s/metrics.hpp"

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

json::value pod(std::string_view name, std::string_view version) {
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"namespace", "ns"}, {"name", name}, {"resourceVersion", version}}}};
}

StoreDelta upsert(json::value object) {
  StoreDelta delta;
  delta.object = std::move(object);
  return delta;
}

class StoreCacheSizes : public ::testing::Test {
 protected:
  StoreCacheSizes() : system_(config_), self_(system_) {
    StoreConfig store_config;
    store_config.cache = std::make_shared<SharedCache>();
    store_config.scopes = {{"v1", "Pod", "", {}}};
    store_config.metrics = metrics_;
    store_ = system_.spawn(store, std::move(store_config));
  }
  ~StoreCacheSizes() override { self_->send_exit(store_, caf::exit_reason::user_shutdown); }

  void apply(std::vector<StoreDelta> deltas) {
    self_->send(store_, apply_atom::value, std::move(deltas));
    settle();
  }
  // The store answers with the write's answer itself, object included.
  void own_write(json::value object) {
    k8s::ActionResult answer;
    answer.code = 200;
    answer.object = object;
    self_->request(store_, 10s, own_write_atom::value, std::move(answer))
        .receive([&](k8s::ActionResult& back) { EXPECT_EQ(back.object, object); },
                 [&](caf::error& failure) { ADD_FAILURE() << system_.render(failure); });
  }
  // The store answers in mailbox order: once a flush is answered, every earlier message is applied.
  void settle() {
    self_->request(store_, 10s, flush_atom::value)
        .receive([](bool) {},
                 [&](caf::error& failure) { ADD_FAILURE() << system_.render(failure); });
  }
  std::string pods_gauge() const {
    const std::string text = metrics_->render();
    const std::string series = R"(nvcre_cache_objects{api_version="v1",kind="Pod"} )";
    auto at = text.find(series);
    if (at == std::string::npos) return "absent";
    auto end = text.find('\n', at);
    return text.substr(at + series.size(), end - at - series.size());
  }

  std::shared_ptr<k8s::Metrics> metrics_ = std::make_shared<k8s::Metrics>();
  caf::actor_system_config config_;
  caf::actor_system system_;
  caf::scoped_actor self_;
  store_actor store_;
};

TEST_F(StoreCacheSizes, CountsFollowObjectsThatComeAndGo) {
  apply({upsert(pod("a", "1")), upsert(pod("b", "2"))});
  EXPECT_EQ(pods_gauge(), "2");

  apply({upsert(pod("a", "3"))});  // replaced: still two
  EXPECT_EQ(pods_gauge(), "2");

  own_write(pod("c", "4"));
  EXPECT_EQ(pods_gauge(), "3");

  StoreDelta removal;
  removal.type = StoreDelta::Type::Delete;
  removal.object = pod("a", "5");
  apply({removal});
  EXPECT_EQ(pods_gauge(), "2");

  apply({upsert(pod("a", "6"))});  // the same name back: counted again
  EXPECT_EQ(pods_gauge(), "3");
}

}  // namespace
}  // namespace nvcre::actors
