#!/usr/bin/env bash
# The main job: installs dependencies, builds, then runs nvcrectl. With no arguments it validates the
# sample manifests in examples/ offline, exactly as the API server would admit them.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
BUILD_DIR=${BUILD_DIR:-build}
if [ $# -eq 0 ]; then
  set -- validate examples/*.yaml
fi
exec "$BUILD_DIR/cli/nvcrectl" "$@"
