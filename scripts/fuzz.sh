#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/: clang, ASan + UBSan, every library instrumented) into
# build-sanitize (the tree scripts/test-sanitized.sh uses: scripts/sanitize/configure.sh) and runs
# each one for a bounded time on a seed corpus gathered from the repository's golden cases,
# examples and deploy files. Any crash, leak, undefined behaviour, timeout or memory
# blow-up fails the script; the input that caused it is kept as
# build-sanitize/findings/<target>-<crash|leak|timeout|oom>-<sha1> and the log as
# build-sanitize/logs/<target>.log. Reproduce one with: build-sanitize/fuzz/<target> <that file>.
#
# Environment: FUZZ_SECONDS per target (default 40: 13 targets, FUZZ_JOBS=2 at a time, take about
# 5 minutes on two cores), FUZZ_JOBS, FUZZ_TARGETS (space-separated names, default all),
# FUZZ_BUILD_DIR (default build-sanitize), FUZZ_SEED (libFuzzer's -seed; unset, each run picks its
# own). With a seed, a run on a fresh corpus explores the same inputs in the same order, so a
# merge gate does not fail on a finding unrelated to the change; without one, every run explores
# somewhere new, which is how findings are made.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-40}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_SEED=${FUZZ_SEED:-}
BUILD_DIR=${FUZZ_BUILD_DIR:-build-sanitize}
ALL_TARGETS="fuzz_json fuzz_yaml fuzz_kubeconfig fuzz_label_selector fuzz_field_selector
  fuzz_quantity fuzz_cel fuzz_measure_logs fuzz_watch_stream fuzz_api_status fuzz_sim_http
  fuzz_sim_patch fuzz_api_kinds"
FUZZ_TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}

./scripts/install-deps.sh
./scripts/sanitize/configure.sh "$BUILD_DIR"
# shellcheck disable=SC2086  # word splitting of the target list is intended
cmake --build "$BUILD_DIR" -j"$(nproc)" --target $FUZZ_TARGETS
python3 fuzz/seed_corpus.py "$BUILD_DIR/corpus"
mkdir -p "$BUILD_DIR/findings" "$BUILD_DIR/logs"

dictionary_of() {
  case "$1" in
    fuzz_json | fuzz_watch_stream | fuzz_api_status | fuzz_sim_patch) echo fuzz/dict/json.dict ;;
    fuzz_yaml | fuzz_kubeconfig | fuzz_api_kinds) echo fuzz/dict/yaml.dict ;;
    fuzz_label_selector | fuzz_field_selector) echo fuzz/dict/selector.dict ;;
    fuzz_quantity) echo fuzz/dict/quantity.dict ;;
    fuzz_cel) echo fuzz/dict/cel.dict ;;
    fuzz_sim_http) echo fuzz/dict/http.dict ;;
    *) echo "" ;;
  esac
}

# One target: -max_len keeps inputs small enough for many runs a second (the size limits of each
# decoder are pinned by unit tests with multi-MiB inputs instead), -rss_limit_mb and -timeout turn
# unbounded memory or time for one input into a finding.
run_target() {
  local target=$1 name=${1#fuzz_}
  local corpus="$BUILD_DIR/corpus/$name" dict
  dict=$(dictionary_of "$target")
  mkdir -p "$corpus"
  # The outer timeout: a target that hits its memory limit with a 2 GiB heap was seen to hang in
  # its own crash report; the run must still end.
  if timeout -k 10 $((FUZZ_SECONDS + 120)) "$BUILD_DIR/fuzz/$target" -max_total_time="$FUZZ_SECONDS" -max_len=16384 -rss_limit_mb=2048 \
    -timeout=20 -print_final_stats=1 ${dict:+-dict="$dict"} ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
    -artifact_prefix="$BUILD_DIR/findings/$target-" "$corpus" >"$BUILD_DIR/logs/$target.log" 2>&1; then
    echo "fuzz: $target: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' \
      "$BUILD_DIR/logs/$target.log" | grep -o '[0-9]*$') runs in ${FUZZ_SECONDS}s)"
  else
    echo "fuzz: $target: FAILED, see $BUILD_DIR/logs/$target.log; input:" \
      "$(ls -t "$BUILD_DIR/findings/$target-"* 2>/dev/null | head -1)"
    grep -m3 -E 'ERROR: |SUMMARY: |runtime error' "$BUILD_DIR/logs/$target.log" || true
    return 1
  fi
}
# UBSan findings with their stack, as the other sanitizers print them.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/scripts/sanitize/ubsan.supp
export -f run_target dictionary_of
export BUILD_DIR FUZZ_SECONDS FUZZ_SEED

# shellcheck disable=SC2086
if printf '%s\n' $FUZZ_TARGETS | xargs -P "$FUZZ_JOBS" -I{} bash -c 'run_target {}'; then
  echo "fuzz: every target ran ${FUZZ_SECONDS}s without a finding"
else
  echo "fuzz: findings in $BUILD_DIR/findings (reproduce: $BUILD_DIR/fuzz/<target> <file>)"
  exit 1
fi
