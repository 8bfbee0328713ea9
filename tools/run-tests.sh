#!/usr/bin/env bash
# Installs missing dependencies, builds fedmf and runs the whole test suite through CTest.
# Usage: tools/run-tests.sh [--sanitize]
#   --sanitize: the clang build in build-asan/ (ASan + UBSan, with the coverage instrumentation of
#   the libFuzzer targets that tools/run-fuzzers.sh builds and runs) of the unit tests (the build
#   preset's target unit_tests, cmake/fedmf.cmake), and the unit tests under it.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
deps=()
if [[ "${1:-}" == --sanitize ]]; then
  preset=asan
  deps=(--fuzzing)
fi

deploy/install-deps.sh "${deps[@]}"
cmake --preset "$preset"
start=$SECONDS
cmake --build --preset "$preset" -j "$(nproc)"
built=$SECONDS
ctest --preset "$preset" --output-on-failure
echo "run-tests ($preset): build $((built - start)) s, tests $((SECONDS - built)) s"
