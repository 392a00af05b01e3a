"""nvcre.nvidia.com/v1alpha1 types and the core/v1 types they embed."""
from schema_lib import *

# ---------------------------------------------------------------- CEL rules (exact texts; see README)
R1 = rule("self == oldSelf", "spec is immutable after creation")
R2 = rule("!self.contains('/') || self.split('/')[0].size() <= 253",
          "queueLabelKey prefix must be at most 253 characters")
R3 = rule("self != 'app.kubernetes.io/managed-by' && !self.startsWith('nvcre.nvidia.com/')",
          "queueLabelKey must not use the controller-owned key app.kubernetes.io/managed-by or any key under the "
          "nvcre.nvidia.com/ prefix")
R4 = rule("self.all(k, k != 'app.kubernetes.io/managed-by' && !k.startsWith('nvcre.nvidia.com/'))",
          "labels must not set the controller-owned keys app.kubernetes.io/managed-by or any key under the "
          "nvcre.nvidia.com/ prefix")
R5 = rule("self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
          "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$'))",
          "each label key must be a valid Kubernetes label key: an optional DNS-subdomain prefix followed by '/', "
          "then a name of at most 63 characters beginning and ending with an alphanumeric character")
R6 = rule("self.all(k, !k.contains('/') || k.split('/')[0].size() <= 253)",
          "each label key prefix must be at most 253 characters")
R7 = rule("!self.startsWith('kubernetes.io/') && !self.startsWith('k8s.io/') && "
          "!self.split('/')[0].endsWith('.kubernetes.io') && !self.split('/')[0].endsWith('.k8s.io')",
          "nicResourceName must not use the reserved kubernetes.io or k8s.io domains")
def non_negative(name):
    return rule("!quantity(string(self)).isLessThan(quantity('0'))", f"{name} must be a non-negative quantity")


R8 = non_negative("cpu")
R8_MEMORY = non_negative("memory")
R9 = rule("!has(self.requests) || !has(self.limits) || !has(self.requests.cpu) || !has(self.limits.cpu) || "
          "quantity(string(self.requests.cpu)).compareTo(quantity(string(self.limits.cpu))) <= 0",
          "requests.cpu must not exceed limits.cpu")
R10 = rule("!has(self.requests) || !has(self.limits) || !has(self.requests.memory) || !has(self.limits.memory) || "
           "quantity(string(self.requests.memory)).compareTo(quantity(string(self.limits.memory))) <= 0",
           "requests.memory must not exceed limits.memory")
R11 = rule("!(has(self.script) && has(self.module))", "script and module are mutually exclusive")
R12 = rule("has(self.script) || has(self.module)", "either script or module must be set")
R13 = rule("!(has(self.inline) && has(self.configMapRef))", "inline and configMapRef are mutually exclusive")
R14 = rule("self == oldSelf", "gangScheduler is immutable")
R15 = rule("has(self.gangScheduler) == has(oldSelf.gangScheduler)",
           "gangScheduler cannot be added or removed after creation")


def immutable(field):
    return rule("self == oldSelf", f"{field} is immutable")


def presence_pinned(*fields):
    """One rule pinning the presence of every field, with one message naming them all (NVCRE's
    JobSpec pins its three measurement fields together)."""
    names = fields[0] if len(fields) == 1 else ", ".join(fields[:-1]) + ", and " + fields[-1]
    return rule(" && ".join(f"has(self.{f}) == has(oldSelf.{f})" for f in fields),
                f"{names} cannot be added or removed after creation")


JOB_SPEC_PRESENCE = [presence_pinned("workloadMetadata"),
                     presence_pinned("nodeHealthMonitor", "goodputMeasurement", "bandwidthMeasurement")]


ALL_RULES = [R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14, R15, R8_MEMORY] + \
    [immutable(f) for f in ("workload", "workloadMetadata", "nodeHealthMonitor", "goodputMeasurement",
                            "bandwidthMeasurement")] + \
    JOB_SPEC_PRESENCE

# ---------------------------------------------------------------- patterns
LABEL_VALUE_PATTERN = r"^$|^[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?$"
QUEUE_PATTERN = r"^$|^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$"
QUEUE_LABEL_KEY_PATTERN = (r"^$|^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                           r"[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?$")
NIC_RESOURCE_PATTERN = (r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/"
                        r"[a-zA-Z0-9]([-A-Za-z0-9_.]{0,61}[a-zA-Z0-9])?$")
STORAGE_SIZE_PATTERN = r"^([0-9]+(\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei)?$"
MAX_BYTES_PATTERN = r"^[0-9]+(K|M|G|T)?$"
GO_DURATION_PATTERN = r"^([0-9]+(h|m|s|ms))+$"
SOURCE_REPO_PATTERN = r"^(https|ssh)://[A-Za-z0-9._~:/@%+-]+$"
CONDITION_REASON_PATTERN = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
CONDITION_TYPE_PATTERN = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                          r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")

# ---------------------------------------------------------------- core/v1 types


def local_object_reference(d):
    return obj({"name": string("Name of the referent (same namespace).")}, d, x_kubernetes_map_type="atomic")


def typed_local_object_reference(d):
    return obj({
        "apiGroup": string("API group of the referent; empty for the core group."),
        "kind": string("Kind of the referent (ConfigMap for node results)."),
        "name": string("Name of the referent."),
    }, d, required=["kind", "name"], x_kubernetes_map_type="atomic")


def node_selector_requirement():
    return obj({
        "key": string("Node label key the selector applies to."),
        "operator": string("Relationship of the key to the values.",
                           enum=["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
        "values": strings("Values for In/NotIn (non-empty) and Gt/Lt (one integer); empty for Exists/DoesNotExist.",
                          x_kubernetes_list_type="atomic"),
    }, "A node selector requirement (core/v1 NodeSelectorRequirement).", required=["key", "operator"])


def env_var():
    ref_name = string("Name of the referent.")
    return obj({
        "name": string("Name of the environment variable."),
        "value": string("Literal value; $(VAR) references are expanded by the kubelet."),
        "valueFrom": node(
            description="Source of the value when value is not set.", type="object",
            properties={
                "configMapKeyRef": obj({"key": string("Key to select."), "name": ref_name,
                                        "optional": boolean("Whether the ConfigMap or key may be missing.")},
                                       "Selects a key of a ConfigMap.", required=["key"],
                                       x_kubernetes_map_type="atomic"),
                "fieldRef": obj({"apiVersion": string("Schema version of fieldPath (default v1)."),
                                 "fieldPath": string("Path of the pod field to select.")},
                                "Selects a field of the pod.", required=["fieldPath"],
                                x_kubernetes_map_type="atomic"),
                "resourceFieldRef": obj({"containerName": string("Container name (required for volumes)."),
                                         "divisor": quantity("Output format of the exposed resource."),
                                         "resource": string("Resource to select, e.g. limits.cpu.")},
                                        "Selects a container resource limit or request.", required=["resource"],
                                        x_kubernetes_map_type="atomic"),
                "secretKeyRef": obj({"key": string("Key to select."), "name": ref_name,
                                     "optional": boolean("Whether the Secret or key may be missing.")},
                                    "Selects a key of a Secret.", required=["key"], x_kubernetes_map_type="atomic"),
            },
            x_kubernetes_preserve_unknown_fields=True),
    }, "An environment variable (core/v1 EnvVar).", required=["name"])


def volume_mount():
    return obj({
        "mountPath": string("Path inside the container; must not contain ':'."),
        "mountPropagation": string("How mounts are propagated between host and container."),
        "name": string("Name of the volume to mount."),
        "readOnly": boolean("Mount read-only."),
        "recursiveReadOnly": string("Recursive read-only mode (Disabled, IfPossible, Enabled)."),
        "subPath": string("Sub-path inside the volume."),
        "subPathExpr": string("Sub-path with $(VAR) expansion; exclusive with subPath."),
    }, "A volume mount (core/v1 VolumeMount).", required=["mountPath", "name"])


def volume():
    return node(description="A pod volume (core/v1 Volume); the source fields are passed through unchanged.",
                type="object", properties={"name": string("Volume name (DNS label), unique within the pod.")},
                required=["name"], x_kubernetes_preserve_unknown_fields=True)


def resource_requirements(d):
    return obj({
        "claims": array(obj({"name": string("Name of an entry in pod.spec.resourceClaims."),
                             "request": string("Name of a request inside that claim.")},
                            required=["name"]),
                        "Dynamic resource claims used by this container.",
                        x_kubernetes_list_type="map", x_kubernetes_list_map_keys=["name"]),
        "limits": node(description="Maximum amount of compute resources allowed.", type="object",
                       additionalProperties=quantity()),
        "requests": node(description="Minimum amount of compute resources required.", type="object",
                         additionalProperties=quantity()),
    }, d)


def container():
    return node(
        description="A container (core/v1 Container); fields beyond those listed are passed through unchanged.",
        type="object",
        properties={
            "args": strings("Arguments to the entrypoint."),
            "command": strings("Entrypoint array."),
            "env": array(env_var(), "Environment variables."),
            "image": string("Container image."),
            "name": string("Container name (DNS label), unique within the pod."),
            "resources": resource_requirements("Compute resources of the container."),
            "volumeMounts": array(volume_mount(), "Volumes mounted into the container."),
            "workingDir": string("Working directory."),
        },
        required=["name"], x_kubernetes_preserve_unknown_fields=True)

# ---------------------------------------------------------------- shared nvcre types


def taint_selector():
    return obj({
        "key": string("Taint key the node must carry.", minLength=1),
        "value": string("Taint value; empty matches any value."),
        "effect": string("Taint effect; empty matches any effect.",
                         enum=["", "NoSchedule", "PreferNoSchedule", "NoExecute"]),
    }, "A taint the target nodes must carry; a matching toleration is injected into workload pods.",
        required=["key"])


def target_spec(d):
    return obj({
        "nodeSelector": string_map("Label equality match; ANDed with matchExpressions."),
        "matchExpressions": array(node_selector_requirement(), "Node label requirements, ANDed with nodeSelector.",
                                  x_kubernetes_list_type="atomic"),
        "nodeNames": strings("Explicit node names; the nodes must also match nodeSelector and matchExpressions."),
        "taintSelectors": array(taint_selector(),
                                "Taints every target node must carry; cordoned nodes are included only when "
                                "node.kubernetes.io/unschedulable is listed."),
    }, d)


def gang_scheduler_spec(d, *extra_rules):
    s = obj({
        "schedulerName": string("Scheduler injected into every workload pod template, e.g. kai-scheduler.",
                                minLength=1),
        "queue": string("Queue label value; the controller uses default-queue when empty.",
                        maxLength=63, pattern=QUEUE_PATTERN),
        "queueLabelKey": with_rules(
            string("Queue label key ([prefix/]name); the controller uses kai.scheduler/queue when empty "
                   "(runai/queue for Run:ai).", maxLength=317, pattern=QUEUE_LABEL_KEY_PATTERN),
            R2, R3),
    }, d, required=["schedulerName"])
    return with_rules(s, *extra_rules) if extra_rules else s


def workload_metadata(d, *extra_rules):
    s = obj({
        "labels": with_rules(
            node(description="Labels applied to the workload object (TrainJob) only, never to pods, "
                             "e.g. kueue.x-k8s.io/queue-name.",
                 type="object", maxProperties=32,
                 additionalProperties=string(maxLength=63, pattern=LABEL_VALUE_PATTERN)),
            R4, R5, R6),
    }, d)
    return with_rules(s, *extra_rules) if extra_rules else s


def nic_resource_name(d):
    return with_rules(string(d, maxLength=253, pattern=NIC_RESOURCE_PATTERN), R7)


def category_resource_list(d):
    cpu = with_rules(quantity(None, maxLength=32), R8)
    memory = with_rules(quantity(None, maxLength=32), R8_MEMORY)
    return obj({"cpu": desc(cpu, "CPU quantity."), "memory": desc(memory, "Memory quantity.")}, d)


def category_resources():
    return with_rules(obj({
        "limits": category_resource_list("Resource limits of the training container."),
        "requests": category_resource_list("Resource requests of the training container."),
    }, "CPU/memory override for the primary training container; requests must not exceed limits."), R9, R10)


def category_options():
    """Fields of CategoryOptions (inlined at Certification spec level and used per category)."""
    return {
        "nodesPerJob": int32("Nodes per Job; auto-sized when unset, clamped to the matching nodes.", minimum=1),
        "enableCheckpoint": boolean("Provision a checkpoint PVC and save/load checkpoints (training only)."),
        "maxSteps": int32("Training steps (-1 = unlimited); catalog default 50.", minimum=-1),
        "exitDurationMins": int32("Training wall-clock limit in minutes (EXIT_DURATION_MINS).", minimum=1),
        "startupStallTimeoutSeconds": int32("Seconds allowed before the first training step.", minimum=1),
        "gpusPerNode": int32("GPUs per node; defaults from the GPU architecture.", minimum=1),
        "mlnxPerNode": int32("NICs per node; defaults from the catalog; 0 opts out of NIC requests.", minimum=0),
        "nicResourceName": nic_resource_name("Extended resource name of the RDMA NIC, e.g. nvidia.com/mlnxnics "
                                             "or rdma/ib; auto-detected on on-prem GB200/GB300/B200/B300."),
        "rdmaDeviceAccess": string("How RDMA devices reach workload pods: hostPath mounts /dev/infiniband "
                                   "(privileged), devicePlugin uses the NIC device plugin.",
                                   enum=["hostPath", "devicePlugin"]),
        "resources": category_resources(),
        "enableMNNVL": boolean("Enable multi-node NVLink (NCCL_MNNVL_ENABLE); architecture default when unset."),
        "image": string("Replaces the primary workload image after overrides.", minLength=1, maxLength=512),
        "imagePullSecrets": array(local_object_reference("A pull secret in the workload namespace."),
                                  "Pull secrets for the workload images."),
        "storageClassName": string("Storage class of the checkpoint PVC; cluster default when empty."),
        "saveInterval": int32("Checkpoint save interval in steps.", minimum=1),
        "saveRetainInterval": int32("Checkpoint retain interval in steps.", minimum=1),
        "saveTopK": int32("Number of checkpoints kept.", minimum=1),
        "storageSize": string("Checkpoint PVC size, e.g. 10Ti.", pattern=STORAGE_SIZE_PATTERN),
        "maxRestarts": int32("Checkpoint restarts allowed per Job.", minimum=0),
        "repeatCount": int32("Workflow iterations.", minimum=1),
        "testScale": string("Grouping of the target nodes for communication entries.",
                            enum=["intra-node", "intra-rack", "diagnose", "full-scale"]),
        "maxBytes": string("Largest NCCL message size (nccl-tests -e), e.g. 16G.", pattern=MAX_BYTES_PATTERN),
        "numIterations": int32("NCCL iterations per size (nccl-tests -n).", minimum=1),
        "numCycles": int32("NCCL cycles (nccl-tests -N).", minimum=1),
        "thresholds": string_map("Metric name to CEL expression over value, e.g. busBandwidthGBps: value >= 400."),
        "maxConcurrent": int32("Jobs running at once; 0 = unlimited."),
        "minGroupSize": int32("Smallest group size of diagnose bisection.", minimum=1),
        "timeoutPerJob": string("Per-Job timeout, e.g. 1h or 45m.", pattern=GO_DURATION_PATTERN),
        "measurementTimeout": string("Wait for measurement data after success, e.g. 5m.",
                                     pattern=GO_DURATION_PATTERN),
        "sourceRepo": string("Source repository of the workload (https:// or ssh://); catalog upstream when empty.",
                             maxLength=2048, pattern=SOURCE_REPO_PATTERN),
        "workloadMetadata": workload_metadata("Metadata for the workload object; labels merge per key "
                                              "(per-category wins over global)."),
    }


def condition():
    return obj({
        "lastTransitionTime": datetime("Last time the condition changed status."),
        "message": string("Human-readable details about the transition.", maxLength=32768),
        "observedGeneration": int64("metadata.generation the condition was set for.", minimum=0),
        "reason": string("CamelCase reason for the last transition.", minLength=1, maxLength=1024,
                         pattern=CONDITION_REASON_PATTERN),
        "status": string("Status of the condition.", enum=["True", "False", "Unknown"]),
        "type": string("Type of the condition in CamelCase or foo.example.com/CamelCase.", maxLength=316,
                       pattern=CONDITION_TYPE_PATTERN),
    }, "Condition contains details for one aspect of the current state of this resource.",
        required=["lastTransitionTime", "message", "reason", "status", "type"])


def conditions(d):
    return array(condition(), d, x_kubernetes_list_type="map", x_kubernetes_list_map_keys=["type"])


def workflow_reference(d):
    return obj({"name": string("Workflow name."),
                "namespace": string("Workflow namespace; the referrer's namespace when empty.")},
               d, required=["name"])


def workload_reference(d):
    return obj({
        "apiVersion": string("API version of the workload."),
        "kind": string("Kind of the workload."),
        "name": string("Name of the workload."),
        "namespace": string("Namespace of the workload; the Job's namespace when empty."),
    }, d, required=["apiVersion", "kind", "name"])


def goodput_measurement_config(*extra_rules):
    s = obj({
        "logProfileRef": string("Name of the cluster-scoped LogProfile used to parse training logs.", minLength=1),
        "sampleInterval": duration("How often logs are sampled (default 60s)."),
    }, "Creates one GoodputMeasurement per Job.", required=["logProfileRef"])
    return with_rules(s, *extra_rules) if extra_rules else s


def bandwidth_measurement_config(*extra_rules):
    s = obj({
        "logProfileRef": string("Name of the cluster-scoped LogProfile used to parse NCCL logs.", minLength=1),
        "sampleInterval": duration("How often logs are sampled (default 60s)."),
        "testType": string("NCCL test name, e.g. all_reduce or alltoall (Prometheus label nccl_test)."),
    }, "Creates one BandwidthMeasurement per Job.", required=["logProfileRef"])
    return with_rules(s, *extra_rules) if extra_rules else s

# ---------------------------------------------------------------- JobSpec


def train_job_spec():
    return node(
        description="Kubeflow Trainer (trainer.kubeflow.org/v1alpha1) TrainJobSpec. The fields listed are "
                    "checked; all other Trainer fields are passed through to the TrainJob unchanged.",
        type="object",
        properties={
            "activeDeadlineSeconds": int64("Seconds the TrainJob may be active before it is terminated.",
                                           minimum=1),
            "annotations": string_map("Annotations for the generated JobSet (older Trainer versions)."),
            "initializer": free_object("Dataset and model initializer configuration."),
            "labels": string_map("Labels for the generated JobSet (older Trainer versions)."),
            # The Trainer's own TrainJobSpec defaults: the spec a Workflow or Job stores carries the
            # same fields the TrainJob made from it will, whoever created the object.
            "managedBy": string("Controller that reconciles the TrainJob.", maxLength=253,
                                default="trainer.kubeflow.org/trainjob-controller"),
            "podTemplateOverrides": array(free_object(), "Pod template overrides (older Trainer versions)."),
            "runtimePatches": array(node(type="object",
                                         properties={"manager": string("Owner of the patch entry.", minLength=1,
                                                                       maxLength=253)},
                                         x_kubernetes_preserve_unknown_fields=True),
                                    "Patches applied to the referenced runtime, keyed by manager."),
            "runtimeRef": obj({
                "apiGroup": string("API group of the runtime (trainer.kubeflow.org).", maxLength=253,
                                   default="trainer.kubeflow.org"),
                "kind": string("Kind of the runtime: TrainingRuntime or ClusterTrainingRuntime.", maxLength=253,
                               default="ClusterTrainingRuntime"),
                "name": string("Name of the runtime; a TrainingRuntime must be in the TrainJob's namespace.",
                               minLength=1, maxLength=253),
            }, "Reference to the training runtime.", required=["name"]),
            "suspend": boolean("Suspend the TrainJob.", default=False),
            "trainer": node(
                description="Trainer container configuration; overrides the runtime's trainer step.",
                type="object",
                properties={
                    "args": strings("Arguments of the training container."),
                    "command": strings("Entrypoint of the training container."),
                    "env": array(env_var(), "Environment merged into the runtime's trainer environment."),
                    "image": string("Training container image.", maxLength=500),
                    "numNodes": int32("Number of training nodes; set to the group size by the Job controller."),
                    "numProcPerNode": int_or_string("Processes per node (an integer, or auto for torch)."),
                    "resourcesPerNode": resource_requirements("Compute resources per training node."),
                },
                x_kubernetes_preserve_unknown_fields=True),
        },
        required=["runtimeRef"], x_kubernetes_preserve_unknown_fields=True)


def job_spec(d):
    return with_rules(obj({
        "workload": with_rules(node(
            description="The workload to run; exactly one member must be set.", type="object",
            minProperties=1, maxProperties=1,
            properties={"trainJob": train_job_spec()}), immutable("workload")),
        "workloadMetadata": workload_metadata("Metadata applied to the workload object.",
                                              immutable("workloadMetadata")),
        "nodeHealthMonitor": with_rules(obj({
            "cel": obj({"expression": string("CEL over the variable node (core/v1 Node) returning bool; "
                                             "true marks the node unhealthy.", minLength=1, maxLength=2048)},
                       "CEL health check.", required=["expression"]),
        }, "Node health check while the workload runs; the Workflow injects node.spec.unschedulable == true."),
            immutable("nodeHealthMonitor")),
        "checkpoint": obj({
            "pvcName": string("PVC dependency holding the checkpoints.", minLength=1),
            "maxRestarts": int32("Restarts from checkpoint allowed.", default=0),
        }, "Checkpoint restart configuration.", required=["pvcName"]),
        "stallMultiplier": int32("Stall when the time since the last step exceeds this multiple of the average "
                                 "step time (needs a GoodputMeasurement).", minimum=1),
        "startupStallTimeoutSeconds": int32("Seconds allowed before the first step (default 1200); "
                                            "only with stallMultiplier.", minimum=1),
        "schedulingStallGraceSeconds": int32("Seconds of unschedulable pods before InProgress reason "
                                             "WorkloadSchedulingBlocked (default 300).", minimum=1),
        "goodputMeasurement": goodput_measurement_config(immutable("goodputMeasurement")),
        "bandwidthMeasurement": bandwidth_measurement_config(immutable("bandwidthMeasurement")),
        "thresholds": string_map("Metric name to CEL expression over value; evaluated after success."),
        "measurementTimeout": duration("Wait for measurement data after success (default 5m)."),
    }, d, required=["workload"]), *JOB_SPEC_PRESENCE)

# ---------------------------------------------------------------- Workflow building blocks


def string_match(d):
    return obj({"equals": string("Value must equal this."),
                "in": strings("Value must be one of these."),
                "notIn": strings("Value must be none of these.")}, d)


def when_spec(d):
    return obj({
        "gpuArchitecture": string_match("Match on the detected GPU architecture (h100, gb200, ...)."),
        "platform": string_match("Match on the detected platform (aws, gcp, azure, oci, onprem, ...)."),
        "workloadKind": string("Match on the workload kind, e.g. TrainJob."),
        "topology": obj({
            "mode": string("Topology mode: single-rack, multi-rack or multi-zone."),
            "domainCount": obj({"equals": integer("Count equals."),
                                "greaterThan": integer("Count is greater than."),
                                "lessThan": integer("Count is less than.")},
                               "Match on the number of topology domains."),
        }, "Match on the node topology."),
        "config": schemaless("Subset matched against validation.performance.config."),
        "expression": string("CEL boolean over gpuArchitecture, platform, workloadKind, topology and config."),
    }, d)


def dependency_spec():
    return node(
        description="A Kubernetes object created before the workload (TrainingRuntime, ConfigMap, PVC, "
                    "ComputeDomain, ...), with an optional sibling when clause.",
        type="object", properties={"when": when_spec("Create the object only when this matches; empty = always.")},
        x_kubernetes_embedded_resource=True, x_kubernetes_preserve_unknown_fields=True)


def topology_spec():
    return obj({
        "topologyKey": string("Node label that defines domains, e.g. nvidia.com/gpu.clique.", minLength=1),
        "strictDomain": boolean("One group per domain at its natural size (intra-rack)."),
    }, "Topology-aware partitioning.", required=["topologyKey"])


def execution_spec():
    return obj({
        "maxConcurrent": integer("Jobs running at once; 0 = unlimited.", default=0, minimum=0),
        "timeoutPerJob": duration("Timeout of each Job, e.g. 30m."),
        "retryFailedGroups": integer("Re-creations of a failed group's Job (timed-out Jobs are not retried).",
                                     default=0, minimum=0),
    }, "Job execution limits.")


# NVCRE enumerates the two modes only; an unset field means Pinned.
PLACEMENT = dict(enum=["Pinned", "Unpinned"])


def orchestration_spec():
    return obj({
        "target": target_spec("Nodes to run on; all cluster nodes when unset."),
        "topology": topology_spec(),
        "diagnose": obj({
            "minGroupSize": integer("Smallest bisection group.", default=2, minimum=1),
            "topologyKey": string("Screening domain label; chunks of ceil(sqrt(N)) nodes when empty."),
        }, "Adaptive fault isolation."),
        "execution": execution_spec(),
        "iterations": integer("Times every group is run.", default=1, minimum=1),
        "placement": string("Pinned (default) pins each Job to its group's nodes; Unpinned runs one Job of the "
                            "requested size without a hostname pin.", **PLACEMENT),
    }, "How target nodes are partitioned into groups and Jobs are run.")


def override_spec():
    return obj({
        "when": when_spec("Condition under which the override applies; empty = always."),
        "jobTemplate": schemaless("Strategic-merge patch applied to spec.jobTemplate."),
        "jobTemplatePatch": schemaless("RFC 6902 JSON patch applied to spec.jobTemplate after jobTemplate."),
        "dependencies": array(dependency_spec(), "Dependencies merged by apiVersion, kind and name, else appended."),
        "orchestration": obj({
            "target": target_spec("Replaces orchestration.target."),
            "topology": desc(topology_spec(), "Replaces orchestration.topology."),
            "execution": desc(execution_spec(), "Replaces orchestration.execution."),
            "iterations": integer("Replaces orchestration.iterations."),
            "placement": string("Replaces orchestration.placement.", **PLACEMENT),
        }, "Orchestration fields replaced when set."),
    }, "A conditional change of the Workflow, applied in list order.", required=["when"])


def validation_spec():
    return obj({
        "performance": obj({
            "enabled": boolean("Enable performance validation.", default=False),
            "plugin": string("Result plugin, e.g. nemo-training or nccl-tests."),
            "config": schemaless("Plugin configuration."),
            "tracking": obj({"perNode": boolean("Record results per node.", default=False),
                             "perDomain": boolean("Record results per topology domain.", default=False)},
                            "Result tracking."),
            "thresholds": obj({"thresholds": string_map("Metric name to CEL expression over value.")},
                              "Thresholds copied into every Job."),
            "measurementTimeout": duration("Measurement timeout copied into every Job."),
        }, "Performance validation."),
    }, "Result validation.")

# ---------------------------------------------------------------- status types


def failed_node():
    return obj({
        "name": string("Node name."),
        "reason": string("Why the node failed.", enum=["HardwareFailureDetected", "ThresholdViolation",
                                                      "WorkloadFailed"]),
        "message": string("Details."),
    }, "A node that failed, once per reason.", required=["name", "reason"])


def failed_nodes(d):
    return array(failed_node(), d, x_kubernetes_list_type="map", x_kubernetes_list_map_keys=["name", "reason"])


NODES_REF = {
    "succeededNodesRef": typed_local_object_reference(
        "ConfigMap listing the passing nodes (binaryData succeeded-nodes.csv.gz)."),
    "failedNodesRef": typed_local_object_reference(
        "ConfigMap listing the failed nodes with reasons (binaryData failed-nodes.json.gz)."),
}
