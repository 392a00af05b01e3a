#!/usr/bin/env bash
# The unit, golden and integration suites (`ctest -L "unit|golden|integration"`) built with
# AddressSanitizer (heap/stack/global overflows, use after free, double free), LeakSanitizer and
# UndefinedBehaviorSanitizer (signed overflow, misaligned loads, invalid enum/bool values, null
# dereferences, bad shifts and casts), built by clang at -O1 (the test code at -O0) in
# build-sanitize (override with BUILD_DIR), the tree scripts/fuzz.sh builds its targets in too
# (scripts/sanitize/configure.sh).
# The child processes the integration tests start (nvcre-manager, kube-sim, nvcrectl, nvcre-demo)
# are sanitized too.
# Any finding fails: the process that hit it exits with 86 (or aborts), and every report is also
# written under $BUILD_DIR/sanitizer-reports/, printed and turned into a failure at the end, so a
# child process whose exit status a test does not look at cannot hide one.
# Not run here: chaos (crash/restart timing, run by scripts/test.sh), bench (timing only) and the
# integration test manager_image: its chroot has no /proc, without which LeakSanitizer fails even
# a clean exit, and it checks the image's packaging rather than our code.
# Extra arguments go to ctest, e.g. `-R Reflector` to rerun some tests, each in its own process.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build-sanitize}
./scripts/sanitize/configure.sh "$BUILD_DIR"
# Only what the three suites run (the benches and chaos tests are not built).
cmake --build "$BUILD_DIR" -j"$(nproc)" --target nvcre_unit_tests nvcre_golden_tests \
  nvcre_integration_tests nvcrectl kube-sim nvcre-manager nvcre-demo

suppressions=$PWD/scripts/sanitize
reports=$(cd "$BUILD_DIR" && pwd)/sanitizer-reports  # BUILD_DIR may be relative or absolute
rm -rf "$reports" && mkdir -p "$reports"
# exitcode 86: a sanitized nvcrectl must not pass a test that expects its own exit code 1.
common="exitcode=86:print_stacktrace=1:log_path=$reports/report:log_exe_name=1"
export ASAN_OPTIONS="$common:halt_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="$common:halt_on_error=1:suppressions=$suppressions/ubsan.supp"

# The unit and golden binaries run whole, in one shard per core side by side: a process per test
# costs a sanitized start-up and leak check each, more than most of these tests take. ctest runs
# the rest (integration tests, and the unit tests that are not GoogleTest cases) one per process.
run_sharded() {
  local binary=$1 shards index pids=() failed=0
  shards=$(nproc)
  for ((index = 0; index < shards; index++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$index "./$binary" --gtest_brief=1 \
      >"$binary.shard$index.log" 2>&1 &
    pids+=($!)
  done
  for index in "${!pids[@]}"; do
    if wait "${pids[$index]}"; then
      tail -n 1 "$binary.shard$index.log"
    else
      failed=1
      echo "test-sanitized: $binary shard $index of $shards failed:" >&2
      cat "$binary.shard$index.log" >&2
    fi
  done
  return "$failed"
}

cd "$BUILD_DIR"
status=0
if [ $# -gt 0 ]; then  # a rerun of chosen tests, each in its own process
  ctest --output-on-failure -j"$(nproc)" -L "unit|golden|integration" -E '^manager_image$' "$@" ||
    status=$?
else
  (cd test && run_sharded nvcre_unit_tests) || status=$?
  (cd test && run_sharded nvcre_golden_tests) || status=$?
  # GoogleTest names are Suite.Test: what has no dot is a unit test of another kind (a CLI contract).
  ctest --output-on-failure -j"$(nproc)" -L '^(unit|golden)$' -E '[.]' || status=$?
  ctest --output-on-failure -j"$(nproc)" -L '^integration$' -E '^manager_image$' || status=$?
fi
if compgen -G "$reports/report*" >/dev/null; then
  echo "test-sanitized: sanitizer reports (in $reports):" >&2
  cat "$reports"/report* >&2
  status=1
fi
exit "$status"
