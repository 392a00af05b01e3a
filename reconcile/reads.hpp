#pragma once
// The reads a pass may need before it can decide, shared by every kind's pass: an object from the
// cache, else from this pass's live answers, else a LiveGet planned (the pass then waits); and a
// waiting plan cut down to its reads, so nothing decided on partial knowledge is written.
#include "reconcile/contract.hpp"

#include <boost/json/value.hpp>

namespace nvcre::reconcile {

// What a read of one object found.
struct ObjectLookup {
  enum class State {
    Present,  // `object` is set: cached, or read live when `live` is true
    Absent,   // a live read said NotFound, or the watch reported the object deleted
    Unknown,  // not cached and not read live yet: a LiveGet is planned, the pass must stop
  } state = State::Unknown;
  const boost::json::value* object = nullptr;
  bool live = false;
};

// Cache, else the live answer, else plan a LiveGet into `result` (once per ref).
ObjectLookup read_object(const Context& in, Result& result, const k8s::ObjectRef& ref);

// An uncached List of a collection (a LiveGet without a name), for a read that may be refused
// (403, an API group the server does not serve) and is then done without.
struct CollectionLookup {
  enum class State {
    Listed,       // `list` is the List object
    Unavailable,  // the server refused; `error` says why
    Unknown,      // the List is planned, the pass must stop
  } state = State::Unknown;
  const boost::json::value* list = nullptr;
  std::string error;
};

// `collection` names apiVersion, kind and namespace ("" = cluster-wide); its name must be empty.
CollectionLookup read_collection(const Context& in, k8s::ReconcilePlan& plan,
                                 const k8s::ObjectRef& collection);

// The answer filed for a refused collection read: a Status with the code and message.
boost::json::value refused_collection(int code, const std::string& message);

// A LiveGet or a pod log is pending: the pass ends with only its reads.
bool waiting_for_reads(const Result& result);

// When waiting_for_reads: drops every planned write, event, requeue and memo, keeping the reads.
void keep_only_reads(Result& result);

}  // namespace nvcre::reconcile
