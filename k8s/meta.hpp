#pragma once
// Kubernetes object metadata, read and written the one way every controller (and kube-sim) uses:
// owner references (building one, the controller of an object, is-controlled-by), deletion, and
// finalizer patches. Pure helpers over raw object JSON; missing or malformed fields read as absent.
#include "k8s/reconcile_plan.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

// One metadata.ownerReferences entry naming the owner; a controller reference also blocks the
// owner's foreground deletion until this object is gone (controller-runtime's
// SetControllerReference).
boost::json::object owner_reference(std::string_view api_version, std::string_view kind,
                                    std::string_view name, std::string_view uid, bool controller);

// metav1.GetControllerOf: the ownerReference with controller: true, or nullptr.
const boost::json::value* controller_reference(const boost::json::value& object);
// metav1.IsControlledBy: the controller reference carries `owner_uid` (never for an empty uid).
bool is_controlled_by(const boost::json::value& object, std::string_view owner_uid);
// Any ownerReference, controller or not, carries `owner_uid` (never for an empty uid).
bool has_owner(const boost::json::value& object, std::string_view owner_uid);
// metadata.deletionTimestamp is set.
bool is_being_deleted(const boost::json::value& object);

// metadata.finalizers (string entries, in order).
std::vector<std::string> finalizers_of(const boost::json::value& object);
bool has_finalizer(const boost::json::value& object, std::string_view finalizer);
// Adds `finalizer` to metadata.finalizers of an object about to be created (once; the object must
// be a JSON object). A child created with the finalizer its own controller would add spares that
// controller a patch and a watch round trip per object.
void add_finalizer(boost::json::value& object, std::string_view finalizer);
// Finalizer add: MergePatch of the whole list plus the resourceVersion (409 when stale).
Action add_finalizer_patch(const ObjectRef& self, const boost::json::value& object,
                           std::string_view finalizer);
// Finalizer removal as a MergePatch of the remaining list plus the resourceVersion.
Action remove_finalizer_patch(const ObjectRef& self, const boost::json::value& object,
                              std::string_view finalizer);
// Finalizer removal as an Update of the whole object without `finalizer` (409 when stale).
Action remove_finalizer_update(const ObjectRef& self, const boost::json::value& object,
                               std::string_view finalizer);

}  // namespace nvcre::k8s
