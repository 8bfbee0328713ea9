#!/usr/bin/env bash
# Builds the libFuzzer targets (and the binaries) with clang (build-fuzz/) and runs each fuzzer
# for SECONDS (default 60; 6 targets, so 6 minutes in all). The coordinator fuzzers' event lines
# go to a closed stderr (-close_fd_mask=2; libFuzzer still reports findings).
# A finding makes the fuzzer exit non-zero and leaves its crash-* input in build-fuzz/findings/.
# Usage: tools/run-fuzzers.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

deploy/install-deps.sh --fuzzing
FUZZERS=(secagg_client_fuzzer secagg_server_fuzzer shamir_fuzzer coordinator_register_fuzzer
  coordinator_stream_fuzzer capi_fuzzer)
cmake --preset fuzz
# The fuzzers, and the binaries so that clang compiles all product code (it checks what GCC does
# not, e.g. StrFormat arguments); the tests are built and run by the GCC presets.
cmake --build --preset fuzz -j "$(nproc)" --target "${FUZZERS[@]}" fedmf-coordinator \
  fedmf-client fedmf-sim fedmf-loadgen fedmf-central fedmf-privacy fedmf-compare-models

mkdir -p build-fuzz/findings
for fuzzer in "${FUZZERS[@]}"; do
  extra=()
  [[ $fuzzer == coordinator_* ]] && extra=(-close_fd_mask=2)
  echo "== $fuzzer: ${seconds}s"
  corpus="build-fuzz/corpus/$fuzzer"
  mkdir -p "$corpus"
  seeds=()  # checked-in seed inputs (read only), e.g. a valid advertisement per user
  [[ -d "tests/fuzz/corpus/$fuzzer" ]] && seeds=("tests/fuzz/corpus/$fuzzer")
  log="build-fuzz/$fuzzer.log"
  # libFuzzer logs every corpus change; keep that in a file and show the summary (or the failure).
  if ! "build-fuzz/tests/fuzz/$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
      "${extra[@]}" -artifact_prefix=build-fuzz/findings/ "$corpus" "${seeds[@]}" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "== $fuzzer FAILED: input saved in build-fuzz/findings/, full log in $log" >&2
    exit 1
  fi
  grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb" "$log"
done
