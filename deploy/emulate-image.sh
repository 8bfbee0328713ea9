#!/usr/bin/env bash
# The container image and the compose stack without a Docker engine: builds the runtime stage of
# deploy/Dockerfile as a root file system and runs docker-compose.yml's services in it as plain
# processes, so the image's package list, user, directories and entry points are exercised.
# Usage (as root): [KEEP=DIR] deploy/emulate-image.sh [--build DIR]
#   --build DIR  where the release build is (default: build); it stands in for the build stage
#   KEEP=DIR     work in DIR and keep it (root file system and logs) for inspection
# Steps, each read from the files it validates:
#  1. mmdebstrap --variant=minbase bookworm (debian:12-slim is minbase without documentation)
#  2. every RUN of the Dockerfile's last stage, in a chroot (apt-get install of the runtime
#     packages, the fedmf user, /certs /claims /var/lib/fedmf/state)
#  3. the build stage's `install` lines with /src = this checkout and /out in the work directory,
#     then COPY --from=build /out/bin/ /usr/local/bin/
#  4. `docker-compose config` with FEDMF_REPLICAS=2 FEDMF_ROUNDS=2: the certs job, the coordinator
#     service until its health check passes, the submit job, and two client replicas, all as uid
#     10001 (the image's USER) in the chroot. Two changes, for the host's network: the coordinator
#     listens on a free loopback port instead of 0.0.0.0:50051, and the submit job and the clients
#     dial localhost (in the server certificate's SAN) instead of the service name `coordinator`.
# Passes when the jobs exit 0, the coordinator applied both rounds of the submitted run and still
# serves after it (healthy, its clients still connected), and SIGTERM stops the coordinator and the
# clients with 0. Exit 77 (skip) with the
# reason without root (and the privilege to mount), mmdebstrap, docker-compose or python3-yaml, or
# when the Debian mirror is unreachable.
set -euo pipefail
ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT_DIR/build"
while (($#)); do
  case "$1" in
    --build) BUILD="$(cd "$2" && pwd)"; shift 2 ;;
    *) echo "emulate-image: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
skip() { echo "SKIP: $*"; exit 77; }
((EUID == 0)) || skip "needs root (chroot, mount)"
unshare --mount --fork true 2>/dev/null || skip "root without the privilege to mount (a restricted container?)"
for tool in mmdebstrap docker-compose python3; do
  command -v "$tool" >/dev/null || skip "$tool not installed (deploy/install-deps.sh installs it)"
done
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
for binary in server/fedmf-coordinator client/fedmf-client tools/sim/fedmf-sim; do
  [[ -x "$BUILD/$binary" ]] || { echo "FAIL: no $BUILD/$binary: build first"; exit 1; }
done

source "$ROOT_DIR/tools/lib/processes.sh"
processes_init image
RFS="$WORK/rootfs"
processes_before_remove() {
  for m in proc dev; do umount -l "$RFS/$m" 2>/dev/null || true; done
}
# "${IN_IMAGE[@]}" CMD...: a command in the image as its USER (uid 10001), in its WORKDIR, with
# the environment given as NAME=VALUE words before the command. Every step execs the next, so a
# background service's pid is the service's own.
IN_IMAGE=(chroot --userspec=10001:10001 "$RFS" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin
  HOME=/var/lib/fedmf sh -c 'cd /var/lib/fedmf && exec env "$@"' sh)

echo "==> 1. base file system (mmdebstrap minbase bookworm)"
if ! mmdebstrap --variant=minbase --quiet bookworm "$RFS" >"$WORK/mmdebstrap.log" 2>&1; then
  grep -qiE 'could not resolve|failed to fetch|temporary failure|unable to connect' \
    "$WORK/mmdebstrap.log" && skip "the Debian mirror is unreachable: $(tail -n 1 "$WORK/mmdebstrap.log")"
  fail "mmdebstrap failed"
fi
mount --bind /proc "$RFS/proc" && mount --bind /dev "$RFS/dev" || skip "cannot bind-mount /proc and /dev"
# What the engine puts into every container: /etc/resolv.conf and an /etc/hosts naming localhost
# (gRPC's resolver needs it for the clients' localhost:PORT).
cp /etc/resolv.conf "$RFS/etc/resolv.conf"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$RFS/etc/hosts"

# dockerfile_part STAGE KIND: the Dockerfile's instructions of KIND (RUN, COPY) in stage STAGE
# (build, runtime), continuation lines joined, one per line.
dockerfile_part() {
  python3 - "$ROOT_DIR/deploy/Dockerfile" "$1" "$2" <<'EOF'
import re, sys
text = re.sub(r'\\\n', ' ', open(sys.argv[1]).read())
stages = re.split(r'(?m)^FROM ', text)[1:]
stage = stages[0] if sys.argv[2] == 'build' else stages[-1]
for line in stage.splitlines():
    if line.startswith(sys.argv[3] + ' '):
        print(line[len(sys.argv[3]) + 1:].strip())
EOF
}

echo "==> 2. the runtime stage's RUN instructions"
while IFS= read -r run; do
  chroot "$RFS" /bin/sh -c "DEBIAN_FRONTEND=noninteractive; export DEBIAN_FRONTEND; $run" \
    >>"$WORK/runtime-stage.log" 2>&1 || fail "RUN failed: $run"
done < <(dockerfile_part runtime RUN)

echo "==> 3. the build stage's install lines, and COPY --from=build"
mkdir -p "$WORK/out"
ln -sfn "$BUILD" "$WORK/build"  # the build stage's build/ directory
while IFS= read -r run; do
  # Only the install commands of the build stage's RUN; /src is this checkout.
  while IFS= read -r step; do
    [[ "$step" == install* ]] || continue
    step="${step//\/out\//$WORK/out/}"
    (cd "$ROOT_DIR" && eval "${step//build\//$WORK/build/}") || fail "install step failed: $step"
  done < <(sed 's/ && /\n/g' <<<"$run")
done < <(dockerfile_part build RUN)
copy="$(dockerfile_part runtime COPY)"
[[ "$copy" == $'--from=build /out/bin/ /usr/local/bin/\nconfigs/ /usr/local/share/fedmf/configs/' ]] ||
  fail "the runtime stage's COPY changed ('$copy'): update this script"
cp -a "$WORK/out/bin/." "$RFS/usr/local/bin/"
mkdir -p "$RFS/usr/local/share/fedmf/configs"
cp -a "$ROOT_DIR/configs/." "$RFS/usr/local/share/fedmf/configs/"
"${IN_IMAGE[@]}" fedmf-coordinator --version >/dev/null || fail "fedmf-coordinator does not start in the image"
"${IN_IMAGE[@]}" fedmf-coordinator --config=/usr/local/share/fedmf/configs/dpmf-rp/paper.textproto \
  describe dpmf-rp | grep -q '^  mechanism = MECHANISM_PBM ' ||
  fail "the image's configs/dpmf-rp/paper.textproto is not read"
missing="$(chroot "$RFS" sh -c 'for b in /usr/local/bin/fedmf-*; do ldd "$b" 2>/dev/null; done' |
  grep 'not found' || true)"
[[ -z "$missing" ]] || fail "shared libraries missing from the runtime stage: $missing"

echo "==> 4. docker-compose.yml's services in the image"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
(cd "$ROOT_DIR" && FEDMF_REPLICAS=2 FEDMF_ROUNDS=2 docker-compose -f docker-compose.yml config) \
  >"$WORK/compose.yml" || fail "docker-compose config failed"
# service NAME: the service's environment as NAME=VALUE items, then "--", then its entrypoint and
# command words (a word may span lines: a script), each item ended by a NUL, with the two network
# changes of the header applied; then, for the coordinator, "--health--" and its health check.
service() {
  python3 - "$WORK/compose.yml" "$1" "$PORT" <<'EOF'
import sys, yaml
svc = yaml.safe_load(open(sys.argv[1]))['services'][sys.argv[2]]
port = sys.argv[3]
def local(word):  # also unescapes compose's $$, as the engine does
    return (str(word).replace('$$', '$').replace('0.0.0.0:50051', '127.0.0.1:' + port)
            .replace('coordinator:50051', 'localhost:' + port)
            .replace('localhost:50051', 'localhost:' + port))
env = svc.get('environment') or {}
if isinstance(env, list):
    env = dict(e.split('=', 1) for e in env)
for k, v in env.items():
    print(f'{k}={local(v)}', end='\0')
print('--', end='\0')
def words(x):
    return [] if x is None else ([x] if isinstance(x, str) else list(x))
for w in words(svc.get('entrypoint')) + words(svc.get('command')):
    print(local(w), end='\0')
if sys.argv[2] == 'coordinator':
    print('--health--', end='\0')
    for w in svc['healthcheck']['test'][1:]:
        print(local(w), end='\0')
EOF
}
# run_service NAME LOG [EXTRA_ENV...]: starts the service in the background (sets SERVICE_PID).
run_service() {
  local name="$1" log="$2" env=() cmd=() part=env
  shift 2
  while IFS= read -r -d '' word; do
    case "$part:$word" in
      env:--) part=cmd ;;
      cmd:--health--) part=health ;;
      env:*) env+=("$word") ;;
      cmd:*) cmd+=("$word") ;;
    esac
  done < <(service "$name")
  (exec "${IN_IMAGE[@]}" "${env[@]}" "$@" "${cmd[@]}") >"$log" 2>&1 &
  SERVICE_PID=$!
  PIDS+=("$SERVICE_PID")
}

run_service certs "$WORK/certs.log"
wait "$SERVICE_PID" || fail "the certs job failed"
[[ -f "$RFS/certs/ca.pem" && -f "$RFS/certs/clients/client-1.pem" ]] || fail "the certs job made no certificates"

run_service coordinator "$WORK/coordinator.log"
COORDINATOR_PID="$SERVICE_PID"
health=()
part=""
while IFS= read -r -d '' word; do
  [[ "$part" == health ]] && health+=("$word")
  [[ "$word" == --health-- ]] && part=health
done < <(service coordinator)
for ((i = 0; ; i++)); do
  "${IN_IMAGE[@]}" "${health[@]}" >"$WORK/health.out" 2>&1 && break
  kill -0 "$COORDINATOR_PID" 2>/dev/null || fail "the coordinator exited"
  ((i < 150)) || fail "the coordinator's health check did not pass in 30 s"
  sleep 0.2
done
echo "    coordinator healthy: $(head -n 1 "$WORK/health.out")"

run_service submit "$WORK/submit.log"
wait "$SERVICE_PID" || fail "the submit job failed: $(tail -n 3 "$WORK/submit.log")"
grep -q '^run id=1 state=queued run_id=compose-1 ' "$WORK/submit.log" ||
  fail "the submit job queued no run: $(cat "$WORK/submit.log")"

CLIENT_PIDS=()
for replica in 0 1; do
  run_service client "$WORK/client-$replica.log" "FEDMF_HOSTNAME=replica-$replica"
  CLIENT_PIDS+=("$SERVICE_PID")
done
for ((i = 0; ; i++)); do
  grep -q ' event=training_end ' "$WORK/coordinator.log" && break
  kill -0 "$COORDINATOR_PID" 2>/dev/null || fail "the coordinator exited before the end of training"
  ((i < 900)) || fail "training did not end in 180 s"
  sleep 0.2
done
applied="$(grep -c ' event=round .*applied=yes' "$WORK/coordinator.log" || true)"
((applied == 2)) || fail "$applied of 2 rounds applied"
shards="$(ls "$RFS/claims" | tr '\n' ' ')"
[[ "$shards" == "shard-0 shard-1 " ]] || fail "replica shard claims: '$shards'"
# A service outlives its run: the run is recorded done, the coordinator stays healthy (so compose
# and Kubernetes see a live service, not an exit to restart) with the final model published, and
# the clients stay connected for the next run; SIGTERM (a `docker stop`) ends each with 0.
for ((i = 0; ; i++)); do
  grep -q ' event=run_end id=1 state=done' "$WORK/coordinator.log" && break
  kill -0 "$COORDINATOR_PID" 2>/dev/null || fail "the coordinator exited after training"
  ((i < 150)) || fail "the run was not recorded done within 30 s of its end"
  sleep 0.2
done
grep -q ' event=model_published version=1 run_id=compose-1 round=2 final=yes' \
  "$WORK/coordinator.log" || fail "the run's final model was not published"
"${IN_IMAGE[@]}" "${health[@]}" >"$WORK/health.out" 2>&1 ||
  fail "the coordinator is not healthy after its run: $(cat "$WORK/health.out")"
for replica in 0 1; do
  for ((i = 0; ; i++)); do
    grep -q ' event=run_done ' "$WORK/client-$replica.log" && break
    ((i < 150)) || fail "client replica $replica was not told the run is done"
    sleep 0.2
  done
  kill -0 "${CLIENT_PIDS[$replica]}" 2>/dev/null ||
    fail "client replica $replica left after the run: $(tail -n 2 "$WORK/client-$replica.log")"
done
# stop PID WHAT: SIGTERM, then exit status 0 within 20 s.
stop() {
  kill -TERM "$1"
  for ((i = 0; i < 100; i++)); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$1" 2>/dev/null && fail "$2 still runs 20 s after SIGTERM"
  wait "$1" || fail "$2 exited non-zero on SIGTERM"
}
stop "$COORDINATOR_PID" "the coordinator"
for replica in 0 1; do stop "${CLIENT_PIDS[$replica]}" "client replica $replica"; done
owner="$(stat -c %u "$RFS/var/lib/fedmf/state/$(ls "$RFS/var/lib/fedmf/state" | head -n 1)")"
((owner == 10001)) || fail "the coordinator's state is owned by uid $owner, not the image's user"
echo "PASS image: runtime stage built ($(du -shx "$RFS" 2>/dev/null | cut -f1)), certs job, coordinator service healthy, run submitted, 2 replicas, 2 rounds, service and clients up after the run, as uid 10001"
