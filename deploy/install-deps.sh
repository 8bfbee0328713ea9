#!/usr/bin/env bash
# Installs fedmf's build and test dependencies from Debian 12 packages. Idempotent: installs only the
# packages that are missing, and needs no privileges when nothing is.
# Usage: deploy/install-deps.sh [--fuzzing] [--plots] [--docker] [--check]
#   --fuzzing adds clang (and lld, the asan preset's linker) for the sanitizer build and the
#   libFuzzer targets, --plots gnuplot for tools/experiments/plot.gp,
#   --docker Debian's Docker engine (docker.io) for deploy/docker-test.sh
# The deployment checks need docker-compose, openssl and iproute2 (deploy/validate-config.sh,
# tls_test.sh, run-local-cluster.sh --netns), python3-yaml and mmdebstrap (emulate-image.sh),
# and kubectl (the k8s check): Debian's kubernetes-client (kubectl 1.20, enough for `kubectl
# kustomize` and `kubectl create secret --dry-run=client`), unless a kubectl is already on PATH
# (e.g. a newer one from Kubernetes' own repository, which that package would conflict with).
# nlohmann-json3-dev reads and writes the SecAgg test vectors (tools/secagg_vectors,
# tests/unit/crypto/secagg_vectors_test.cc); python3-cryptography runs their independent checker
# (tools/secagg_vectors/check_vectors.py, ctest secagg_vectors_python). libcpp-httplib-dev serves
# the coordinator's Prometheus metrics (--metrics_listen). libspectra-dev (header-only Lanczos) finds
# the graph filters' singular vectors (common/algorithms/graph_filter). The JVM binding
# (client/java) needs a JDK 17 with the JNI headers; its example app grpc-java with its netty
# transport, protobuf-java and the grpc-java protoc plugin (the jars client/java/example lists).
set -euo pipefail

PACKAGES=(
  g++ cmake make pkg-config git ca-certificates dpkg-dev file
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libssl-dev libeigen3-dev libspectra-dev libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev python3-cryptography
  libcpp-httplib-dev
  openjdk-17-jdk-headless libgrpc-java protobuf-compiler-grpc-java-plugin libprotobuf-java
  libnetty-java libperfmark-java libguava-java libgeronimo-annotation-1.3-spec-java
  docker-compose python3-yaml mmdebstrap openssl iproute2
)

command -v kubectl >/dev/null || PACKAGES+=(kubernetes-client)

FUZZING_PACKAGES=(clang libclang-rt-14-dev lld)
PLOT_PACKAGES=(gnuplot-nox)
DOCKER_PACKAGES=(docker.io)

check_only=false
for arg in "$@"; do
  case "$arg" in
    --check) check_only=true ;;
    --fuzzing) PACKAGES+=("${FUZZING_PACKAGES[@]}") ;;
    --plots) PACKAGES+=("${PLOT_PACKAGES[@]}") ;;
    --docker) PACKAGES+=("${DOCKER_PACKAGES[@]}") ;;
    *) echo "install-deps: unknown argument '$arg' (use --fuzzing, --plots, --docker, --check)" >&2; exit 2 ;;
  esac
done

die() { echo "install-deps: $*" >&2; exit 1; }

[[ -r /etc/os-release ]] || die "cannot read /etc/os-release; this script supports Debian 12 only"
# shellcheck source=/dev/null
. /etc/os-release
if [[ "${ID:-}" != debian || "${VERSION_ID:-}" != 12 ]]; then
  die "this script supports Debian 12 (bookworm) only, found '${PRETTY_NAME:-unknown}'." \
      "Install the equivalents of: ${PACKAGES[*]}"
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi
echo "install-deps: missing: ${missing[*]}"
$check_only && exit 1

sudo=()
if [[ $EUID -ne 0 ]]; then
  command -v sudo >/dev/null || die "installing packages needs root; run as root or install sudo"
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${#missing[@]} packages"
