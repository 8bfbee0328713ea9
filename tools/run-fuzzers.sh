#!/usr/bin/env bash
# Builds the libFuzzer targets in the sanitizer build (build-asan/, clang, the fuzz build preset;
# tools/run-tests.sh --sanitize builds the libraries they link, for the unit tests) and runs each
# fuzzer for SECONDS (default 60), as many at once as there are cores (6 targets: 3 minutes in all
# on 2 cores). The coordinator fuzzers' event lines go to a closed stderr (-close_fd_mask=2;
# libFuzzer still reports findings).
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
# run_fuzzer NAME: the fuzzer for SECONDS, its libFuzzer log (every corpus change) in a file.
run_fuzzer() {
  local fuzzer="$1" extra=() seeds=()
  [[ $fuzzer == coordinator_* ]] && extra=(-close_fd_mask=2)
  local corpus="build-asan/corpus/$fuzzer"
  mkdir -p "$corpus"
  # checked-in seed inputs (read only), e.g. a valid advertisement per user
  [[ -d "tests/fuzz/corpus/$fuzzer" ]] && seeds=("tests/fuzz/corpus/$fuzzer")
  "build-asan/tests/fuzz/$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
    "${extra[@]}" -artifact_prefix=build-asan/findings/ "$corpus" "${seeds[@]}" \
    >"build-asan/$fuzzer.log" 2>&1
}
# Each fuzzer is one process on one core: as many run at once as there are cores, each for its
# full SECONDS. Their summaries (or a failure) are shown in FUZZERS' order.
failed=0
for ((first = 0; first < ${#FUZZERS[@]}; first += $(nproc))); do
  batch=("${FUZZERS[@]:first:$(nproc)}")
  echo "== ${batch[*]}: ${seconds}s"
  pids=()
  for fuzzer in "${batch[@]}"; do
    run_fuzzer "$fuzzer" &
    pids+=($!)
  done
  for i in "${!batch[@]}"; do
    fuzzer="${batch[$i]}"
    log="build-asan/$fuzzer.log"
    if ! wait "${pids[$i]}"; then
      tail -n 60 "$log"
      echo "== $fuzzer FAILED: input saved in build-asan/findings/, full log in $log" >&2
      failed=1
      continue
    fi
    echo "-- $fuzzer"
    grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb" "$log"
  done
  ((failed == 0)) || exit 1
done
