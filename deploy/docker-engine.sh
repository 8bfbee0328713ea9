# shellcheck shell=bash
# The Docker engine of the deployment tests on a real engine, sourced (not run) by
# deploy/docker-test.sh (docker-compose.yml) and deploy/docker-scaleout-test.sh
# (docker-compose.yml + deploy/compose-scaleout.yml), so that both start, feed and stop the engine
# the same way.
#
# The engine is Debian's docker.io, started here on a socket of its own with no default bridge and
# no change to the host's firewall (--bridge=none --iptables=false --ip-forward=false
# --ip-masq=false, storage driver vfs); each compose project gets a network of its own. No registry
# is needed: debian:12 and debian:12-slim are imported from mmdebstrap. The engine's data live in
# FEDMF_DOCKER_DIR (/var/tmp/fedmf-docker), kept between runs so that the base images and the
# image's build cache are reused; delete it to start afresh. One test at a time per data directory.
#
# The sourcing script sets ROOT (the repository to build) and defines compose (docker-compose with
# its files and environment; cleanup runs `compose down -v`) and, optionally, fail_details (what
# to print on failure). Then:
#   engine_preflight "$1"   --if-asked: exit 77 unless FEDMF_DOCKER_TEST=1; exit 77 when not
#                           root or when docker.io, docker-compose or mmdebstrap is missing
#                           (deploy/install-deps.sh --docker installs them); makes WORK and the
#                           EXIT trap
#   engine_start            dockerd, then the base images (exit 77 when dockerd does not start)
#   engine_build_image      docker build -f deploy/Dockerfile -t fedmf:latest; sets BUILD_S
# and uses skip, say, fail, wait_until, wait_progress, free_port and the variables PROJECT (the
# compose project) and WORK (a temporary directory, removed on exit).
# FEDMF_DOCKER_LOGS=DIR: on exit, every container's log of the project is saved in DIR (first run
# of a new setting, a failure to look into).

DATA_ROOT="${FEDMF_DOCKER_DIR:-/var/tmp/fedmf-docker}"
PROJECT="fedmftest$$"
DOCKERD_PID=""
WORK=""

skip() { echo "SKIP: $*"; exit 77; }
say() { echo "[$(date +%T)] $*"; }
fail() {
  echo "FAIL: $*"
  if declare -F fail_details >/dev/null; then fail_details || true; fi
  exit 1
}

# The engine's own client (docker.io's /usr/bin/docker) rather than whatever `docker` comes first
# on PATH: a newer client builds with BuildKit when it has buildx, whose output and cache differ
# from the builder this engine setup is written for.
DOCKER_CLI=/usr/bin/docker
[[ -x "$DOCKER_CLI" ]] || DOCKER_CLI=docker
docker() { command "$DOCKER_CLI" "$@"; }
export DOCKER_BUILDKIT=0  # the classic builder whatever the client: its `Step` lines are read

engine_preflight() {
  if [[ "${1:-}" == --if-asked && "${FEDMF_DOCKER_TEST:-0}" != 1 ]]; then
    skip "set FEDMF_DOCKER_TEST=1 to build the image and run it (tens of minutes the first time)"
  fi
  [[ "$(id -u)" == 0 ]] || skip "dockerd needs root"
  local tool
  for tool in dockerd "$DOCKER_CLI" docker-compose mmdebstrap; do
    command -v "$tool" >/dev/null || skip "$tool not installed (deploy/install-deps.sh --docker)"
  done
  WORK="$(mktemp -d /tmp/fedmf-docker-test.XXXXXX)"  # after the skips: cleanup removes it
  trap engine_cleanup EXIT
}

engine_save_logs() {
  local dir="$1" c name
  mkdir -p "$dir"
  for c in $(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT"); do
    name="$(docker inspect -f '{{.Name}}' "$c" | tr -d /)"
    docker logs "$c" >"$dir/$name.log" 2>&1 || true
  done
  cp "$WORK"/*.log "$dir/" 2>/dev/null || true
  echo "logs saved in $dir"
}

engine_cleanup() {
  if [[ -n "$DOCKERD_PID" ]]; then
    [[ -n "${FEDMF_DOCKER_LOGS:-}" ]] && engine_save_logs "$FEDMF_DOCKER_LOGS"
    compose down -v --timeout 5 >/dev/null 2>&1 || true
    kill "$DOCKERD_PID" 2>/dev/null || true
    wait "$DOCKERD_PID" 2>/dev/null || true
  fi
  # dockerd may leave its network namespace mount behind in the exec root.
  awk -v w="$WORK/" 'index($2, w) == 1 { print $2 }' /proc/mounts | xargs -r umount 2>/dev/null || true
  rm -rf "$WORK"
}

# wait_until SECONDS WHAT COMMAND...: polls COMMAND every half second until it succeeds, for
# things that take a bounded time whatever the load (a health check turning, a log line right
# after an action).
wait_until() {
  local seconds="$1" what="$2"
  shift 2
  for _ in $(seq 1 $((seconds * 2))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  fail "$what: not within $seconds s"
}

# wait_progress STALL WHAT PROGRESS COMMAND...: polls COMMAND every half second until it succeeds,
# for as long as the output of PROGRESS (a function: e.g. how many devices are connected)
# keeps changing; fails once it has not changed for STALL seconds. For waits whose length grows
# with the load and the machine (thousands of devices registering, a run's rounds).
wait_progress() {
  local stall="$1" what="$2" progress="$3" last now seen
  shift 3
  last="$("$progress" 2>/dev/null || true)"
  seen=$SECONDS
  until "$@" >/dev/null 2>&1; do
    sleep 0.5
    now="$("$progress" 2>/dev/null || true)"
    if [[ "$now" != "$last" ]]; then
      last="$now"
      seen=$SECONDS
    elif ((SECONDS - seen >= stall)); then
      fail "$what: no progress for $stall s (progress: $now)"
    fi
  done
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

engine_start() {
  say "starting dockerd (data in $DATA_ROOT)"
  mkdir -p "$DATA_ROOT"
  dockerd --host="unix://$WORK/docker.sock" --data-root="$DATA_ROOT" --exec-root="$WORK/exec" \
    --pidfile="$WORK/dockerd.pid" --storage-driver=vfs --bridge=none --iptables=false \
    --ip-forward=false --ip-masq=false >"$WORK/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  export DOCKER_HOST="unix://$WORK/docker.sock"
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$DOCKERD_PID" 2>/dev/null || skip "dockerd exited: $(tail -n 3 "$WORK/dockerd.log")"
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || skip "dockerd did not answer within 30 s: $(tail -n 3 "$WORK/dockerd.log")"

  if ! docker image inspect debian:12 >/dev/null 2>&1; then
    say "base image debian:12 from mmdebstrap (Debian's packages only)"
    mmdebstrap --quiet --variant=apt --include=ca-certificates bookworm "$WORK/debian12.tar"
    docker import "$WORK/debian12.tar" debian:12 >/dev/null
    rm -f "$WORK/debian12.tar"
  fi
  docker image inspect debian:12-slim >/dev/null 2>&1 || docker tag debian:12 debian:12-slim
}

engine_build_image() {
  say "docker build -f deploy/Dockerfile (the first build compiles fedmf: tens of minutes)"
  local start=$SECONDS
  docker build --network=host -f "$ROOT/deploy/Dockerfile" -t fedmf:latest "$ROOT" 2>&1 |
    tee "$WORK/build.log" | grep --line-buffered '^Step ' || true
  docker image inspect fedmf:latest >/dev/null 2>&1 && ! grep -q 'returned a non-zero code' "$WORK/build.log" ||
    fail "docker build failed: $(tail -n 20 "$WORK/build.log")"
  BUILD_S=$((SECONDS - start))
  say "image built in $BUILD_S s: $(docker image inspect -f '{{.Size}}' fedmf:latest) bytes"
}
