#!/usr/bin/env bash
# One command from a fresh machine to a full test run: installs dependencies, builds, runs every
# test label (unit, golden, integration, chaos, bench) and prints the count per label. The size
# limits (check-sizes.sh), the layer rules (check-layers.sh) and the layout (check-format.sh) are
# checked between the build and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./scripts/check-sizes.sh
./scripts/check-layers.sh
./scripts/check-format.sh
BUILD_DIR=${BUILD_DIR:-build}
cd "$BUILD_DIR"
ctest --output-on-failure -j"$(nproc)" "$@"
echo "tests per label:"
for label in unit golden integration chaos bench; do
  count=$(ctest -N -L "^${label}\$" | sed -n 's/^Total Tests: //p')
  echo "  ${label}: ${count:-0}"
done
