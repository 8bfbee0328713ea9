#!/usr/bin/env bash
# Builds the libFuzzer targets in the sanitizer build (build-asan/, clang; already built by
# tools/run-tests.sh --sanitize, which also compiles every binary and test with clang) and runs
# each fuzzer for SECONDS (default 60; 6 targets, so 6 minutes in all). The coordinator fuzzers'
# event lines go to a closed stderr (-close_fd_mask=2; libFuzzer still reports findings).
# A finding makes the fuzzer exit non-zero and leaves its crash-* input in build-asan/findings/.
# Usage: tools/run-fuzzers.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

deploy/install-deps.sh --fuzzing
FUZZERS=(secagg_client_fuzzer secagg_server_fuzzer shamir_fuzzer coordinator_register_fuzzer
  coordinator_stream_fuzzer capi_fuzzer)
cmake --preset asan
cmake --build --preset fuzz -j "$(nproc)"

mkdir -p build-asan/findings
for fuzzer in "${FUZZERS[@]}"; do
  extra=()
  [[ $fuzzer == coordinator_* ]] && extra=(-close_fd_mask=2)
  echo "== $fuzzer: ${seconds}s"
  corpus="build-asan/corpus/$fuzzer"
  mkdir -p "$corpus"
  seeds=()  # checked-in seed inputs (read only), e.g. a valid advertisement per user
  [[ -d "tests/fuzz/corpus/$fuzzer" ]] && seeds=("tests/fuzz/corpus/$fuzzer")
  log="build-asan/$fuzzer.log"
  # libFuzzer logs every corpus change; keep that in a file and show the summary (or the failure).
  if ! "build-asan/tests/fuzz/$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
      "${extra[@]}" -artifact_prefix=build-asan/findings/ "$corpus" "${seeds[@]}" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "== $fuzzer FAILED: input saved in build-asan/findings/, full log in $log" >&2
    exit 1
  fi
  grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb" "$log"
done
