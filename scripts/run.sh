#!/usr/bin/env bash
# The main job: installs dependencies, builds, then runs nvcre end to end on the embedded default:
# kube-sim in-process with a simulated GPU cluster (aws, 16 H100 nodes, gpu-node-05 faulty) and its
# simulated Kubeflow Trainer, the real manager (actors) against it, and the sample Certification
# examples/demo-certification.yaml; it prints progress and the result per category with every
# failed node and its reason. With arguments it runs any nvcrectl command instead.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
BUILD_DIR=${BUILD_DIR:-build}
if [ $# -gt 0 ]; then
  exec "$BUILD_DIR/cli/nvcrectl" "$@"
fi
exec "$BUILD_DIR/manager/nvcre-demo"
