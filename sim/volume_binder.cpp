#include "sim/volume_binder.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <map>

namespace nvcre::sim {
namespace json = boost::json;

namespace {

std::string meta(const json::value& object, std::string_view field) {
  return jsonkit::string_at(object, {"metadata", field});
}

// The reclaim policy a claim's volume is provisioned with.
std::string reclaim_policy_for(const json::value& claim,
                               const std::vector<json::value>& storage_classes) {
  const std::string wanted = jsonkit::string_at(claim, {"spec", "storageClassName"});
  for (const auto& storage_class : storage_classes) {
    const bool chosen =
        wanted.empty()
            ? jsonkit::string_at(storage_class, {"metadata", "annotations",
                                                 "storageclass.kubernetes.io/is-default-class"}) ==
                  "true"
            : meta(storage_class, "name") == wanted;
    if (!chosen) continue;
    const std::string policy = jsonkit::string_at(storage_class, {"reclaimPolicy"});
    return policy.empty() ? "Delete" : policy;
  }
  return "Delete";
}

json::value provisioned_volume(const json::value& claim, const std::string& name,
                               const std::vector<json::value>& storage_classes) {
  json::object spec{
      {"capacity",
       {{"storage", jsonkit::string_at(claim, {"spec", "resources", "requests", "storage"})}}},
      {"persistentVolumeReclaimPolicy", reclaim_policy_for(claim, storage_classes)},
      {"claimRef",
       {{"apiVersion", "v1"},
        {"kind", "PersistentVolumeClaim"},
        {"namespace", meta(claim, "namespace")},
        {"name", meta(claim, "name")},
        {"uid", meta(claim, "uid")}}},
      {"csi", {{"driver", kSimProvisioner}, {"volumeHandle", name}}},
      {"volumeMode", "Filesystem"}};
  if (const json::value* modes = jsonkit::value_at(claim, {"spec", "accessModes"}))
    spec["accessModes"] = *modes;
  if (auto cls = jsonkit::string_at(claim, {"spec", "storageClassName"}); !cls.empty())
    spec["storageClassName"] = cls;
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "PersistentVolume"},
      {"metadata",
       {{"name", name}, {"annotations", {{"pv.kubernetes.io/provisioned-by", kSimProvisioner}}}}},
      {"spec", std::move(spec)},
      {"status", {{"phase", "Bound"}}}};
}

json::value bound_claim(json::value claim, const std::string& volume) {
  json::object& object = claim.as_object();
  jsonkit::ensure_object(object, "spec")["volumeName"] = volume;
  json::object& status = jsonkit::ensure_object(object, "status");
  status["phase"] = "Bound";
  if (const json::value* modes = jsonkit::value_at(claim, {"spec", "accessModes"}))
    status["accessModes"] = *modes;
  status["capacity"] = {
      {"storage", jsonkit::string_at(claim, {"spec", "resources", "requests", "storage"})}};
  return claim;
}

json::value with_phase(json::value volume, const char* phase) {
  jsonkit::ensure_object(volume.as_object(), "status")["phase"] = phase;
  return volume;
}

}  // namespace

VolumeBindingPlan plan_volume_binding(const std::vector<json::value>& claims,
                                      const std::vector<json::value>& volumes,
                                      const std::vector<json::value>& storage_classes) {
  VolumeBindingPlan plan;
  std::map<std::string, const json::value*> volume_by_name;
  for (const auto& volume : volumes) volume_by_name[meta(volume, "name")] = &volume;
  std::map<std::string, const json::value*> claim_by_uid;
  for (const auto& claim : claims) {
    claim_by_uid[meta(claim, "uid")] = &claim;
    if (!jsonkit::string_at(claim, {"spec", "volumeName"}).empty() ||
        !meta(claim, "deletionTimestamp").empty())
      continue;
    const std::string name = "pvc-" + meta(claim, "uid");
    if (!volume_by_name.contains(name))
      plan.create_volumes.push_back(provisioned_volume(claim, name, storage_classes));
    plan.bind_claims.push_back(bound_claim(claim, name));
  }
  for (const auto& volume : volumes) {
    const std::string claim_uid = jsonkit::string_at(volume, {"spec", "claimRef", "uid"});
    if (claim_uid.empty()) continue;
    const std::string phase = jsonkit::string_at(volume, {"status", "phase"});
    if (claim_by_uid.contains(claim_uid)) {
      if (phase != "Bound") plan.volume_status.push_back(with_phase(volume, "Bound"));
      continue;
    }
    const std::string policy =
        jsonkit::string_at(volume, {"spec", "persistentVolumeReclaimPolicy"});
    if (phase == "Released" && policy == "Delete") {
      plan.delete_volumes.push_back(meta(volume, "name"));
    } else if (phase != "Released") {
      plan.volume_status.push_back(with_phase(volume, "Released"));
    }
  }
  return plan;
}

std::size_t bind_volumes(Store& store, const ResourceType& claims, const ResourceType& volumes,
                         const std::optional<ResourceType>& classes) {
  auto copies = [&](const ResourceType& type) {
    std::vector<json::value> out;
    for (const auto& object : store.snapshot(type)) out.push_back(*object);
    return out;
  };
  const VolumeBindingPlan plan = plan_volume_binding(
      copies(claims), copies(volumes), classes ? copies(*classes) : std::vector<json::value>{});
  std::size_t written = 0;
  // Each write stands alone: one that meets a concurrent change is retried on the next pass.
  auto attempt = [&](auto&& write) {
    try {
      write();
      ++written;
    } catch (const std::exception&) {
    }
  };
  for (const auto& volume : plan.create_volumes) {
    attempt([&] {
      store.create(volumes, "", volume);
      store.update(volumes, "", meta(volume, "name"), volume, Store::UpdateKind::Status);
    });
  }
  for (const auto& claim : plan.bind_claims) {
    attempt([&] {
      const std::string ns = meta(claim, "namespace"), name = meta(claim, "name");
      json::value main = claim;
      main.as_object().erase("status");
      store.update(claims, ns, name, std::move(main));
      json::value status = store.get(claims, ns, name);
      status.as_object()["status"] = claim.at("status");
      store.update(claims, ns, name, std::move(status), Store::UpdateKind::Status);
    });
  }
  for (const auto& volume : plan.volume_status)
    attempt([&] {
      store.update(volumes, "", meta(volume, "name"), volume, Store::UpdateKind::Status);
    });
  for (const auto& name : plan.delete_volumes) attempt([&] { store.remove(volumes, "", name); });
  return written;
}

}  // namespace nvcre::sim
