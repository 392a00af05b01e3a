#!/usr/bin/env bash
# Configures the one clang build tree ($1) that scripts/test-sanitized.sh and scripts/fuzz.sh share,
# so that CI compiles the sanitized code once: ASan + UBSan on every target, the libraries also
# instrumented for libFuzzer (-DNVCRE_FUZZ=ON: the fuzz targets link against the same objects the
# tests use), -O1 (inlining keeps the integration suite inside its timeouts) and line tables only
# (file:line in the reports' stack traces without the size and link time of full -g).
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=clang CXX=clang++ cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DNVCRE_FUZZ=ON >/dev/null
