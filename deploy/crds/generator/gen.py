"""Writes deploy/crds/*.yaml for nvcre. Run: python3 gen.py <repo>/deploy/crds"""
import sys, os, yaml
from types_lib import *
from measurement_lib import *
from report_lib import *

GROUP = "nvcre.nvidia.com"


def certification_schema():
    spec_props = {
        "target": target_spec("Nodes to certify."),
        "categories": array(obj({
            "domain": string("Catalog domain, e.g. communication, training, diagnostics, compute."),
            "variant": string("Catalog variant, e.g. nccl-all-reduce, nemotron5-8b, dcgm-level4."),
            "options": obj(category_options(), "Per-category options; set fields replace the global ones "
                                               "(workloadMetadata.labels merge per key)."),
        }, "A catalog entry to run.", required=["domain", "variant"]),
            "Catalog categories, run sequentially in this order (one Workflow each).", minItems=1, maxItems=64),
        "gangScheduler": gang_scheduler_spec("Gang scheduling for every category's workload."),
    }
    spec_props.update(category_options())
    spec = with_rules(obj(spec_props, "Desired certification: target nodes, categories and global category "
                                      "options. Immutable after creation.", required=["target", "categories"]), R1)
    status = obj({
        "conditions": conditions("InProgress, Succeeded and Failed (exactly one True) and ValidationFailed."),
        "categoryStatuses": array(obj({
            "domain": string("Catalog domain."),
            "variant": string("Catalog variant."),
            "status": string("Progress of the category.", enum=["Pending", "InProgress", "Succeeded", "Failed"]),
            "workflowRef": workflow_reference("The category's Workflow."),
            **NODES_REF,
        }, "Progress of one category.", required=["domain", "variant", "status"]),
            "One entry per spec category, in the same order."),
    }, "Observed state of the certification.")
    return spec, status


def workloadrun_schema():
    spec = with_rules(obj({
        "target": target_spec("Nodes to run on; all nodes labelled nvidia.com/gpu.present=true when unset."),
        "image": string("Container image of the workload.", minLength=1),
        "framework": node(
            description="How the image is launched; exactly one of torch, mpi or exec.", type="object",
            minProperties=1, maxProperties=1,
            properties=dict(sorted({
                "torch": with_rules(obj({
                    "script": string("Python script run by torchrun.", minLength=1),
                    "module": string("Python module run by torchrun -m.", minLength=1),
                    "args": strings("Arguments after the script or module."),
                }, "PyTorch distributed launch via torchrun."), R11, R12),
                "mpi": obj({
                    "binary": string("Program started on every rank.", minLength=1),
                    "args": strings("Arguments of the binary."),
                    "mpiArgs": strings("Extra mpirun arguments; pass environment to ranks with -x NAME=value."),
                    "mpiImplementation": string("MPI implementation.", default="OpenMPI"),
                    "mpirunPath": string("Path of mpirun in the image.", minLength=1),
                }, "MPI launch (launcher + worker pods over SSH).", required=["binary", "mpirunPath"]),
                "exec": obj({
                    "command": strings("Command to run.", minItems=1),
                    "args": strings("Arguments of the command."),
                }, "Run a command on every node.", required=["command"]),
            }.items()))),
        "numNodes": int32("Nodes per job group; eligible nodes are partitioned into groups of this size.",
                          minimum=1),
        "config": with_rules(obj({
            "inline": string_map("File name to content; stored in a generated ConfigMap mounted at /config."),
            "configMapRef": local_object_reference("Existing ConfigMap mounted at /config."),
        }, "Configuration files mounted at /config."), R13),
        "gpusPerNode": int32("GPUs per node; defaults from the GPU architecture.", minimum=1),
        "mlnxPerNode": int32("NICs per node; 0 opts out of NIC requests.", minimum=0),
        "nicResourceName": nic_resource_name("Extended resource name of the RDMA NIC, e.g. nvidia.com/mlnxnics."),
        "imagePullSecrets": array(local_object_reference("A pull secret in the run's namespace."),
                                  "Pull secrets for the image."),
        "env": array(env_var(), "Environment merged over the automatic NCCL/platform variables (user wins)."),
        "volumes": array(volume(), "Extra pod volumes (a /dev/shm volume is always added)."),
        "volumeMounts": array(volume_mount(), "Extra mounts of the workload container."),
        "enableMNNVL": boolean("Enable multi-node NVLink; automatic (gb200/gb300) when unset."),
        "checkpoint": obj({
            "storageSize": string("Size of the checkpoint PVC, e.g. 1Ti.", pattern=STORAGE_SIZE_PATTERN),
            "storageClassName": string("Storage class of the PVC; cluster default when empty."),
            "maxRestarts": int32("Restarts from checkpoint allowed.", default=0, minimum=0),
        }, "Provision a checkpoint PVC and restart from it.", required=["storageSize"]),
        "resources": resource_requirements("Resources of the workload container; the GPU request is filled "
                                           "from gpusPerNode when unset."),
        "initContainers": array(container(), "Init containers of the workload pods."),
        "orchestration": obj({
            "testScale": string("Grouping of the target nodes.", default="full-scale",
                                enum=["intra-node", "intra-rack", "full-scale"]),
            "repeatCount": int32("Workflow iterations.", default=1, minimum=1),
            "maxConcurrent": int32("Jobs running at once; 0 = unlimited.", default=0, minimum=0),
            "timeoutPerJob": string("Per-Job timeout, e.g. 20m. Default 24h (also when the value does not parse): a "
                                     "backstop against a run that never finishes, far above the catalog's 1h."),
            "placement": string("Pinned (default) runs one Job per group of numNodes target nodes, each pinned to its "
                                "nodes; Unpinned runs exactly one Job of numNodes nodes that the scheduler places "
                                "among the target nodes (not with testScale intra-node or intra-rack).", **PLACEMENT),
        }, "Grouping and execution of the run."),
        "thresholds": string_map("Metric name to CEL expression over value, e.g. busBandwidthGBps: value >= 400."),
        "goodputMeasurement": goodput_measurement_config(),
        "bandwidthMeasurement": bandwidth_measurement_config(),
        "overrides": array(override_spec(), "Overrides appended after the automatic platform overrides."),
        "gangScheduler": gang_scheduler_spec("Gang scheduling for the workload."),
        "workloadMetadata": workload_metadata("Metadata for the workload object (copied into the Workflow's "
                                              "job template)."),
    }, "Desired ad-hoc run: one image and one framework. Immutable after creation.",
        required=["image", "framework", "numNodes"]), R1)
    status = obj({
        "conditions": conditions("InProgress, Succeeded and Failed (exactly one True) and ValidationFailed."),
        "workflowRef": workflow_reference("The generated Workflow."),
        "detectedPlatform": string("Detected platform, e.g. aws, gcp, azure, oci, onprem."),
        "detectedGPUArchitecture": string("Detected GPU architecture, e.g. h100, gb200, gb300, b300."),
        "resolvedGpusPerNode": int32("GPUs per node actually requested."),
        **NODES_REF,
    }, "Observed state of the run.")
    return spec, status


def job_template_spec():
    return obj({
        "metadata": obj({
            "labels": string_map("Labels copied onto every Job."),
            "annotations": string_map("Annotations copied onto every Job."),
        }, "Metadata copied onto every Job."),
        "spec": job_spec("Spec of every Job."),
    }, "Template of the Jobs created per group and iteration.", required=["spec"])


def workflow_schema():
    spec = with_rules(obj({
        "namespace": string("Namespace for Jobs and dependencies; generated when empty (see status.namespace)."),
        "jobTemplate": job_template_spec(),
        "orchestration": orchestration_spec(),
        "dependencies": array(dependency_spec(), "Objects created before the workload, filtered by when."),
        "overrides": array(override_spec(), "Conditional changes; every matching entry is applied in order."),
        "validation": validation_spec(),
        "gangScheduler": gang_scheduler_spec("Resolved gang scheduling intent (defaults filled); value and "
                                             "presence are immutable.", R14),
    }, "Desired execution of one category or WorkloadRun.", required=["jobTemplate", "orchestration"]), R15)

    group_phase = ["Pending", "Running", "Succeeded", "Failed"]
    group_status = obj({
        "name": string("Group name, e.g. group-0 or group-1-overflow."),
        "nodes": strings("Nodes of the group."),
        "domains": strings("Topology domains of the group."),
        "domainNodeCounts": node(description="Nodes per topology domain.", type="object",
                                 additionalProperties=integer()),
        "overflow": boolean("The group borrows nodes and waits for the lending groups."),
        "phase": string("Phase in the current iteration.", enum=group_phase),
        "retries": integer("Retries performed."),
        "jobRef": workload_reference("The group's Job (nvcre.nvidia.com/v1alpha1 Job)."),
        "startTime": datetime("When the group's Job started."),
        "completionTime": datetime("When the group's Job finished."),
    }, "State of one node group.", required=["name", "phase"])
    screening = node(description="Screening result per domain.", type="object", additionalProperties=obj({
        "nodes": strings("Nodes screened."),
        "passed": boolean("The screening group passed."),
    }))
    diagnose = obj({
        "stage": string("Diagnose stage: intra-screening, intra-screening-no-nvl, inter-screening, bisection, "
                        "confirmation, cross-boundary or complete."),
        "round": integer("Completed rounds."),
        "healthyNodes": strings("Nodes proven healthy.", x_kubernetes_list_type="set"),
        "suspectNodes": strings("Nodes suspected faulty.", x_kubernetes_list_type="set"),
        "noNVLSuspectNodes": strings("Suspects found with NVLink disabled.", x_kubernetes_list_type="set"),
        "representativeNodes": strings("One healthy node per screening group for inter-domain screening."),
        "screeningResults": screening,
        "noNVLScreeningResults": desc(screening, "Screening result per domain with NVLink disabled."),
        "infrastructureFaults": array(obj({
            "domain": string("Domain of the fault."),
            "groupA": strings("First half."),
            "groupB": strings("Second half."),
            "stage": string("Stage that found the fault."),
        }), "Faults between node sets that pass on their own."),
        "crossBoundaryState": obj({
            "pendingProbes": array(obj({
                "domain": string("Domain probed."),
                "halfA": strings("First half."),
                "halfB": strings("Second half."),
                "probeRound": integer("Narrowing round."),
            }), "Probes still to run."),
            "originStage": string("Stage that started the cross-boundary probes."),
        }, "State of cross-boundary probing.", required=["originStage"]),
    }, "Adaptive fault isolation state.", required=["stage", "round"])
    orchestration = obj({
        "totalNodes": integer("Target nodes after exclusions."),
        "nodesPerJob": integer("Nodes per Job."),
        "totalGroups": integer("Groups in the current round."),
        "currentIteration": integer("Current iteration (1-based)."),
        "completedIterations": integer("Completed iterations."),
        "iterationHistory": array(obj({
            "iteration": integer("Iteration number."),
            "groups": array(obj({
                "name": string("Group name."),
                "phase": string("Final phase.", enum=group_phase),
                "jobName": string("Job that ran the group."),
                "startTime": datetime("Start."),
                "completionTime": datetime("Completion."),
            }), "Group results."),
        }), "Results of finished iterations (the last iteration stays in groups)."),
        "detectedPlatform": string("Detected platform: aws, gcp, azure, oci, onprem, unknown, ..."),
        "detectedGPUArchitecture": string("Detected GPU architecture: h100, a100, l40s, gb200, gb300, b300, "
                                          "unknown, ..."),
        "gpuProducts": strings("Distinct nvidia.com/gpu.product values of the kept nodes."),
        "placement": string("Placement in effect (Pinned or Unpinned)."),
        "excludedNodes": strings("Target nodes left out (cordoned, minority GPU architecture, too few GPUs)."),
        "exclusionReason": string("Why nodes were excluded."),
        "appliedOverrides": array(obj({
            "index": integer("Index in spec.overrides."),
            "when": string("Summary of the matching condition."),
            "patches": string("Summary of the applied changes."),
            "noOp": boolean("The override matched but changed nothing."),
        }), "Overrides that matched."),
        "diagnose": diagnose,
        "groups": array(group_status, "Groups of the current iteration or diagnose round."),
    }, "Partitioning and progress.", required=["totalNodes", "nodesPerJob", "totalGroups"])
    status = obj({
        "conditions": conditions("InProgress, Succeeded and Failed (exactly one True) and ValidationFailed."),
        "namespace": string("Namespace actually used."),
        **NODES_REF,
        "dependencyRefs": array(obj({
            "apiVersion": string("API version."),
            "kind": string("Kind."),
            "name": string("Name."),
            "namespace": string("Namespace; empty for cluster-scoped objects."),
            "scope": string("Lifetime of the object.", enum=["workflow", "job"]),
            "groupName": string("Group of a job-scoped copy."),
            "iteration": integer("Iteration of a job-scoped copy."),
        }, required=["apiVersion", "kind", "name"]), "Created dependencies in creation order (deleted in reverse)."),
        "orchestration": orchestration,
        "nodeResults": node(description="Per-node results (tracking.perNode).", type="object",
                            additionalProperties=obj({
                                "domain": string("Topology domain."),
                                "group": string("Group."),
                                "status": string("Passed, Failed or Running."),
                                "iterations": array(obj({
                                    "iterationNumber": integer("Iteration."),
                                    "tflops": string("TFLOPS (decimal string)."),
                                    "duration": string("Duration in seconds (decimal string)."),
                                    "memoryUsedGB": string("Memory used in GB (decimal string)."),
                                    "status": string("Succeeded or Failed."),
                                }), "Per-iteration metrics."),
                            })),
        "domainResults": node(description="Per-domain results (tracking.perDomain).", type="object",
                              additionalProperties=obj({
                                  "nodeCount": integer("Nodes in the domain."),
                                  "status": string("Aggregated status."),
                                  "averageTflops": string("Average TFLOPS (decimal string)."),
                              })),
    }, "Observed state of the Workflow.")
    return spec, status


def job_schema():
    spec = job_spec("Desired execution of one workload on one node group.")
    status = obj({
        "conditions": conditions("InProgress, Succeeded and Failed (exactly one True), HardwareFailed and "
                                 "ValidationFailed."),
        "failedNodes": failed_nodes("Failed nodes, once per (name, reason)."),
        "workloadRef": workload_reference("The created workload (TrainJob)."),
        "workloadStartTime": datetime("When the workload was first seen running; timeoutPerJob counts from here."),
        "schedulingBlockedSince": datetime("Start of the current unschedulable episode."),
        "schedulingResumedTime": datetime("End of the last unschedulable episode."),
        "restartCount": int32("Checkpoint restarts performed."),
        "failureLog": obj({
            "podName": string("Failed pod."),
            "nodeName": string("Node of the failed pod."),
            "exitCode": int32("Exit code of the failed container."),
            "reason": string("Termination reason, e.g. OOMKilled or Error."),
            "tail": string("Last log lines (at most 32 KiB) or why no log could be read."),
        }, "Diagnostics of the first failed pod.", required=["podName", "nodeName", "exitCode"]),
    }, "Observed state of the Job.")
    return spec, status


STATUS_COL = {"name": "Status", "type": "string", "jsonPath": SQ('.status.conditions[?(@.status=="True")].type'),
              "description": "True conditions."}
REASON_COL = {"name": "Reason", "type": "string", "jsonPath": SQ('.status.conditions[?(@.status=="True")].reason'),
              "description": "Reason of the True conditions."}
AGE_COL = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}


def crd(kind, plural, short, desc_text, spec, status, columns, scope="Namespaced"):
    """status None: no status field and no status subresource (LogProfile)."""
    singular = kind.lower()
    props = {
        "apiVersion": string("Versioned schema of this representation of an object."),
        "kind": string("REST resource this object represents."),
        "metadata": node(type="object"),
        "spec": spec,
    }
    if status is not None:
        props["status"] = status
    root = obj(props, desc_text, required=["spec"])
    names = {"kind": kind, "listKind": kind + "List", "plural": plural, "singular": singular}
    if short:
        names["shortNames"] = short
    names["categories"] = ["nvcre"]
    version = {"name": "v1alpha1", "served": True, "storage": True}
    if columns:
        version["additionalPrinterColumns"] = columns
    version["schema"] = {"openAPIV3Schema": root}
    if status is not None:
        version["subresources"] = {"status": {}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}", "labels": {"app.kubernetes.io/part-of": "nvcre"}},
        "spec": {
            "group": GROUP,
            "names": names,
            "scope": scope,
            "versions": [version],
        },
    }


class Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


def _str(dumper, data):
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


Dumper.add_representer(str, _str)
Dumper.add_representer(SQ, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", str(s), style="'"))
Dumper.add_representer(DQ, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", str(s), style='"'))


def write(path, header, doc):
    text = yaml.dump(doc, Dumper=Dumper, sort_keys=False, width=100000, default_flow_style=False,
                     allow_unicode=True)
    with open(path, "w") as f:
        f.write(header + "---\n" + text)


def main(out):
    cert_s, cert_st = certification_schema()
    wlr_s, wlr_st = workloadrun_schema()
    wf_s, wf_st = workflow_schema()
    job_s, job_st = job_schema()
    goodput_s, goodput_st = goodput_measurement_schema()
    bandwidth_s, bandwidth_st = bandwidth_measurement_schema()
    hdr = ("# {kind} ({group}/v1alpha1), written for nvcre from the NVCRE API facts.\n"
           "# Embedded by api/ (schema + CEL-rule validation) and served by kube-sim; see README.md.\n")
    docs = {
        # No short name may shadow a popular kind's: cert/certs belong to cert-manager's Certificate,
        # wf to Argo's Workflow. `kubectl get nvcre` (the category) lists all of ours.
        "certifications": crd("Certification", "certifications", [],
                              "Certification runs catalog categories (domain/variant) sequentially against a "
                              "node pool, one Workflow per category.", cert_s, cert_st,
                              [STATUS_COL, REASON_COL, AGE_COL]),
        "workloadruns": crd("WorkloadRun", "workloadruns", ["wlr"],
                            "WorkloadRun runs one image with one framework (torch, mpi or exec) across node "
                            "groups through a generated Workflow.", wlr_s, wlr_st,
                            [STATUS_COL,
                             {"name": "Platform", "type": "string", "jsonPath": ".status.detectedPlatform"},
                             {"name": "GPU", "type": "string", "jsonPath": ".status.detectedGPUArchitecture"},
                             dict(REASON_COL, priority=1), AGE_COL]),
        "workflows": crd("Workflow", "workflows", [],
                         "Workflow partitions target nodes into groups, creates dependencies and one Job per "
                         "group and iteration, and aggregates the results.", wf_s, wf_st,
                         [STATUS_COL,
                          {"name": "Groups", "type": "integer", "jsonPath": ".status.orchestration.totalGroups"},
                          {"name": "Platform", "type": "string",
                           "jsonPath": ".status.orchestration.detectedPlatform"},
                          dict(REASON_COL, priority=1), AGE_COL]),
        "jobs": crd("Job", "jobs", ["nvjob"],
                    "Job runs one workload (a Kubeflow TrainJob) on one node group, watches node health, "
                    "creates measurements and evaluates thresholds.", job_s, job_st,
                    [STATUS_COL,
                     {"name": "Workload", "type": "string", "jsonPath": ".status.workloadRef.name"},
                     dict(REASON_COL, priority=1), AGE_COL]),
        # The measurement kinds have no short names or printer columns, as in NVCRE.
        "goodputmeasurements": crd("GoodputMeasurement", "goodputmeasurements", [],
                                   "GoodputMeasurement reads a Job's training logs through a LogProfile and "
                                   "computes its goodput and step statistics.", goodput_s, goodput_st, []),
        "bandwidthmeasurements": crd("BandwidthMeasurement", "bandwidthmeasurements", [],
                                     "BandwidthMeasurement reads a Job's NCCL test output through a LogProfile "
                                     "and keeps the average bandwidth per message size.", bandwidth_s,
                                     bandwidth_st, []),
        "logprofiles": crd("LogProfile", "logprofiles", [],
                           "LogProfile (cluster-scoped) holds the regexes that turn one framework's log lines "
                           "into training, checkpoint and bandwidth events.", logprofile_schema(), None, [],
                           scope="Cluster"),
        # NVCRE's short name; it shadows no well-known kind.
        "reportexportpolicies": crd("ReportExportPolicy", "reportexportpolicies", ["rep"],
                                    "ReportExportPolicy subscribes a webhook to the final reports of the "
                                    "Certifications it selects (nvcre admits and serves it; no controller "
                                    "delivers reports yet).", report_export_policy_schema(), None,
                                    [{"name": "URL", "type": "string", "jsonPath": ".spec.webhook.url"},
                                     {"name": "Suspended", "type": "boolean", "jsonPath": ".spec.suspend"},
                                     AGE_COL]),
    }
    for plural, doc in docs.items():
        kind = doc["spec"]["names"]["kind"]
        write(os.path.join(out, f"{GROUP}_{plural}.yaml"), hdr.format(kind=kind, group=GROUP), doc)


if __name__ == "__main__":
    main(sys.argv[1])
