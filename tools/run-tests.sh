#!/usr/bin/env bash
# Installs missing dependencies, builds fedmf and runs the whole test suite through CTest.
# Usage: tools/run-tests.sh [--sanitize]   (--sanitize: unit tests under ASan + UBSan, in build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
if [[ "${1:-}" == --sanitize ]]; then preset=asan; fi

deploy/install-deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" --output-on-failure
