// The typed nvcre.nvidia.com/v1alpha1 model: custom codecs (DependencySpec `when`, inline
// CategoryOptions, int-or-string), error paths, raw parts, presence, type-meta checks, and decoding
// of the shipped examples.
#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/thrown.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace json = boost::json;
using namespace nvcre::api;
using namespace nvcre::jsonkit;

namespace {

// The message of the DecodeError `fn` throws; fails the test when it throws nothing.
template <class Fn>
std::string decode_error_of(Fn&& fn) {
  return nvcre::test::message_thrown<DecodeError>(std::forward<Fn>(fn));
}

template <class Fn>
std::vector<DecodeProblem> problems_of(Fn&& fn) {
  try {
    fn();
  } catch (const DecodeError& error) {
    return error.problems();
  }
  ADD_FAILURE() << "expected a DecodeError";
  return {};
}

json::value yaml(std::string_view text) { return parse_yaml(text); }

constexpr std::string_view kMinimalCertification = R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata: {name: c}
spec:
  target: {}
  categories: [{domain: communication, variant: nccl-all-reduce}]
)";

}  // namespace

// ---------------------------------------------------------------------------------------------
// DependencySpec: `when` is a sibling key inside the embedded object.

TEST(ApiTypes, DependencySpecDecodeStripsWhenFromTheObject) {
  const auto dependency = decode<DependencySpec>(yaml(R"(
apiVersion: resource.nvidia.com/v1beta1
kind: ComputeDomain
when:
  gpuArchitecture: {in: [gb200, gb300]}
  config: {tuning: [1, null]}
metadata: {name: cd}
spec: {numNodes: 0}
)"));
  EXPECT_EQ(dependency.resource, json::parse(R"({"apiVersion": "resource.nvidia.com/v1beta1",
      "kind": "ComputeDomain", "metadata": {"name": "cd"}, "spec": {"numNodes": 0}})")
                                     .as_object());
  // The remaining keys keep their order.
  std::vector<std::string> keys;
  for (const auto& entry : dependency.resource) keys.emplace_back(entry.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"apiVersion", "kind", "metadata", "spec"}));
  ASSERT_TRUE(dependency.when.gpuArchitecture.has_value());
  EXPECT_EQ(dependency.when.gpuArchitecture->in, (std::vector<std::string>{"gb200", "gb300"}));
  EXPECT_EQ(dependency.when.config, json::parse(R"({"tuning": [1, null]})"));
}

TEST(ApiTypes, DependencySpecEncodeMergesWhenBackAndOmitsItWhenEmpty) {
  DependencySpec dependency;
  dependency.resource =
      json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})")
          .as_object();
  EXPECT_EQ(json::serialize(encode(dependency)),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}})");

  dependency.when.platform = StringMatchSpec{.equals = "aws"};
  dependency.when.expression = "gpuArchitecture == 'h100'";
  EXPECT_EQ(json::serialize(encode(dependency)),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},)"
            R"("when":{"platform":{"equals":"aws"},"expression":"gpuArchitecture == 'h100'"}})");

  // `when: {}` and `when: null` mean "always", like no `when`; they are not written back.
  for (std::string_view when : {"{}", "null"}) {
    const auto decoded = decode<DependencySpec>(
        json::parse(R"({"kind": "ConfigMap", "when": )" + std::string(when) + "}"));
    EXPECT_EQ(decoded.when, WhenSpec{});
    EXPECT_EQ(encode(decoded), json::parse(R"({"kind": "ConfigMap"})")) << when;
  }
  // A matcher that is present but empty is kept: it is not the zero WhenSpec.
  const auto kept =
      decode<DependencySpec>(json::parse(R"({"kind": "X", "when": {"platform": {}}})"));
  EXPECT_EQ(encode(kept), json::parse(R"({"kind": "X", "when": {"platform": {}}})"));
}

TEST(ApiTypes, DependencySpecReportsWhenProblemsWithTheirPathAndKeepsTheRestRaw) {
  const auto problems = problems_of([] {
    decode_object<Workflow>(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Workflow
metadata: {name: wf}
spec:
  jobTemplate: {spec: {workload: {trainJob: {}}}}
  orchestration: {}
  dependencies:
    - {kind: A, anything: {goes: here}}
    - kind: B
      when: {gpuArchitecture: {in: gb200}, platfrom: {equals: aws}}
    - [not, an, object]
)"));
  });
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].field, "spec.dependencies[1].when.platfrom");
  EXPECT_EQ(problems[0].message, "unknown field \"spec.dependencies[1].when.platfrom\"");
  EXPECT_EQ(problems[1].field, "spec.dependencies[1].when.gpuArchitecture.in");
  EXPECT_EQ(problems[1].message, "expected array, got string");
  EXPECT_EQ(problems[2].field, "spec.dependencies[2]");
  EXPECT_EQ(problems[2].message, "expected object, got array");
}

TEST(ApiTypes, OverrideDependenciesUseTheSameCodec) {
  const auto override_spec = decode<OverrideSpec>(yaml(R"(
when: {platform: {equals: aws}}
dependencies:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: efa}, when: {workloadKind: TrainJob}}
)"));
  ASSERT_EQ(override_spec.dependencies.size(), 1u);
  EXPECT_FALSE(override_spec.dependencies[0].resource.contains("when"));
  EXPECT_EQ(override_spec.dependencies[0].when.workloadKind, "TrainJob");
  EXPECT_EQ(encode(override_spec).at("dependencies").at(0).at("when"),
            json::parse(R"({"workloadKind": "TrainJob"})"));
}

// ---------------------------------------------------------------------------------------------
// Error reporting.

TEST(ApiTypes, UnknownFieldInATypedPartNamesItsPath) {
  const std::string message = decode_error_of([] {
    decode_object<Certification>(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata: {name: c, labelz: {a: b}}
spec:
  target: {nodeSelectr: {a: b}}
  categories:
    - {domain: training, variant: nemotron5-8b, optoins: {nodesPerJob: 4}}
)"));
  });
  EXPECT_NE(message.find(R"(metadata.labelz: unknown field "metadata.labelz")"), std::string::npos)
      << message;
  EXPECT_NE(message.find(R"(spec.target.nodeSelectr: unknown field "spec.target.nodeSelectr")"),
            std::string::npos)
      << message;
  EXPECT_NE(
      message.find(R"(spec.categories[0].optoins: unknown field "spec.categories[0].optoins")"),
      std::string::npos)
      << message;
}

TEST(ApiTypes, UnknownInlineOptionIsReportedOnceAtSpecLevel) {
  const auto problems = problems_of([] {
    decode_object<Certification>(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata: {name: c}
spec:
  target: {}
  timeoutPerjob: 30m
  categories: [{domain: communication, variant: nccl-all-reduce, options: {maxbytes: 8G}}]
)"));
  });
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].field, "spec.categories[0].options.maxbytes");
  EXPECT_EQ(problems[1].field, "spec.timeoutPerjob");
  EXPECT_EQ(problems[1].message, "unknown field \"spec.timeoutPerjob\"");
}

TEST(ApiTypes, WrongTypeNamesThePathAndTheExpectedType) {
  const auto problems = problems_of([] {
    decode_object<WorkloadRun>(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: WorkloadRun
metadata: {name: r, generation: "1"}
spec:
  image: img
  numNodes: "2"
  enableMNNVL: "yes"
  target: {nodeNames: node-a}
  framework: {exec: {command: [run]}}
  env: [{name: A, valueFrom: "secret"}]
  resources: {limits: {cpu: [1]}}
  volumes: [name]
)"));
  });
  std::vector<std::string> lines;
  for (const auto& problem : problems) lines.push_back(problem.field + ": " + problem.message);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "metadata.generation: expected integer, got string",
                       "spec.target.nodeNames: expected array, got string",
                       "spec.numNodes: expected integer, got string",
                       "spec.env[0].valueFrom: expected object, got string",
                       "spec.volumes[0]: expected object, got string",
                       "spec.enableMNNVL: expected boolean, got string",
                       "spec.resources.limits[cpu]: expected integer or string, got array",
                   }));
}

TEST(ApiTypes, NumbersOutOfRangeAreErrors) {
  const std::string message = decode_error_of([] {
    decode<JobSpec>(json::parse(R"({"workload": {}, "stallMultiplier": 4294967296})"), "spec");
  });
  EXPECT_EQ(message, "spec.stallMultiplier: integer 4294967296 is out of range");
}

TEST(ApiTypes, WrongKindIsRejectedBeforeDecoding) {
  const auto problems = problems_of([] {
    decode_object<WorkloadRun>(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Workflow
metadata: {name: wf}
spec: {jobTemplate: {spec: {workload: {}}}, orchestration: {}}
)"));
  });
  ASSERT_EQ(problems.size(), 1u);  // nothing else is decoded
  EXPECT_EQ(problems[0].field, "kind");
  EXPECT_EQ(problems[0].message, R"(expected kind WorkloadRun, got "Workflow")");
}

TEST(ApiTypes, WrongOrMissingApiVersionIsRejected) {
  EXPECT_EQ(
      decode_error_of([] {
        decode_object<Certification>(
            json::parse(R"({"apiVersion": "x", "kind": "Certification"})"));
      }),
      R"(apiVersion: unsupported apiVersion "x" for kind Certification: expected nvcre.nvidia.com/v1alpha1)");
  EXPECT_EQ(decode_error_of([] { decode_object<Job>(json::parse(R"({"kind": "Job"})")); }),
            "apiVersion: missing apiVersion for kind Job: expected nvcre.nvidia.com/v1alpha1");
  EXPECT_EQ(decode_error_of([] {
              decode_object<Job>(json::parse(R"({"apiVersion": "nvcre.nvidia.com/v1alpha1"})"));
            }),
            "kind: missing kind: expected Job");
  EXPECT_EQ(decode_error_of(
                [] { decode_object<Job>(json::parse(R"({"apiVersion": 1, "kind": ["Job"]})")); }),
            "kind: expected string, got array; apiVersion: expected string, got integer");
  EXPECT_EQ(decode_error_of([] { decode_object<Job>(json::parse("[]")); }),
            "expected object, got array");
}

TEST(ApiTypes, DecodeAnyObjectDispatchesOnKindAndListsTheSupportedKinds) {
  const AnyObject certification = decode_any_object(yaml(kMinimalCertification));
  ASSERT_TRUE(std::holds_alternative<Certification>(certification));
  EXPECT_EQ(kind_of(certification), "Certification");
  EXPECT_EQ(metadata_of(certification).name, "c");

  const AnyObject job = decode_any_object(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Job
metadata: {name: j}
spec: {workload: {trainJob: {runtimeRef: {name: rt}}}}
)"));
  EXPECT_EQ(kind_of(job), "Job");

  EXPECT_EQ(decode_error_of([] {
              decode_any_object(json::parse(
                  R"({"apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "ReportExport"})"));
            }),
            R"(kind: unsupported kind "ReportExport": expected one of Certification, WorkloadRun, )"
            R"(Workflow, Job, GoodputMeasurement, BandwidthMeasurement, LogProfile, )"
            R"(ReportExportPolicy)");
  EXPECT_EQ(decode_error_of([] {
              decode_any_object(json::parse(R"({"apiVersion": "nvcre.nvidia.com/v1alpha1"})"));
            }),
            "kind: missing kind: expected one of Certification, WorkloadRun, Workflow, Job, "
            "GoodputMeasurement, BandwidthMeasurement, LogProfile, ReportExportPolicy");
  // The apiVersion check still applies after dispatch.
  EXPECT_EQ(
      decode_error_of(
          [] { decode_any_object(json::parse(R"({"apiVersion": "v1", "kind": "Workflow"})")); }),
      R"(apiVersion: unsupported apiVersion "v1" for kind Workflow: expected nvcre.nvidia.com/v1alpha1)");
}

// ---------------------------------------------------------------------------------------------
// Raw parts, int-or-string, presence.

TEST(ApiTypes, RawPartsArePreservedExactly) {
  const json::value train_job = json::parse(R"({
    "runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime", "name": "rt"},
    "trainer": {"numNodes": 2, "env": [{"name": "A", "value": "1"}], "unknownToUs": {"deep": [null, 1.5, -7, true]}},
    "big": 18446744073709551615, "zero": 0, "nothing": null, "emptyObject": {}, "emptyList": []
  })");
  json::object job = json::parse(R"({"apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Job",
                                      "metadata": {"name": "j"}, "spec": {"workload": {}}})")
                         .as_object();
  job["spec"].as_object()["workload"].as_object()["trainJob"] = train_job;

  const Job decoded = decode_object<Job>(job);
  ASSERT_TRUE(decoded.spec.workload.trainJob.has_value());
  EXPECT_EQ(json::value(*decoded.spec.workload.trainJob), train_job);
  // Same text: key order, null members, number kinds (uint64, int64, double) all survive.
  EXPECT_EQ(json::serialize(encode_object(decoded).at("spec").at("workload").at("trainJob")),
            json::serialize(train_job));
  EXPECT_TRUE(
      encode_object(decoded).at("spec").at("workload").at("trainJob").at("big").is_uint64());

  const json::value workflow = yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Workflow
metadata: {name: wf}
spec:
  jobTemplate: {spec: {workload: {trainJob: {}}}}
  orchestration: {}
  overrides:
    - when: {config: {a: [1, {b: null}]}}
      jobTemplate: {spec: {workload: {trainJob: {trainer: {env: [{name: X, value: "1"}]}}}}, extra: 1.25}
      jobTemplatePatch: [{op: remove, path: /spec/thresholds}, {op: add, path: /x, value: null}]
  validation:
    performance: {enabled: true, config: {nested: {list: [1, 2.0, "3"]}, off: false}}
)");
  const Workflow decoded_workflow = decode_object<Workflow>(workflow);
  const auto& override_spec = decoded_workflow.spec.overrides.at(0);
  EXPECT_EQ(override_spec.when.config, json::parse(R"({"a": [1, {"b": null}]})"));
  EXPECT_EQ(override_spec.jobTemplatePatch.at(1),
            json::parse(R"({"op": "add", "path": "/x", "value": null})"));
  const json::value encoded = encode_object(decoded_workflow);
  const auto& spec = encoded.at("spec");
  EXPECT_EQ(spec.at("overrides"), workflow.at("spec").at("overrides"));
  EXPECT_EQ(spec.at("validation").at("performance").at("config"),
            workflow.at("spec").at("validation").at("performance").at("config"));
}

TEST(ApiTypes, CoreObjectsOfWorkloadRunStayRaw) {
  const WorkloadRun run = decode_object<WorkloadRun>(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: WorkloadRun
metadata: {name: r}
spec:
  image: img
  numNodes: 1
  framework: {exec: {command: [run]}}
  env:
    - {name: PLAIN, value: v}
    - name: FROM_SECRET
      valueFrom: {secretKeyRef: {name: s, key: k, futureField: 1}}
  volumes: [{name: shm, emptyDir: {medium: Memory}, somethingNew: [1]}]
  volumeMounts: [{name: shm, mountPath: /dev/shm, recursiveReadOnly: Disabled}]
  initContainers: [{name: init, image: busybox, command: [true], restartPolicy: Always}]
)"));
  EXPECT_EQ(run.spec.env.at(1).valueFrom.at("secretKeyRef").at("futureField"), json::value(1));
  EXPECT_EQ(run.spec.volumes.at(0).at("somethingNew"), json::parse("[1]"));
  EXPECT_EQ(run.spec.volumeMounts.at(0).at("recursiveReadOnly"), json::value("Disabled"));
  EXPECT_EQ(run.spec.initContainers.at(0).at("restartPolicy"), json::value("Always"));
  EXPECT_EQ(decode_object<WorkloadRun>(encode_object(run)), run);
}

TEST(ApiTypes, QuantitiesKeepWhetherTheyWereIntegersOrStrings) {
  const auto resources = decode<CategoryResources>(yaml(R"(
limits: {cpu: 32, memory: 256Gi}
requests: {cpu: "16", memory: "137438953472"}
)"));
  ASSERT_TRUE(resources.limits && resources.requests);
  EXPECT_TRUE(resources.limits->cpu->is_int());
  EXPECT_EQ(resources.limits->cpu->as_int(), 32);
  EXPECT_TRUE(resources.limits->memory->is_string());
  EXPECT_TRUE(resources.requests->cpu->is_string());
  EXPECT_EQ(resources.requests->cpu->to_string(), "16");
  EXPECT_EQ(resources.limits->cpu->to_string(), "32");
  EXPECT_NE(Quantity(16), Quantity("16"));  // different representations, as on the wire
  EXPECT_EQ(
      json::serialize(encode(resources)),
      R"({"limits":{"cpu":32,"memory":"256Gi"},"requests":{"cpu":"16","memory":"137438953472"}})");

  const auto core = decode<ResourceRequirements>(yaml("limits: {nvidia.com/gpu: 8, cpu: '96'}"));
  EXPECT_EQ(core.limits.at("nvidia.com/gpu"), Quantity(8));
  EXPECT_EQ(core.limits.at("cpu"), Quantity("96"));
  // Integral floats count as integers; fractions and other types do not.
  EXPECT_EQ(decode<CategoryResourceList>(json::parse(R"({"cpu": 2.0})")).cpu, Quantity(2));
  EXPECT_EQ(decode_error_of([] { decode<CategoryResourceList>(json::parse(R"({"cpu": 0.5})")); }),
            "cpu: expected integer or string, got number");
  EXPECT_EQ(
      decode_error_of([] { decode<CategoryResourceList>(json::parse(R"({"memory": true})")); }),
      "memory: expected integer or string, got boolean");
  EXPECT_EQ(decode_error_of([] {
              decode<CategoryResourceList>(json::parse(R"({"memory": 18446744073709551615})"));
            }),
            "memory: integer 18446744073709551615 is out of range");
}

TEST(ApiTypes, EmptyAndAbsentOptionalsStayDistinct) {
  const auto run = decode<WorkloadRunSpec>(yaml(R"(
image: img
numNodes: 1
framework: {exec: {command: [run]}}
enableMNNVL: false
mlnxPerNode: 0
nicResourceName: ""
checkpoint: {storageSize: 1Ti, storageClassName: ""}
)"));
  EXPECT_EQ(run.enableMNNVL, std::optional<bool>(false));
  EXPECT_EQ(run.mlnxPerNode, std::optional<std::int32_t>(0));
  EXPECT_EQ(run.nicResourceName, std::optional<std::string>(""));
  EXPECT_FALSE(run.gpusPerNode.has_value());
  const json::value encoded = encode(run);
  EXPECT_EQ(encoded.at("enableMNNVL"), json::value(false));
  EXPECT_EQ(encoded.at("mlnxPerNode"), json::value(0));
  EXPECT_EQ(encoded.at("nicResourceName"), json::value(""));
  EXPECT_EQ(encoded.at("checkpoint").at("storageClassName"), json::value(""));
  EXPECT_FALSE(encoded.as_object().contains("gpusPerNode"));
  EXPECT_FALSE(encoded.as_object().contains("target"));

  const auto absent = decode<WorkloadRunSpec>(
      yaml("{image: img, numNodes: 1, framework: {exec: {command: [run]}}}"));
  EXPECT_FALSE(absent.enableMNNVL.has_value());
  EXPECT_FALSE(absent.nicResourceName.has_value());
  EXPECT_NE(absent, run);

  // status: {} is kept, no status stays absent; null means absent.
  const auto with_status =
      decode_object<Certification>(yaml(std::string(kMinimalCertification) + "status: {}\n"));
  ASSERT_TRUE(with_status.status.has_value());
  EXPECT_EQ(encode_object(with_status).at("status"), json::object());
  const auto null_status =
      decode_object<Certification>(yaml(std::string(kMinimalCertification) + "status: null\n"));
  EXPECT_FALSE(null_status.status.has_value());
  EXPECT_FALSE(encode_object(null_status).as_object().contains("status"));

  // An empty trainJob body is present; a Workflow's jobTemplate without metadata gets none.
  const auto job_spec = decode<JobSpec>(json::parse(R"({"workload": {"trainJob": {}}})"));
  ASSERT_TRUE(job_spec.workload.trainJob.has_value());
  EXPECT_EQ(encode(job_spec), json::parse(R"({"workload": {"trainJob": {}}})"));
  const auto template_spec = decode<JobTemplateSpec>(json::parse(R"({"spec": {"workload": {}}})"));
  EXPECT_FALSE(template_spec.metadata.has_value());
  EXPECT_EQ(encode(template_spec), json::parse(R"({"spec": {"workload": {}}})"));
}

TEST(ApiTypes, MembersWithoutOmitemptyAreAlwaysWritten) {
  // As Go writes them: the CRD schema requires these keys, so leaving out an empty message or a
  // false `passed` would make the API server reject the status.
  // (Designated initializers may leave members out: every member has an initializer.)
  const Condition condition{.type = std::string(condition_type::kSucceeded),
                            .status = std::string(condition_status::kFalse),
                            .lastTransitionTime = "2026-01-01T00:00:00Z",
                            .reason = std::string(inactive_reason::kNotApplicable)};
  EXPECT_EQ(json::serialize(encode(condition)),
            R"({"type":"Succeeded","status":"False","lastTransitionTime":"2026-01-01T00:00:00Z",)"
            R"("reason":"NotApplicable","message":""})");
  EXPECT_EQ(json::serialize(encode(DomainScreeningResult{})), R"({"nodes":[],"passed":false})");
  EXPECT_EQ(json::serialize(encode(PerformanceValidationSpec{})),
            R"({"enabled":false,"tracking":{}})");
  // Go struct values (not pointers) are always written too; optional numbers are not.
  EXPECT_EQ(json::serialize(encode(WorkflowSpec{})),
            R"({"jobTemplate":{"spec":{"workload":{}}},"orchestration":{"execution":{}}})");
  EXPECT_EQ(json::serialize(encode(GroupStatus{})), R"({"name":"","nodes":[],"phase":""})");
}

TEST(ApiTypes, CertificationSpecKeepsCategoryOptionsInline) {
  const auto spec = decode<CertificationSpec>(yaml(R"(
testScale: diagnose
gangScheduler: {schedulerName: kai-scheduler}
target: {nodeSelector: {a: b}}
nodesPerJob: 8
categories:
  - domain: communication
    variant: nccl-all-reduce
    options: {nodesPerJob: 2, testScale: intra-node}
workloadMetadata: {labels: {k: v}}
)"));
  EXPECT_EQ(spec.target.nodeSelector.at("a"), "b");
  EXPECT_EQ(spec.options.testScale, test_scale::kDiagnose);
  EXPECT_EQ(spec.options.nodesPerJob, 8);
  EXPECT_EQ(spec.options.workloadMetadata->labels.at("k"), "v");
  EXPECT_EQ(spec.categories.at(0).options->nodesPerJob, 2);
  EXPECT_EQ(spec.categories.at(0).options->testScale, test_scale::kIntraNode);
  // Own keys first, then the inline options in declaration order.
  EXPECT_EQ(
      json::serialize(encode(spec)),
      R"({"target":{"nodeSelector":{"a":"b"}},)"
      R"("categories":[{"domain":"communication","variant":"nccl-all-reduce","options":{"nodesPerJob":2,"testScale":"intra-node"}}],)"
      R"("gangScheduler":{"schedulerName":"kai-scheduler"},"nodesPerJob":8,"testScale":"diagnose",)"
      R"("workloadMetadata":{"labels":{"k":"v"}}})");
  EXPECT_EQ(decode<CertificationSpec>(encode(spec)), spec);
  EXPECT_EQ(decode_error_of([] { decode<CertificationSpec>(json::parse("[]"), "spec"); }),
            "spec: expected object, got array");
}

TEST(ApiTypes, EncodeObjectAlwaysWritesTypeMetaFirst) {
  Job job;
  job.metadata.name = "j";
  job.spec.workload.trainJob = json::object{{"runtimeRef", json::object{{"name", "rt"}}}};
  EXPECT_EQ(json::serialize(encode_object(job)),
            R"({"apiVersion":"nvcre.nvidia.com/v1alpha1","kind":"Job","metadata":{"name":"j"},)"
            R"("spec":{"workload":{"trainJob":{"runtimeRef":{"name":"rt"}}}}})");
  EXPECT_EQ(decode_object<Job>(encode_object(job)).metadata.name, "j");
}

TEST(ApiTypes, ObjectMetaKeepsManagedFieldsAndOwnerReferences) {
  const auto certification = decode_object<Certification>(yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata:
  name: c
  namespace: ns
  generation: 3
  deletionTimestamp: "2026-01-01T00:00:00Z"
  deletionGracePeriodSeconds: 0
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: o, uid: u, controller: false}]
  managedFields: [{manager: m, operation: Apply, fieldsV1: {"f:spec": {}}}]
spec: {target: {}, categories: [{domain: d, variant: v}]}
)"));
  EXPECT_EQ(certification.metadata.namespace_, "ns");
  EXPECT_EQ(certification.metadata.generation, 3);
  EXPECT_EQ(certification.metadata.deletionGracePeriodSeconds, 0);
  EXPECT_EQ(certification.metadata.ownerReferences.at(0).controller, std::optional<bool>(false));
  EXPECT_FALSE(certification.metadata.ownerReferences.at(0).blockOwnerDeletion.has_value());
  EXPECT_EQ(certification.metadata.managedFields.at(0).at("fieldsV1"),
            json::parse(R"({"f:spec": {}})"));
  const json::value encoded = encode_object(certification);
  EXPECT_EQ(encoded.at("metadata").at("ownerReferences").at(0).at("controller"),
            json::value(false));
  EXPECT_EQ(decode_object<Certification>(encoded), certification);
}

// ---------------------------------------------------------------------------------------------
// The shipped examples decode (kinds modelled here; other kinds are someone else's to check).

TEST(ApiTypes, EveryExampleDecodes) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(NVCRE_SOURCE_DIR) / "examples";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no examples directory yet: " << dir;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) GTEST_SKIP() << "no examples/*.yaml yet";
  int decoded = 0;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<json::value> documents;
    ASSERT_NO_THROW(documents = parse_yaml_documents(text.str()));
    for (const auto& document : documents) {
      const json::value* kind =
          document.is_object() ? document.as_object().if_contains("kind") : nullptr;
      if (kind == nullptr || !kind->is_string()) continue;
      const std::string_view name = kind->get_string();
      const bool modelled = name == "Certification" || name == "WorkloadRun" ||
                            name == "Workflow" || name == "Job" || name == "GoodputMeasurement" ||
                            name == "BandwidthMeasurement" || name == "LogProfile" ||
                            name == "ReportExportPolicy";
      if (!modelled) continue;
      try {
        const AnyObject object = decode_any_object(document);
        EXPECT_TRUE(decode_any_object(encode_any_object(object)) == object);
        ++decoded;
      } catch (const std::exception& error) {
        ADD_FAILURE() << error.what();
      }
    }
  }
  if (decoded == 0) GTEST_SKIP() << "no example holds an nvcre.nvidia.com object the model decodes";
}
