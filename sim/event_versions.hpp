#pragma once
// events.k8s.io/v1 and core v1 Events are one resource stored once, as in a real API server: an
// Event written through either API is read through both. Stored as core v1; the events.k8s.io/v1
// form differs only in the names of top-level fields:
//   regarding <-> involvedObject            note <-> message
//   reportingController <-> reportingComponent
//   deprecatedSource <-> source             deprecatedCount <-> count
//   deprecatedFirstTimestamp <-> firstTimestamp
//   deprecatedLastTimestamp <-> lastTimestamp
// and apiVersion ("events.k8s.io/v1" <-> "v1"). metadata, eventTime, series, action, reason,
// type, related and reportingInstance are the same in both. Because the difference is a renaming
// of top-level keys, a merge patch or a JSON patch written against one form is converted to the
// other the same way.
#include <boost/json/value.hpp>

#include <string>

namespace nvcre::sim {

enum class EventForm { Core, EventsV1 };

// `object` (an Event, an Event merge patch, or a watch BOOKMARK) in the `to` form; anything that
// is not an object (and any kind other than Event) is returned unchanged.
boost::json::value convert_event(const boost::json::value& object, EventForm to);

// A JSON patch (array of operations) whose paths address the `from` form, addressing the other.
boost::json::value convert_event_json_patch(const boost::json::value& patch, EventForm from);

// An events.k8s.io/v1 field selector ("regarding.name=x,note=y") as the core form's
// ("involvedObject.name=x,message=y").
std::string events_v1_field_selector_to_core(const std::string& selector);

}  // namespace nvcre::sim
