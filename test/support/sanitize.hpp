#pragma once
// Removes what changes from run to run in an object read back from the API server, so the
// manager-driven golden suites compare behaviour, not clocks or server bookkeeping:
//   - metadata: resourceVersion, uid, generation, creationTimestamp, managedFields, selfLink,
//     deletionTimestamp, deletionGracePeriodSeconds; ownerReferences[].uid; the
//     nvcre.nvidia.com/workflow-uid annotation becomes "<uid>";
//   - anywhere: a string field whose key ends in "Time" or "Timestamp" (condition transition
//     times, start/completion times, heartbeats) becomes "<time>", and "resourceVersion" /
//     "uid" fields of object references are dropped.
// Names are kept: the reference derives child names deterministically, and the suites pin them.
#include <boost/json/value.hpp>

namespace nvcre::testing {

boost::json::value sanitize_object(boost::json::value object);

}  // namespace nvcre::testing
