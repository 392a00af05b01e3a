#!/usr/bin/env bash
# The main job: installs dependencies, builds, then runs nvcrectl. With no arguments it admits the
# sample manifests in examples/ offline (the API server's schema and rules, with its messages) and
# renders the sample Certification into the Workflows the controller would create on AWS.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
BUILD_DIR=${BUILD_DIR:-build}
nvcrectl="$BUILD_DIR/cli/nvcrectl"
if [ $# -gt 0 ]; then
  exec "$nvcrectl" "$@"
fi
echo "# nvcrectl validate examples/*.yaml" >&2
"$nvcrectl" validate examples/*.yaml >&2
echo "# nvcrectl certification render examples/certification.yaml --platform aws" >&2
exec "$nvcrectl" certification render examples/certification.yaml --platform aws
