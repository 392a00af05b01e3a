#pragma once
// What kube-apiserver's OwnerReferencesPermissionEnforcement admission plugin asks of a write that
// touches metadata.ownerReferences (enabled with access control: OpenShift and hardened clusters
// run it, and a role that passes here passes there):
// - changing the references of an existing object needs `delete` on that object;
// - a reference newly set with blockOwnerDeletion: true needs `update` on the owner's
//   `finalizers` subresource, since it lets the writer hold up the owner's deletion.
// The pure part: which writes need which checks, and the API server's words for a refusal.
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace nvcre::sim::owner_references {

// True when the write adds, removes or changes an owner reference (a create counts as a change
// when the new object has any).
bool changed(const boost::json::value* old_object, const boost::json::value& object);

struct BlockingReference {
  std::string api_version;
  std::string kind;
  std::string name;
};

// References with blockOwnerDeletion: true whose owner (by uid) the old object did not already
// block.
std::vector<BlockingReference> newly_blocking(const boost::json::value* old_object,
                                              const boost::json::value& object);

// The refusal messages, as the plugin words them after "<resource> \"<name>\" is forbidden: ".
// The RBAC authorizer gives no reason and no error, hence the trailing ", <nil>".
std::string cannot_delete_message();
std::string cannot_set_finalizers_message();
std::string unmapped_owner_message(const BlockingReference& ref);

}  // namespace nvcre::sim::owner_references
