#!/usr/bin/env bash
# The deployment on a real Docker engine: builds deploy/Dockerfile and runs docker-compose.yml with
# FEDMF_REPLICAS client containers (mutual TLS), then checks that the coordinator service's health
# probe turns healthy, the `submit` container queues the run, a client container killed mid-round
# is tolerated, a coordinator container restarted mid-run resumes from its state volume, a client
# revoked through the certs volume is refused, every round is applied, and the Prometheus endpoint
# answers on the compose network; then that the service outlives its run (running, healthy, idle),
# that submitting again does not queue the run twice, and that a second run (2 rounds, started from
# the first's model) is trained by the clients that stayed connected.
# Usage: deploy/docker-test.sh [--if-asked] (as root); --if-asked (CTest's deploy_docker): skip
# unless FEDMF_DOCKER_TEST=1. Environment: FEDMF_SOURCE_DIR (the repository to build; default this
# script's), FEDMF_REPLICAS (3), FEDMF_ROUNDS (8),
# FEDMF_DOCKER_DIR and FEDMF_DOCKER_LOGS (deploy/docker-engine.sh, which starts the engine: Debian's
# docker.io on a socket of its own, vfs, no change to the host's firewall, base images from
# mmdebstrap). Exit 77 (skip) with a message when not root, when docker.io, docker-compose or
# mmdebstrap is missing (deploy/install-deps.sh --docker installs them), or when dockerd does not
# start. deploy/docker-scaleout-test.sh runs the scale-out topology on the same engine.
set -euo pipefail
ROOT="${FEDMF_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
REPLICAS="${FEDMF_REPLICAS:-3}"
ROUNDS="${FEDMF_ROUNDS:-8}"
PORT=""
# shellcheck source=deploy/docker-engine.sh
source "$(dirname "$0")/docker-engine.sh"

compose() {
  FEDMF_REPLICAS="$REPLICAS" FEDMF_ROUNDS="${RUN_ROUNDS:-$ROUNDS}" FEDMF_PORT="$PORT" \
    docker-compose -p "$PROJECT" -f "$ROOT/docker-compose.yml" "$@"
}
fail_details() {
  [[ -n "${COORD:-}" ]] || return 0
  echo "--- coordinator log (last 30 lines)"
  docker logs "$COORD" 2>&1 | tail -n 30
}
engine_preflight "${1:-}"

coordinator_log() { docker logs "$COORD" 2>&1; }
# log_has REGEX [COUNT]: the coordinator's log (all its runs) has COUNT (1) lines matching REGEX.
log_has() { (($(coordinator_log | grep -cE "$1") >= ${2:-1})); }
healthy() { [[ "$(docker inspect -f '{{.State.Health.Status}}' "$COORD")" == healthy ]]; }
admin() {
  docker exec "$COORD" fedmf-coordinator "$1" --target=localhost:50051 --tls_ca=/certs/ca.pem \
    --tls_cert=/certs/clients/admin.pem --tls_key=/certs/clients/admin.key
}

engine_start
engine_build_image

PORT="$(free_port)"
say "docker-compose up: $REPLICAS client replicas, $ROUNDS rounds (published on port $PORT)"
run_start=$SECONDS
compose up -d --scale client="$REPLICAS" >"$WORK/up.log" 2>&1 || fail "compose up: $(tail -n 5 "$WORK/up.log")"
COORD="$(compose ps -q coordinator)"
[[ -n "$COORD" ]] || fail "no coordinator container"
wait_until 120 "coordinator healthy" healthy
say "coordinator healthy"
wait_until 120 "the run submitted" log_has ' event=run_submitted id=1 run_id=compose-1 '
wait_until 180 "first round applied" log_has ' event=round round=0 .*applied=yes'
running_clients() {
  docker ps -q --filter "label=com.docker.compose.project=$PROJECT" \
    --filter label=com.docker.compose.service=client
}

# The scrape endpoint, from a client container on the compose network (it is not published).
docker exec "$(running_clients | head -n 1)" bash -c \
  'exec 3<>/dev/tcp/coordinator/9090 && printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && cat <&3' \
  >"$WORK/metrics.txt" 2>&1 || fail "GET coordinator:9090/metrics: $(head -c 300 "$WORK/metrics.txt")"
grep -q '^fedmf_aggregations_applied_total{kind="training"} [1-9]' "$WORK/metrics.txt" ||
  fail "the scrape shows no applied round: $(grep fedmf_aggregations "$WORK/metrics.txt")"
say "metrics scraped on the compose network: $(grep -c '^[a-z]' "$WORK/metrics.txt") samples"

# A client container killed while a round is in ShareKeys or MaskedInput.
mapfile -t CLIENTS < <(running_clients)
((${#CLIENTS[@]} == REPLICAS)) || fail "${#CLIENTS[@]} client containers, expected $REPLICAS"
killed=""
for _ in $(seq 1 600); do
  stage="$(admin status 2>/dev/null | sed -n 's/.*stage=\([^ ]*\).*/\1/p')"
  if [[ "$stage" == ShareKeys || "$stage" == MaskedInput ]]; then
    docker kill "${CLIENTS[-1]}" >/dev/null
    killed="$stage"
    break
  fi
  sleep 0.05
done
[[ -n "$killed" ]] || fail "never saw a round in ShareKeys or MaskedInput"
applied_before="$(coordinator_log | grep -cE ' event=round .*applied=yes')"
say "killed a client container during $killed, after $applied_before applied rounds"
wait_until 120 "a round applied after the kill" log_has ' event=round .*applied=yes' \
  $((applied_before + 1))

# The coordinator container restarted mid-run: it resumes from its state volume.
applied_before="$(coordinator_log | grep -cE ' event=round .*applied=yes')"
docker restart --time 5 "$COORD" >/dev/null
wait_until 120 "coordinator resumed" log_has ' event=resume '
wait_until 120 "coordinator healthy after the restart" healthy
wait_until 180 "a round applied after the restart" log_has ' event=round .*applied=yes' \
  $((applied_before + 1))
say "coordinator restarted and resumed: $(coordinator_log | grep ' event=resume ' | tail -n 1)"

# Revocation through the certs volume: a running client's identity (client-i, from its shard claim)
# is refused from now on; its live stream ends.
victim="$(running_clients | head -n 1)"
shard="$(docker exec "$victim" sh -c 'grep -lx "$(hostname)" /claims/shard-*/owner' |
  sed -n 's|.*/shard-\([0-9]*\)/owner|\1|p')"
[[ -n "$shard" ]] || fail "no shard claim of client container $victim"
docker exec "$COORD" sh -c "echo client-$shard >> /certs/revoked.txt"
wait_until 60 "client-$shard revoked" log_has "event=stream_revoked identity=client-$shard( |$)"
revoked_client_refused() { docker logs "$victim" 2>&1 | grep -q PERMISSION_DENIED; }
wait_until 60 "client-$shard told it is revoked (PERMISSION_DENIED)" revoked_client_refused
say "client-$shard revoked: $(coordinator_log | grep " event=stream_revoked " | tail -n 1)"

wait_until 600 "training to end" log_has " event=training_end rounds=$ROUNDS "
applied="$(coordinator_log | sed -n 's/.* event=round round=\([0-9]*\) .*applied=yes.*/\1/p' | sort -un |
  wc -l)"
((applied == ROUNDS)) || fail "$applied distinct rounds applied, expected $ROUNDS"
say "all $ROUNDS rounds applied in $((SECONDS - run_start)) s"

# A service, not a batch job: still running and healthy after its run, idle, the run done.
runs_line() { admin runs | grep " run_id=$1 "; }
run_done() { runs_line "$1" | grep -q ' state=done '; }
wait_until 60 "run compose-1 recorded done" run_done compose-1
[[ "$(docker inspect -f '{{.State.Running}}' "$COORD")" == true ]] || fail "the coordinator exited"
wait_until 60 "coordinator healthy after its run" healthy
admin status | grep -q ' stage=idle' || fail "not idle after the run: $(admin status)"
# Submitting the same run again is a no-op; another run id is a second run, from the first's model.
compose run --rm submit >"$WORK/submit-again.log" 2>&1 || fail "submit again: $(cat "$WORK/submit-again.log")"
grep -q 'run compose-1 is already submitted' "$WORK/submit-again.log" ||
  fail "compose-1 submitted twice: $(cat "$WORK/submit-again.log")"
FEDMF_RUN_ID=compose-2 RUN_ROUNDS=2 FEDMF_RUN_EXTRA='start_from_version: 0' \
  compose run --rm submit >"$WORK/submit-2.log" 2>&1 || fail "submit run 2: $(cat "$WORK/submit-2.log")"
wait_until 600 "run compose-2 done" run_done compose-2
log_has ' event=new_run .* start_model_version=[0-9]+ start_model_run_id=compose-1 ' ||
  fail "run 2 did not start from run 1's model"
stayed=0
for c in $(running_clients); do
  (($(docker logs "$c" 2>&1 | grep -c ' event=run_done ') >= 2)) && stayed=$((stayed + 1))
done
((stayed >= 1)) || fail "no client container stayed connected for both runs"
say "the service trained a second run with $stayed client containers that stayed: $(runs_line compose-2)"

echo "PASS docker: image build $BUILD_S s, run $((SECONDS - run_start)) s"
