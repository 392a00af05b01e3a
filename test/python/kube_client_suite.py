#!/usr/bin/python3
"""The official Kubernetes Python client (Debian python3-kubernetes) against a kube-sim child.

Usage: kube_client_suite.py KUBE_SIM_BINARY SOURCE_DIR

Covers what a Python controller or script does: CRUD of built-in kinds, list/watch with the
client's `watch=True` (Python spells booleans that way), custom objects with their status
subresource, Leases with optimistic concurrency, and Events written through either Events API.
"""
import os
import subprocess
import sys
import threading
import unittest

try:
    import kubernetes
    import yaml
    from kubernetes.client.rest import ApiException
except ImportError as missing:  # a clear failure, not a skip: the suite is part of the build
    sys.exit(f"kube_client_suite: {missing}; install python3-kubernetes (scripts/install-deps.sh)")

SIM_BINARY = ""
SOURCE_DIR = ""
GROUP, VERSION = "nvcre.nvidia.com", "v1alpha1"


class KubeSim:
    """kube-sim on a free loopback port, stopped with the suite."""

    def __init__(self):
        self.process = subprocess.Popen(
            [SIM_BINARY, "--port", "0", "--no-trainer", "--cluster", "aws:h100:2",
             "--crds", os.path.join(SOURCE_DIR, "deploy", "crds")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        if "listening on " not in line:
            self.process.kill()
            raise RuntimeError(f"kube-sim did not start: {line!r}")
        self.url = line.split("listening on ", 1)[1].strip()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class PythonClientTest(unittest.TestCase):
    sim = None

    @classmethod
    def setUpClass(cls):
        cls.sim = KubeSim()
        configuration = kubernetes.client.Configuration()
        configuration.host = cls.sim.url
        cls.api = kubernetes.client.ApiClient(configuration)
        cls.core = kubernetes.client.CoreV1Api(cls.api)

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        cls.sim.stop()

    def setUp(self):
        self.ns = "py-" + self._testMethodName.lower().replace("_", "-")[:40]
        self.core.create_namespace({"metadata": {"name": self.ns}})

    def watch_events(self, list_function, *args, act, timeout=2, **kwargs):
        """(type, name) of every event a watch sees while `act` runs, until the watch times out.

        The watch starts from a list's resourceVersion (unless one is given), so it sees every
        change `act` makes whether its request reaches the server before or after them."""
        if "resource_version" not in kwargs:
            kwargs["resource_version"] = list_function(*args).metadata.resource_version
        seen = []
        watch = kubernetes.watch.Watch()

        def consume():
            for event in watch.stream(list_function, *args, timeout_seconds=timeout, **kwargs):
                seen.append((event["type"], event["object"].metadata.name))

        thread = threading.Thread(target=consume)
        thread.start()
        act()
        thread.join(timeout + 10)
        return seen

    def test_crud_of_built_in_kinds(self):
        created = self.core.create_namespaced_config_map(
            self.ns, {"metadata": {"name": "settings", "labels": {"app": "demo"}},
                      "data": {"mode": "fast"}})
        self.assertEqual(created.metadata.name, "settings")
        self.assertTrue(created.metadata.uid)
        got = self.core.read_namespaced_config_map("settings", self.ns)
        self.assertEqual(got.data, {"mode": "fast"})
        got.data["mode"] = "slow"
        replaced = self.core.replace_namespaced_config_map("settings", self.ns, got)
        self.assertEqual(replaced.data["mode"], "slow")
        self.assertNotEqual(replaced.metadata.resource_version, created.metadata.resource_version)
        patched = self.core.patch_namespaced_config_map(
            "settings", self.ns, {"metadata": {"annotations": {"owner": "py"}}})
        self.assertEqual(patched.metadata.annotations, {"owner": "py"})
        listed = self.core.list_namespaced_config_map(self.ns, label_selector="app=demo")
        self.assertEqual([item.metadata.name for item in listed.items], ["settings"])
        self.assertEqual(
            self.core.list_namespaced_config_map(self.ns, label_selector="app=other").items, [])
        self.core.delete_namespaced_config_map("settings", self.ns)
        with self.assertRaises(ApiException) as missing:
            self.core.read_namespaced_config_map("settings", self.ns)
        self.assertEqual(missing.exception.status, 404)
        secret = self.core.create_namespaced_secret(
            self.ns, {"metadata": {"name": "token"}, "stringData": {"key": "value"}})
        self.assertEqual(secret.metadata.name, "token")

    def test_batch_jobs_volumes_and_claims(self):
        batch = kubernetes.client.BatchV1Api(self.api)
        batch.create_namespaced_job(self.ns, {
            "metadata": {"name": "collect"},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "c", "image": "busybox"}]}}}})
        self.assertEqual(
            [j.metadata.name for j in batch.list_namespaced_job(self.ns).items], ["collect"])
        self.core.create_persistent_volume({
            "metadata": {"name": "scratch-" + self.ns},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "hostPath": {"path": "/tmp"}}})
        self.assertEqual(self.core.read_persistent_volume("scratch-" + self.ns)
                         .spec.capacity["storage"], "1Gi")
        self.core.create_namespaced_persistent_volume_claim(self.ns, {
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": "1Gi"}}}})
        claims = self.core.list_namespaced_persistent_volume_claim(self.ns).items
        self.assertEqual([c.metadata.name for c in claims], ["data"])

    def test_watch_true_streams_events(self):
        def act():
            self.core.create_namespaced_config_map(self.ns, {"metadata": {"name": "first"}})
            self.core.patch_namespaced_config_map("first", self.ns, {"data": {"k": "v"}})
            self.core.delete_namespaced_config_map("first", self.ns)

        seen = self.watch_events(self.core.list_namespaced_config_map, self.ns, act=act)
        self.assertEqual(seen, [("ADDED", "first"), ("MODIFIED", "first"), ("DELETED", "first")])

    def test_watch_resumes_from_a_list_resource_version(self):
        self.core.create_namespaced_config_map(self.ns, {"metadata": {"name": "before"}})
        listed = self.core.list_namespaced_config_map(self.ns)
        seen = self.watch_events(
            self.core.list_namespaced_config_map, self.ns,
            resource_version=listed.metadata.resource_version, allow_watch_bookmarks=True,
            act=lambda: self.core.create_namespaced_config_map(
                self.ns, {"metadata": {"name": "after"}}))
        self.assertEqual(seen, [("ADDED", "after")])

    def test_raw_watch_parameter_spelled_true(self):
        response = self.core.list_namespaced_config_map(
            self.ns, watch=True, timeout_seconds=1, _preload_content=False)
        body = response.read().decode()
        self.assertNotIn('"kind":"ConfigMapList"', body.replace(" ", ""))
        self.assertEqual(body, "")  # an empty namespace: a watch that times out with no events

    def test_custom_objects_with_status_subresource(self):
        objects = kubernetes.client.CustomObjectsApi(self.api)
        with open(os.path.join(SOURCE_DIR, "examples", "certification.yaml")) as source:
            certification = yaml.safe_load(source)
        certification["metadata"]["namespace"] = self.ns
        name = certification["metadata"]["name"]
        created = objects.create_namespaced_custom_object(
            GROUP, VERSION, self.ns, "certifications", certification)
        self.assertEqual(created["metadata"]["generation"], 1)
        status = {"status": {"conditions": [{
            "type": "Ready", "status": "True", "reason": "Certified", "message": "all passed",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
        after_status = objects.patch_namespaced_custom_object_status(
            GROUP, VERSION, self.ns, "certifications", name, status)
        self.assertEqual(after_status["status"]["conditions"][0]["reason"], "Certified")
        self.assertEqual(after_status["metadata"]["generation"], 1)
        # The main resource ignores status; a spec change bumps generation.
        after_main = objects.patch_namespaced_custom_object(
            GROUP, VERSION, self.ns, "certifications", name,
            {"metadata": {"labels": {"stage": "two"}}, "status": {"conditions": []}})
        self.assertEqual(after_main["status"]["conditions"][0]["reason"], "Certified")
        self.assertEqual(after_main["metadata"]["labels"]["stage"], "two")
        got = objects.get_namespaced_custom_object_status(
            GROUP, VERSION, self.ns, "certifications", name)
        self.assertEqual(got["status"]["conditions"][0]["type"], "Ready")
        listed = objects.list_namespaced_custom_object(
            GROUP, VERSION, self.ns, "certifications", label_selector="stage=two")
        self.assertEqual([o["metadata"]["name"] for o in listed["items"]], [name])
        objects.delete_namespaced_custom_object(GROUP, VERSION, self.ns, "certifications", name)

    def test_leases_with_optimistic_concurrency(self):
        coordination = kubernetes.client.CoordinationV1Api(self.api)
        lease = coordination.create_namespaced_lease(self.ns, {
            "metadata": {"name": "leader"},
            "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15,
                     "renewTime": "2026-12-03T10:00:00.000000Z"}})
        self.assertEqual(lease.spec.holder_identity, "a")
        stale = coordination.read_namespaced_lease("leader", self.ns)
        lease.spec.holder_identity = "b"
        renewed = coordination.replace_namespaced_lease("leader", self.ns, lease)
        self.assertEqual(renewed.spec.holder_identity, "b")
        stale.spec.holder_identity = "c"
        with self.assertRaises(ApiException) as conflict:
            coordination.replace_namespaced_lease("leader", self.ns, stale)
        self.assertEqual(conflict.exception.status, 409)
        self.assertEqual(coordination.read_namespaced_lease("leader", self.ns)
                         .spec.holder_identity, "b")

    def test_events_are_one_store_for_both_apis(self):
        events = kubernetes.client.EventsV1Api(self.api)
        regarding = {"apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Certification",
                     "name": "rack7", "namespace": self.ns}
        events.create_namespaced_event(self.ns, {
            "metadata": {"name": "rack7.new"}, "eventTime": "2026-12-03T10:00:00.000000Z",
            "reportingController": "nvcre.nvidia.com/certification", "reportingInstance": "m-1",
            "action": "Started", "reason": "Started", "type": "Normal",
            "note": "phase Discovery", "regarding": regarding})
        # eventTime is set: this client rejects an events.k8s.io Event without one (as a real
        # server answers for a core Event written without it).
        self.core.create_namespaced_event(self.ns, {
            "metadata": {"name": "rack7.old"}, "eventTime": "2026-12-03T10:01:00.000000Z",
            "reason": "Failed", "type": "Warning",
            "message": "node gpu-node-01 failed", "involvedObject": regarding,
            "source": {"component": "legacy-recorder"}, "count": 2,
            "firstTimestamp": "2026-12-03T10:00:00Z", "lastTimestamp": "2026-12-03T10:01:00Z"})
        core_view = {e.metadata.name: e for e in self.core.list_namespaced_event(
            self.ns, field_selector="involvedObject.name=rack7").items}
        self.assertEqual(sorted(core_view), ["rack7.new", "rack7.old"])
        self.assertEqual(core_view["rack7.new"].message, "phase Discovery")
        self.assertEqual(core_view["rack7.new"].involved_object.kind, "Certification")
        self.assertEqual(core_view["rack7.new"].reporting_component,
                         "nvcre.nvidia.com/certification")
        new_view = {e.metadata.name: e for e in events.list_namespaced_event(
            self.ns, field_selector="regarding.name=rack7").items}
        self.assertEqual(sorted(new_view), ["rack7.new", "rack7.old"])
        self.assertEqual(new_view["rack7.old"].note, "node gpu-node-01 failed")
        self.assertEqual(new_view["rack7.old"].regarding.name, "rack7")
        self.assertEqual(new_view["rack7.old"].deprecated_source.component, "legacy-recorder")
        self.assertEqual(new_view["rack7.old"].deprecated_count, 2)
        one = events.read_namespaced_event("rack7.old", self.ns)
        self.assertEqual(one.type, "Warning")
        seen = self.watch_events(
            events.list_namespaced_event, self.ns,
            act=lambda: self.core.delete_namespaced_event("rack7.old", self.ns))
        self.assertEqual(seen[-1], ("DELETED", "rack7.old"))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    SIM_BINARY, SOURCE_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:], verbosity=2)
