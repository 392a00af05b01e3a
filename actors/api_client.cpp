#include "actors/api_client.hpp"

#include "actors/own_writes.hpp"

#include "k8s/resource_mapper.hpp"
#include "k8s/rest_client.hpp"
#include "k8s/metrics.hpp"
#include "k8s/rfc3339.hpp"
#include "measure/log_paging.hpp"

#include <caf/all.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <deque>
#include <functional>
#include <vector>

namespace nvcre::actors {
namespace {

struct ApiContext {
  std::shared_ptr<k8s::RestClient> client;
  std::unique_ptr<k8s::ResourceMapper> mapper;
  std::shared_ptr<k8s::Metrics> metrics;
  std::optional<store_actor> store;
};

// One GET of the pod's log subresource with the want's options.
// Each page is one request of the manager's, counted with the others (verb GetLog, kind Pod).
std::string read_log_once(k8s::RestClient& client, k8s::Metrics* metrics,
                          const reconcile::PodLogWant& want, const std::string& since_time,
                          std::size_t limit_bytes) {
  k8s::RestRequest request{
      "GET", "/api/v1/namespaces/" + want.ns + "/pods/" + want.pod + "/log", {}, {}, {}};
  // Unset bounds (0) read the whole log.
  if (want.tail_lines > 0) request.query.emplace_back("tailLines", std::to_string(want.tail_lines));
  if (!want.container.empty()) request.query.emplace_back("container", want.container);
  if (want.previous) request.query.emplace_back("previous", "true");
  if (want.timestamps) request.query.emplace_back("timestamps", "true");
  if (!since_time.empty()) request.query.emplace_back("sinceTime", since_time);
  // A tail keeps the end of what it reads: its byte bound applies after the read.
  if (limit_bytes > 0 && want.tail_lines == 0)
    request.query.emplace_back("limitBytes", std::to_string(limit_bytes));
  auto response = client.request(request);
  if (metrics) metrics->api_request("GetLog", "Pod", response.status);
  std::string body = std::move(response.body);
  if (limit_bytes > 0 && body.size() > limit_bytes) {
    if (want.tail_lines > 0) {
      body.erase(0, body.size() - limit_bytes);
    } else {
      body.resize(limit_bytes);  // a server that ignored limitBytes
    }
  }
  return body;
}

// The whole log, page by page, as the pager asks: each line once.
reconcile::PodLogAnswer read_whole_log(k8s::RestClient& client, k8s::Metrics* metrics,
                                       const reconcile::PodLogWant& want) {
  measure::FullLogReader reader(want.limit_bytes > 0 ? static_cast<std::int64_t>(want.limit_bytes)
                                                     : measure::kDefaultLogPageBytes);
  while (reader.state() == measure::FullLogReader::State::NeedPage) {
    const auto page = reader.next_request();
    reader.feed(read_log_once(client, metrics, want,
                              page.since_time ? k8s::format_rfc3339(*page.since_time) : "",
                              static_cast<std::size_t>(page.limit_bytes)));
  }
  if (reader.state() == measure::FullLogReader::State::Failed) return {"", reader.error()};
  return {reader.text(), ""};
}

reconcile::PodLogAnswer read_pod_log(k8s::RestClient& client, k8s::Metrics* metrics,
                                     const reconcile::PodLogWant& want) {
  try {
    if (want.whole_log) return read_whole_log(client, metrics, want);
    return {read_log_once(client, metrics, want, want.since_time, want.limit_bytes), ""};
  } catch (const std::exception& error) {
    return {"", std::string("reading the log of pod ") + want.ns + "/" + want.pod + ": " +
                    error.what()};
  }
}

api_client_actor::behavior_type api_worker(api_client_actor::pointer self,
                                           std::shared_ptr<ApiContext> context) {
  return {
      [=](execute_atom, const k8s::Action& action) -> caf::result<k8s::ActionResult> {
        const auto started = std::chrono::steady_clock::now();
        k8s::ActionResult result = k8s::execute_action(*context->client, *context->mapper, action);
        if (context->metrics)
          context->metrics->api_request(k8s::to_string(action.verb), action.target.kind,
                                        result.code);
        // Verb, object and answer only: bodies may carry secrets. Formatted only when it is logged.
        if (spdlog::should_log(spdlog::level::debug)) {
          spdlog::debug(
              "api {} {} -> {} {} ({:.1f} ms)", k8s::to_string(action.verb),
              k8s::to_string(action.target), result.code, result.reason,
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                  .count());
        }
        if (!context->store || !result.ok() ||
            !answer_is_current_object(action.verb, result.object))
          return result;
        // The store caches the object and answers the caller itself: the answer no longer wakes
        // this worker's thread to be relayed (one message and one thread hand-off less per write).
        return self->delegate(*context->store, own_write_atom::value, std::move(result));
      },
      [=](pod_log_atom, const reconcile::PodLogWant& want) {
        return read_pod_log(*context->client, context->metrics.get(), want);
      },
  };
}

// Requests go to an idle worker, or wait here in arrival order until one is free: handed out
// round-robin, a request queued behind a slow call on a busy worker while others sat idle.
struct ApiServerState {
  std::vector<api_client_actor> idle;
  std::deque<std::function<void(const api_client_actor&)>> waiting;
  static inline const char* name = "api_client";
};

using api_client_pointer = api_client_actor::stateful_pointer<ApiServerState>;

void release(api_client_pointer self, const api_client_actor& worker) {
  auto& state = self->state;
  if (state.waiting.empty()) {
    state.idle.push_back(worker);
    return;
  }
  auto next = std::move(state.waiting.front());
  state.waiting.pop_front();
  next(worker);
}

// Runs `message` on a free worker and delivers its answer (or error) to the original requester.
template <class Answer, class... Ts>
caf::result<Answer> run_on_worker(api_client_pointer self, Ts... message) {
  auto promise = self->make_response_promise<Answer>();
  // Runs once: the message is moved into the request, not copied.
  auto job = [=, ... message = std::move(message)](const api_client_actor& worker) mutable {
    self->request(worker, caf::infinite, std::move(message)...)
        .then(
            [=](Answer& answer) mutable {
              promise.deliver(std::move(answer));
              release(self, worker);
            },
            [=](caf::error& error) mutable {
              promise.deliver(std::move(error));
              release(self, worker);
            });
  };
  auto& state = self->state;
  if (state.idle.empty()) {
    state.waiting.emplace_back(std::move(job));
  } else {
    auto worker = state.idle.back();
    state.idle.pop_back();
    job(worker);
  }
  return promise;
}

api_client_actor::behavior_type api_client(api_client_pointer self,
                                           std::vector<api_client_actor> workers) {
  for (auto& worker : workers) self->link_to(worker);
  self->state.idle = std::move(workers);
  return {
      [=](execute_atom atom, k8s::Action& action) {
        return run_on_worker<k8s::ActionResult>(self, atom, std::move(action));
      },
      [=](pod_log_atom atom, reconcile::PodLogWant& want) {
        return run_on_worker<reconcile::PodLogAnswer>(self, atom, std::move(want));
      },
  };
}

}  // namespace

api_client_actor spawn_api_client(caf::actor_system& system, ApiClientConfig config) {
  auto context = std::make_shared<ApiContext>();
  context->client = config.client;
  context->mapper = std::make_unique<k8s::ResourceMapper>(*config.client);
  context->metrics = config.metrics;
  context->store = config.store;
  std::vector<api_client_actor> workers;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, config.workers); ++i) {
    workers.push_back(system.spawn<caf::detached>(api_worker, context));
  }
  return system.spawn(api_client, std::move(workers));
}

}  // namespace nvcre::actors
