#!/usr/bin/env bash
# The scale-out topology (docs/scale-out.md) on a real Docker engine: builds deploy/Dockerfile and
# runs docker-compose.yml with deploy/compose-scaleout.yml over it: the `coordinator` service is the
# combiner, FEDMF_FRONTS `front` replicas hold the device streams, and FEDMF_REPLICAS client
# containers simulate FEDMF_DEVICES devices between them (fedmf-client --one_stream_per_user: each
# device its own registration, signing key and Participate stream, all under the container's
# mutual-TLS identity client-i; FEDMF_DEVICES_PER_CONNECTION devices share a TCP connection). Every
# connection dials `front:50051`, which Docker's DNS answers with every front's address in a
# shuffled order, so the connections, and the devices on them, spread over the fronts.
# It checks that:
#   - the combiner turns healthy, every front attaches, the run is submitted and its first round
#     waits for all the devices (wait_for_users), every front holding a share of them;
#   - with a round in progress (a SecAgg stage, the client containers paused by `docker pause` so
#     that the stage cannot end between the look and the kill), one front container killed
#     (`docker kill`) is lost by the combiner with exactly the users it held
#     (`event=front_lost users=U dropped_in_round=D`, D > 0: its devices left that round);
#   - its devices reconnect to the other fronts: the combiner's per-front status lists only the
#     survivors, holding every device between them, and they logged the new streams;
#   - the run completes: every round applied exactly once (the round in progress at the kill
#     completed without the lost devices or was retried), the ledger holding one entry per applied
#     round, the run recorded done, no client container restarted.
# It prints the devices per front before and after, the rounds and attempts, and the wall times.
# Usage: deploy/docker-scaleout-test.sh [--if-asked] (as root); --if-asked (CTest's
# deploy_docker_scaleout): skip unless FEDMF_DOCKER_TEST=1. Environment: FEDMF_SOURCE_DIR (the
# repository to build; default this script's), FEDMF_FRONTS (3), FEDMF_DEVICES (3000),
# FEDMF_REPLICAS (3 client containers), FEDMF_DEVICES_PER_CONNECTION (10), FEDMF_ROUNDS (6),
# FEDMF_PARTICIPATION (0.05), FEDMF_REPLICA_KEEPALIVE_S (30, the replica links' keepalive),
# FEDMF_DOCKER_DIR and FEDMF_DOCKER_LOGS (deploy/docker-engine.sh, which starts and stops the
# engine, shared with deploy/docker-test.sh). Exit 77 (skip) as deploy/docker-test.sh does.
set -euo pipefail
ROOT="${FEDMF_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
FRONTS="${FEDMF_FRONTS:-3}"
DEVICES="${FEDMF_DEVICES:-3000}"
REPLICAS="${FEDMF_REPLICAS:-3}"
# Devices per TCP connection (and TLS handshake). One each (1) is what phones would do; on a 2-core
# host shared with other builds, 3,000 handshakes at once from the niced containers collapsed twice:
# connection attempts kept failing with `Handshake read failed` (what gRPC also reports when its
# 20 s connect deadline ends a handshake) and the fronts opened no new stream for two minutes
# (docs/deployment.md, "Scale-out on a real Docker engine").
PER_CONNECTION="${FEDMF_DEVICES_PER_CONNECTION:-10}"
ROUNDS="${FEDMF_ROUNDS:-6}"
PARTICIPATION="${FEDMF_PARTICIPATION:-0.05}"
# A small catalogue: the devices' work per round stays small, so that 2 cores hold thousands of
# them next to the servers (the shape of tools/load-test.sh).
ITEMS=100
DATA="synthetic:users=$DEVICES,items=$ITEMS,per_user=20,min_per_user=5"
# The replica links' keepalive (fronts and combiner): on a shared 2-core host, a front lost its link
# to a combiner that had not answered a ping for the default 10 s while thousands of devices
# registered (a spurious front_lost); the kill is seen at once anyway (the killed front's
# connection closes).
KEEPALIVE_S="${FEDMF_REPLICA_KEEPALIVE_S:-30}"
PORT=""
# shellcheck source=deploy/docker-engine.sh
source "$(dirname "$0")/docker-engine.sh"

for v in FRONTS DEVICES REPLICAS ROUNDS PER_CONNECTION; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "FEDMF_$v: a positive count, got '${!v}'" >&2; exit 2; }
done
((FRONTS >= 2)) || { echo "FEDMF_FRONTS: at least 2 (one is killed)" >&2; exit 2; }
((ROUNDS >= 3)) || { echo "FEDMF_ROUNDS: at least 3 (round 0, the kill, a round after)" >&2; exit 2; }
PER_CLIENT=$(((DEVICES + REPLICAS - 1) / REPLICAS))
CONNECTIONS=$(((PER_CLIENT + PER_CONNECTION - 1) / PER_CONNECTION))  # per client container

compose() {
  FEDMF_REPLICAS="$REPLICAS" FEDMF_ROUNDS="$ROUNDS" FEDMF_PORT="$PORT" FEDMF_DATA="$DATA" \
    FEDMF_NUM_USERS="$DEVICES" FEDMF_NUM_ITEMS="$ITEMS" FEDMF_PARTICIPATION="$PARTICIPATION" \
    FEDMF_RUN_EXTRA="wait_for_users: $DEVICES" FEDMF_STREAMS_PER_IDENTITY=0 \
    FEDMF_REPLICA_KEEPALIVE_S="$KEEPALIVE_S" \
    docker-compose -p "$PROJECT" -f "$ROOT/docker-compose.yml" -f "$ROOT/deploy/compose-scaleout.yml" \
    -f "$WORK/devices.yml" "$@"
}
fail_details() {
  local c
  [[ -n "${COORD:-}" ]] || return 0
  echo "--- load average $(cut -d' ' -f1-3 /proc/loadavg); containers:"
  docker ps -a --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Names}} {{.Status}}'
  docker stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.CPUPerc}}' 2>&1 || true
  echo "--- combiner status"
  admin status 2>&1 || true
  echo "--- combiner log (last 30 lines)"
  docker logs "$COORD" 2>&1 | tail -n 30
  for c in ${FRONT_CONTAINERS[@]+"${FRONT_CONTAINERS[@]}"} ${CLIENTS[@]+"${CLIENTS[@]}"}; do
    echo "--- $(container_name "$c") (last 5 lines)"
    docker logs "$c" 2>&1 | tail -n 5
  done
}
engine_preflight "${1:-}"

# The client containers host PER_CLIENT devices each on CONNECTIONS connections; give_up_after_s
# (a client process exits when one of its devices has had no stream that long) leaves a device time
# to find another front.
cat >"$WORK/devices.yml" <<EOF
services:
  client:
    command: ["--one_stream_per_user", "--channels=$CONNECTIONS", "--workers=2", "--top_n=0",
              "--give_up_after_s=300"]
EOF

container_name() { docker inspect -f '{{.Name}}' "$1" | tr -d /; }
coordinator_log() { docker logs "$COORD" 2>&1; }
log_has() { (($(coordinator_log | grep -cE "$1") >= ${2:-1})); }
healthy() { [[ "$(docker inspect -f '{{.State.Health.Status}}' "$1")" == healthy ]]; }
admin() {
  docker exec "$COORD" fedmf-coordinator "$1" --target=localhost:50051 --tls_ca=/certs/ca.pem \
    --tls_cert=/certs/clients/admin.pem --tls_key=/certs/clients/admin.key
}
# field NAME LINE: the value of NAME=... in an event or status line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2" | head -n 1; }
# front_users STATUS: "NAME USERS" for every front the combiner lists (attached ones only), NAME the
# front's --front_name default, host name (the container's) and pid.
front_users() { sed -n 's/^front index=[0-9]* name="\([^"]*\)" streams=[0-9]* users=\([0-9]*\) .*/\1 \2/p' <<<"$1"; }
# epoch TIME: an RFC 3339 time as seconds since the epoch; log_epoch REGEX: the time of the
# combiner's first log line matching REGEX; seconds FROM TO: TO - FROM, to a tenth.
epoch() { date -d "$1" +%s.%N; }
log_epoch() { epoch "$(coordinator_log | grep -E "$1" | head -n 1 | sed -n 's/^ts=\([^ ]*\) .*/\1/p')"; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
users_sum() { awk '{ s += $2 } END { print s + 0 }' <<<"$(front_users "$1")"; }
# A front's status name starts with its container's host name.
container_of() {
  local c
  for c in "${FRONT_CONTAINERS[@]}"; do
    [[ "${1%%:*}" == "$(docker inspect -f '{{.Config.Hostname}}' "$c")" ]] && { container_name "$c"; return; }
  done
  echo "${1}"
}
describe_fronts() {
  local name users out=""
  while read -r name users; do
    [[ -n "$name" ]] && out+="$(container_of "$name")=$users "
  done <<<"$(front_users "$1")"
  echo "${out% }"
}
# Signs of life for wait_progress: the devices bound to a front so far (not what the fronts log:
# refused streams retried forever would look like progress), and what the combiner logged (rounds,
# stages, drops) other than its reminder, every 5 s, that it waits for users.
devices_bound() { users_sum "$(admin status 2>/dev/null)"; }
combiner_logged() { coordinator_log | grep -vc ' event=waiting_for_users ' || true; }
all_bound() { (($(devices_bound) == DEVICES)); }
# stream_opens CONTAINER...: the device streams they opened so far.
stream_opens() {
  local c n=0
  for c in "$@"; do
    n=$((n + $(docker logs "$c" 2>&1 | grep -c ' event=stream_open .*status=OK' || true)))
  done
  echo "$n"
}

engine_start
engine_build_image

PORT="$(free_port)"
say "docker-compose up: combiner, $FRONTS fronts, $DEVICES devices in $REPLICAS client containers" \
  "($CONNECTIONS connections each), $ROUNDS rounds, participation $PARTICIPATION"
run_start=$SECONDS
compose up -d --scale front="$FRONTS" --scale client="$REPLICAS" >"$WORK/up.log" 2>&1 ||
  fail "compose up: $(tail -n 5 "$WORK/up.log")"
up_s=$((SECONDS - run_start))  # creating the containers (vfs copies the image for each)
COORD="$(compose ps -q coordinator)"
[[ -n "$COORD" ]] || fail "no coordinator (combiner) container"
mapfile -t FRONT_CONTAINERS < <(compose ps -q front)
mapfile -t CLIENTS < <(compose ps -q client)
((${#FRONT_CONTAINERS[@]} == FRONTS)) || fail "${#FRONT_CONTAINERS[@]} front containers, expected $FRONTS"
((${#CLIENTS[@]} == REPLICAS)) || fail "${#CLIENTS[@]} client containers, expected $REPLICAS"
wait_until 120 "combiner healthy" healthy "$COORD"
for f in "${FRONT_CONTAINERS[@]}"; do wait_until 120 "front $(container_name "$f") healthy" healthy "$f"; done
wait_until 60 "$FRONTS fronts attached to the combiner" log_has ' event=front_attached ' "$FRONTS"
wait_until 120 "the run submitted" log_has ' event=run_submitted id=1 run_id=compose-1 '
say "combiner healthy, $FRONTS fronts attached, run submitted; waiting for $DEVICES devices"

wait_progress 240 "all $DEVICES devices bound to the fronts" devices_bound all_bound
# Round 0 started once every device was live (wait_for_users): from the first client container's
# start to that moment, by the engine's and the combiner's clocks (the same host's).
wait_progress 120 "round 0 applied" combiner_logged log_has ' event=round round=0 .*applied=yes'
first_client="$(for c in "${CLIENTS[@]}"; do epoch "$(docker inspect -f '{{.State.StartedAt}}' "$c")"; done |
  sort -n | head -n 1)"
bind_s="$(seconds "$first_client" "$(log_epoch ' event=secagg_session round=0 ')")"
say "all $DEVICES devices bound to the fronts $bind_s s after the first client container started"

# Mid-round: a SecAgg stage of a round after round 0. The client containers are paused while the
# stage is confirmed and the front killed, so that the round cannot move on in between.
VICTIM="${FRONT_CONTAINERS[0]}"
VICTIM_NAME="$(container_name "$VICTIM")"
VICTIM_HOST="$(docker inspect -f '{{.Config.Hostname}}' "$VICTIM")"
# Kept dead, whatever the engine's restart rule for killed containers: the point is that its devices
# move to the other fronts.
docker update --restart=no "$VICTIM" >/dev/null
AGG_STAGES='^(AdvertiseKeys|ShareKeys|MaskedInput|ConsistencyCheck|Unmasking)$'
killed_stage=""
last_progress="$(combiner_logged)"
seen=$SECONDS
while [[ -z "$killed_stage" ]]; do
  log_has ' event=training_end ' && fail "the run ended before a round in progress was seen"
  status="$(admin status 2>/dev/null)" || true
  if [[ "$(field stage "$status")" =~ $AGG_STAGES ]]; then
    docker pause "${CLIENTS[@]}" >"$WORK/pause.log" 2>&1 || fail "docker pause: $(cat "$WORK/pause.log")"
    status="$(admin status 2>/dev/null)" || true
    if [[ "$(field stage "$status")" =~ $AGG_STAGES ]]; then
      docker kill "$VICTIM" >/dev/null
      kill_at=$SECONDS
      killed_stage="$(field stage "$status")"
    fi
    docker unpause "${CLIENTS[@]}" >"$WORK/pause.log" 2>&1 || fail "docker unpause: $(cat "$WORK/pause.log")"
  fi
  now="$(combiner_logged)"
  [[ "$now" != "$last_progress" ]] && { last_progress="$now"; seen=$SECONDS; }
  ((SECONDS - seen < 120)) || fail "no round in progress and nothing logged for 120 s"
done
BEFORE="$status"
kill_round="$(field round "$BEFORE")"
victim_users="$(front_users "$BEFORE" | awk -v h="$VICTIM_HOST:" 'index($1, h) == 1 { print $2 }')"
[[ -n "$victim_users" ]] || fail "front $VICTIM_NAME ($VICTIM_HOST) not in the combiner's status: $BEFORE"
say "killed front $VICTIM_NAME (holding $victim_users devices) in $killed_stage of round $kill_round;" \
  "fronts before: $(describe_fronts "$BEFORE")"
before_sum="$(users_sum "$BEFORE")"
((before_sum == DEVICES)) || fail "the fronts held $before_sum devices before the kill, expected $DEVICES"
while read -r name users; do
  ((users * 2 * FRONTS >= DEVICES)) ||
    fail "front $(container_of "$name") held $users of $DEVICES devices: not spread over $FRONTS fronts"
done <<<"$(front_users "$BEFORE")"

# The combiner loses the front (its index: its last attachment under its name) with the users it
# held, those in the round dropping out of it.
victim_index="$(field front "$(coordinator_log | grep " event=front_attached .* name=$VICTIM_HOST:" | tail -n 1)")"
[[ -n "$victim_index" ]] || fail "no front_attached line of front $VICTIM_NAME ($VICTIM_HOST)"
wait_until 60 "the combiner to log the loss of front $victim_index" log_has " event=front_lost front=$victim_index "
lost="$(coordinator_log | grep " event=front_lost front=$victim_index " | tail -n 1)"
[[ "$(field users "$lost")" == "$victim_users" ]] ||
  fail "front_lost with users=$(field users "$lost"), the front held $victim_users: $lost"
(($(field dropped_in_round "$lost") > 0)) ||
  fail "no device of the lost front was in the round in progress: $lost"

# Its devices come back through the other fronts (the fronts report every second).
opens_before="$(stream_opens "${FRONT_CONTAINERS[@]:1}")"
reconnected() {
  AFTER="$(admin status 2>/dev/null)" || return 1
  [[ "$(front_users "$AFTER" | wc -l)" == $((FRONTS - 1)) ]] &&
    ! grep -q "^$VICTIM_HOST:" <<<"$(front_users "$AFTER")" && (($(users_sum "$AFTER") == DEVICES))
}
wait_progress 120 "the lost front's $victim_users devices back on the other fronts" devices_bound \
  reconnected
reconnect_s=$((SECONDS - kill_at))
opens_after="$(stream_opens "${FRONT_CONTAINERS[@]:1}")"
((opens_after - opens_before >= victim_users)) ||
  fail "the other fronts opened $((opens_after - opens_before)) streams, fewer than the $victim_users devices lost"
say "all $DEVICES devices on the other fronts $reconnect_s s after the kill: $(describe_fronts "$AFTER")"

# The run completes, each round applied once; the ledger has one entry per applied round.
wait_progress 180 "training to end" combiner_logged log_has " event=training_end rounds=$ROUNDS "
run_s=$((SECONDS - run_start))
training_s="$(seconds "$(log_epoch ' event=run_start ')" "$(log_epoch ' event=training_end ')")"
rounds_log="$(coordinator_log | grep -E ' event=round round=[0-9]+ ')"
applied_lines="$(grep -c ' applied=yes' <<<"$rounds_log" || true)"
applied_rounds="$(sed -n 's/.* event=round round=\([0-9]*\) .*applied=yes.*/\1/p' <<<"$rounds_log" | sort -un | wc -l)"
((applied_lines == ROUNDS && applied_rounds == ROUNDS)) ||
  fail "$applied_lines rounds applied ($applied_rounds distinct), expected $ROUNDS once each"
for ((r = kill_round; r < ROUNDS; r++)); do
  (($(grep -c " event=round round=$r .*applied=yes" <<<"$rounds_log" || true) == 1)) ||
    fail "round $r (at or after the kill) not applied exactly once"
done
ledger="$(field ledger_entries "$(coordinator_log | grep ' event=checkpoint ' | tail -n 1)")"
[[ "$ledger" == "$ROUNDS" ]] || fail "the ledger has ${ledger:-no} entries, $ROUNDS rounds applied"
run_done() { admin runs | grep ' run_id=compose-1 ' | grep -q ' state=done '; }
wait_until 60 "run compose-1 recorded done" run_done
for c in "${CLIENTS[@]}"; do
  [[ "$(docker inspect -f '{{.State.Running}} {{.RestartCount}}' "$c")" == "true 0" ]] ||
    fail "client container $(container_name "$c") exited or restarted: $(docker logs "$c" 2>&1 | tail -n 3)"
done

echo "== round attempts (combiner):"
while read -r line; do
  echo "round $(field round "$line") applied=$(field applied "$line")" \
    "participants=$(field participants "$line") dropouts=$(field dropouts "$line")" \
    "round_s=$(field round_s "$line")$([[ "$(field applied "$line")" == no ]] && echo " reason: ${line##*reason=}")"
done <<<"$rounds_log"
echo "== ${lost#ts=* }"
echo "== memory and CPU of the containers at the end (docker stats):"
docker stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.CPUPerc}}' \
  "$COORD" "${FRONT_CONTAINERS[@]:1}" "${CLIENTS[@]}" | sed 's/^/  /'
echo "PASS docker-scaleout: $DEVICES devices in $REPLICAS client containers" \
  "($((CONNECTIONS * REPLICAS)) connections) over $FRONTS fronts" \
  "(before: $(describe_fronts "$BEFORE"); killed $VICTIM_NAME with $victim_users in $killed_stage of" \
  "round $kill_round, $(field dropped_in_round "$lost") of them in the round; after:" \
  "$(describe_fronts "$AFTER")); $ROUNDS rounds applied in $(wc -l <<<"$rounds_log") attempts," \
  "ledger $ledger; compose up $up_s s, devices bound $bind_s s after their first container" \
  "started, back on other fronts $reconnect_s s after the kill," \
  "training $training_s s (run_start to training_end), test $run_s s after the image build" \
  "($BUILD_S s)"
