#!/usr/bin/env bash
# The main job: installs missing dependencies, builds, and trains on the built-in synthetic data.
# The federated runtime (fedmf-coordinator + fedmf-client over gRPC) is not built yet, so for now
# this runs the centralized baselines (fedmf-central) and says so. Extra arguments go to fedmf-central.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target fedmf-central

cat <<'NOTE'

==> NOTE: the federated runtime (fedmf-coordinator and fedmf-client processes over gRPC) is not
    built yet. This runs the CENTRALIZED baselines on the built-in synthetic data instead:
    explicit ALS, then DPMF-RP's CentralMF, each with 5-fold cross-validation.

NOTE
build/tools/fedmf-central --data=synthetic --model=als "$@"
build/tools/fedmf-central --data=synthetic --model=central-mf "$@"
