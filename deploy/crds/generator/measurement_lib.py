"""The measurement kinds: GoodputMeasurement, BandwidthMeasurement (namespaced, status) and LogProfile
(cluster-scoped, no status)."""
from types_lib import *

DURATION_UNITS = ["s", "ms", "us"]


def job_ref(measured):
    return typed_local_object_reference(f"The nvcre Job whose logs are measured for {measured} "
                                        "(apiGroup nvcre.nvidia.com, kind Job).")


def measurement_spec(measured, profile_use, extra=None):
    props = {
        "jobRef": job_ref(measured),
        "logProfileRef": string(f"Name of the cluster-scoped LogProfile {profile_use}.", minLength=1),
        "sampleInterval": duration("How often the pod logs are read while the Job runs (default 60s)."),
    }
    props.update(extra or {})
    return obj(props, f"Desired {measured} measurement of one Job.", required=["logProfileRef"])


MEASUREMENT_CONDITIONS = ("Measuring (the Job is running) and Complete (the Job reached a terminal state; "
                          "the reason says whether the result is final).")


def goodput_measurement_schema():
    spec = measurement_spec("goodput", "whose patterns parse the training logs")
    seconds = lambda d: string(d + " (decimal string, seconds).")
    status = obj({
        "result": string("Goodput ratio 0..1 (decimal string): (t_w - t_ch - t_rm - t_re - t_save) / "
                         "(t_w - t_re); absent when no data was collected."),
        "currentStep": integer("Latest training step seen in the logs."),
        "highestStep": integer("Highest training step ever reached (above currentStep after a restart)."),
        "trainingTimeSec": seconds("Training wall-clock time t_w"),
        "lostWorkTimeSec": seconds("Work lost since the last checkpoint, summed over interruptions (t_ch)"),
        "rescheduleTimeSec": seconds("Scheduling delay after interruptions (t_re)"),
        "resumeTimeSec": seconds("Checkpoint load and resume time (t_rm)"),
        "checkpointSaveTimeSec": seconds("Checkpoint save overhead (t_save)"),
        "interruptionCount": integer("Interruptions detected."),
        "lastCheckpointStep": integer("Step of the last saved checkpoint."),
        "lastCheckpointTime": datetime("When the last checkpoint was saved (kept across controller restarts)."),
        "startTime": datetime("When the measured Job started running."),
        "completionTime": datetime("When the measured Job reached a terminal state."),
        "lastStepTimestamp": datetime("Time of the latest training step (stall detection by the Job)."),
        "avgStepTimeSec": seconds("Average step time without warmup steps"),
        "logInterval": integer("Log interval of the LogProfile, kept so the Job's stall threshold can scale "
                               "with the steps between logged lines."),
        "warmupBaseStep": integer("First step after the latest run start or restore; steps within warmupSteps "
                                  "of it are warmup."),
        "warmupTimeSec": seconds("Time spent in warmup steps over all runs"),
        "nonWarmupTimeSec": seconds("Time spent in non-warmup steps over all runs"),
        "lastNonWarmupStep": integer("Highest step whose time is in nonWarmupTimeSec (no double counting "
                                     "across reads)."),
        "priorWarmupTimeSec": seconds("Warmup time of the finished runs"),
        "priorNonWarmupTimeSec": seconds("Non-warmup time of the finished runs"),
        "avgTFLOPSPerGPU": string("Average TFLOPS per GPU over the logged steps, warmup included (decimal "
                                  "string)."),
        "applicationStartTime": datetime("Time of the first application start line."),
        "applicationStopTime": datetime("Time of the last application log line: the interruption time."),
        "pendingInterruption": obj({
            "tCheckpoint": datetime("Time of the last checkpoint before the interruption."),
            "tInterrupt": datetime("When the workload was interrupted."),
            "checkpointStep": integer("Step of the last checkpoint before the interruption."),
            "lastStep": integer("Last step seen before the interruption."),
            "tCh": seconds("Work lost since that checkpoint"),
            "reason": string("Why the workload was interrupted."),
        }, "An interruption not yet closed by the restarted run (kept across controller restarts)."),
        "conditions": conditions(MEASUREMENT_CONDITIONS),
    }, "Observed goodput of the Job.")
    return spec, status


def bandwidth_measurement_schema():
    spec = measurement_spec("bandwidth", "whose bandwidthResult pattern parses the NCCL test output", {
        "testType": string("NCCL collective measured, e.g. all_reduce or alltoall (Prometheus label "
                           "nccl_test)."),
    })
    status = obj({
        "results": array(obj({
            "sizeBytes": int64("Message size in bytes."),
            "algBW": string("Average algorithm bandwidth in GB/s (decimal string)."),
            "busBW": string("Average bus bandwidth in GB/s (decimal string)."),
            "samples": integer("Rows averaged for this size."),
        }, "Average bandwidth of one message size.", required=["sizeBytes", "algBW", "busBW", "samples"]),
            "Bandwidth per message size: running averages while the Job runs, exact averages of the whole "
            "launcher log once it succeeded."),
        "transport": strings("NCCL network names seen in the logs, e.g. IB or Socket."),
        "startTime": datetime("When the measured Job started running."),
        "completionTime": datetime("When the measured Job reached a terminal state."),
        "conditions": conditions(MEASUREMENT_CONDITIONS),
    }, "Observed bandwidth of the Job.")
    return spec, status


def event_pattern(d):
    return obj({
        "regex": string("RE2 regular expression with named groups ((?P<name>...)). Typed captures: "
                        "globalStep, iteration, epoch, step, size (integers); stepTiming, loss, tflops, "
                        "elapsedTime, saveDuration, algBW, busBW (numbers); path (text); timestamp (parsed "
                        "with spec.timestamp.layout).", minLength=1),
        "example": string("A log line the regex must match; checked when the profile is loaded."),
        "units": node(description="Unit of each duration capture (stepTiming, elapsedTime, saveDuration): s, "
                                  "ms or us; seconds when not listed.",
                      type="object", additionalProperties=string(enum=DURATION_UNITS)),
    }, d, required=["regex"])


def logprofile_schema():
    first_or_last = dict(enum=["first", "last"], default="first")
    spec = obj({
        "timestamp": obj({
            "layout": string("Go time layout of (?P<timestamp>...) captures, e.g. 2006-01-02 15:04:05.999999. "
                             "Lines without that capture take the kubelet's RFC 3339 line prefix.", minLength=1),
        }, "How captured timestamps are parsed.", required=["layout"]),
        "patterns": obj({
            "trainingStep": event_pattern("A training iteration line."),
            "checkpointSave": event_pattern("A checkpoint save start line (or a whole save with saveDuration)."),
            "checkpointDone": event_pattern("A checkpoint save completion line."),
            "checkpointRestore": event_pattern("A checkpoint restore (load start) line."),
            "checkpointLoaded": event_pattern("A checkpoint load completion line."),
            "applicationStart": event_pattern("The line that shows the application started."),
            "warmupStep": event_pattern("Marks a training step line as warmup (a match is enough)."),
            "bandwidthResult": event_pattern("An NCCL test result row (size, algBW, busBW); read by "
                                             "BandwidthMeasurement."),
        }, "The regexes that turn log lines into events."),
        "workerStrategy": obj({
            "type": string("Single reads every event from worker 0; Multi reads lifecycle events and "
                           "training steps from the pods named below.", enum=["Single", "Multi"]),
            "lifecyclePod": string("Pod with checkpoint and start lines with type Multi: first (worker 0) or "
                                   "last (highest index).", **first_or_last),
            "trainingStepPod": string("Pod with the training step lines with type Multi: first or last.",
                                      **first_or_last),
            "replicatedJobName": string("JobSet replicated job whose pods are read: trainer, or launcher for "
                                        "MPI.", default="trainer"),
        }, "Which pods of a multi-worker job are read; worker 0 only when unset.", required=["type"]),
        "containerName": string("Container whose logs are read; detected from the workload when empty."),
        "warmupSteps": integer("Steps after each start or restore flagged as warmup (left out of the "
                               "average step time)."),
        "logInterval": integer("The framework's log interval: steps whose global step is not a multiple are "
                               "dropped."),
    }, "Log parsing rules of one training framework or test.", required=["timestamp", "patterns"])
    return spec
