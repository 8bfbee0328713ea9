#!/usr/bin/env bash
# The deployment topology (one fedmf-coordinator, N fedmf-client processes each hosting its shard
# of the users; or, with --fronts, a combiner and F front replicas: docs/scale-out.md) as real
# processes on this machine, until training ends.
#   default   everything on loopback (127.0.0.1)
#   --netns   "multi-host": the coordinator and every client in its own network namespace, each
#             with a veth pair to a bridge (in a namespace of its own), real addresses
#             10.77.0.1 (coordinator) and 10.77.0.10+i (client i): traffic crosses interfaces.
#             Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN); the namespaces are removed on exit.
#
# Usage: deploy/run-local-cluster.sh [--build DIR] [--clients N] [--rounds R] [--data SPEC]
#          [--security plaintext|tls|mtls] [--netns] [--fronts F] [--kill-front]
#          [--one-stream-per-user] [--measure] [--workdir DIR] [--check-netns]
#          [-- extra coordinator flags]
#   --security  tls (default): server certificate (SAN: the coordinator's address) from
#               deploy/gen-certs.sh; mtls: also one client certificate per client (identity
#               client-i); plaintext: no TLS (the processes warn loudly off loopback)
#   --fronts F  a combiner (--role=combiner) and F fronts (--role=front, F <= 8; with --netns each in
#               its namespace, 10.77.0.2+f); client i is given every front, rotated, as one target
#               (ipv4:A,B,...), so it uses front i mod F and moves to the next when that one is
#               gone. The replica link is mutual TLS (identities front-f) unless plaintext
#   --kill-front  with --fronts: kill -9 front 0 once round 0 is done and the next is under way;
#               its clients move to other fronts and the run must still complete
#   --one-stream-per-user  each client process simulates its users as devices: each its own
#               registration, Participate stream and TCP connection (fedmf-client
#               --one_stream_per_user), as tools/load-test.sh does
#   --measure   the coordinator's (or combiner's) and each front's CPU seconds (over the run, and
#               per round after round 0) and peak RSS, and the combiner's bytes per user and stage
#               in each round, printed at the end (docs/results/scale-out.md)
#   --workdir   logs and certificates stay there (default: a temporary directory, removed)
#   --check-netns  exit 0 if network namespaces can be made here, 77 (with the reason) if not
# Exit status: 0 when the coordinator finished every round and every client exited cleanly.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/tools/lib/processes.sh"  # cpu_s, peak_rss (this script keeps its own cleanup)
BUILD="$ROOT/build"
CLIENTS=3
ROUNDS=3
DATA="synthetic:users=300,items=200,per_user=30,min_per_user=10"
SECURITY=tls
NETNS=false
WORKDIR=""
CHECK_ONLY=false
FRONTS=0
KILL_FRONT=false
ONE_STREAM=false
MEASURE=false
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --clients) CLIENTS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --data) DATA="$2"; shift 2 ;;
    --security) SECURITY="$2"; shift 2 ;;
    --netns) NETNS=true; shift ;;
    --fronts) FRONTS="$2"; shift 2 ;;
    --kill-front) KILL_FRONT=true; shift ;;
    --one-stream-per-user) ONE_STREAM=true; shift ;;
    --measure) MEASURE=true; shift ;;
    --workdir) WORKDIR="$2"; shift 2 ;;
    --check-netns) CHECK_ONLY=true; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "run-local-cluster: unknown argument '$1'" >&2; sed -n '2,36p' "$0" >&2; exit 2 ;;
  esac
done
case "$SECURITY" in plaintext | tls | mtls) ;; *) echo "--security: plaintext, tls or mtls" >&2; exit 2 ;; esac
[[ "$CLIENTS" =~ ^[1-9][0-9]*$ && "$CLIENTS" -le 200 ]] || { echo "--clients: 1..200" >&2; exit 2; }
[[ "$FRONTS" =~ ^[0-8]$ ]] || { echo "--fronts: 0..8, got '$FRONTS'" >&2; exit 2; }
if $KILL_FRONT && ((FRONTS < 2)); then echo "--kill-front needs --fronts 2 or more" >&2; exit 2; fi
if $NETNS && ((FRONTS > 0)) && [[ "$SECURITY" == plaintext ]]; then
  echo "--fronts with --netns needs --security tls or mtls (the combiner admits fronts by their" \
    "certificates off loopback)" >&2
  exit 2
fi

TAG="fmf$$"  # namespace prefix: runs in parallel do not collide
NAMESPACES=()
PIDS=()
OWN_WORKDIR=false
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  if $OWN_WORKDIR; then rm -rf "$WORKDIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

netns_usable() {
  command -v ip >/dev/null || { echo "the ip command (iproute2) is missing"; return 1; }
  local probe="${TAG}-probe" err
  if ! err="$(ip netns add "$probe" 2>&1)"; then
    echo "cannot create a network namespace (${err:-no reason given}; needs root)"
    return 1
  fi
  if ! err="$(ip -n "$probe" link add vprobe type veth peer name vprobe1 2>&1)"; then
    ip netns del "$probe" 2>/dev/null || true  # (this runs in a subshell: no trap cleans it up)
    echo "cannot create a veth pair (${err:-no reason given})"
    return 1
  fi
  ip netns del "$probe"
  return 0
}
if $CHECK_ONLY; then
  if why="$(netns_usable)"; then echo "network namespaces: usable"; exit 0; fi
  echo "SKIP: $why"
  exit 77
fi

COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
[[ -x "$COORD" && -x "$CLIENT" ]] || {
  echo "run-local-cluster: build fedmf-coordinator and fedmf-client first (looked in $BUILD)" >&2
  exit 1
}
if [[ -z "$WORKDIR" ]]; then
  WORKDIR="$(mktemp -d /tmp/fedmf-cluster.XXXXXX)"
  OWN_WORKDIR=true
fi
mkdir -p "$WORKDIR"

# Addresses, and how a process is run on its host.
if $NETNS; then
  if ! why="$(netns_usable)"; then echo "SKIP: --netns: $why"; exit 77; fi
  COORD_IP=10.77.0.1
  client_ip() { echo "10.77.0.$((10 + $1))"; }
  BR="${TAG}-br"
  ip netns add "$BR"
  NAMESPACES+=("$BR")
  ip -n "$BR" link add br0 type bridge
  ip -n "$BR" link set br0 up
  # add_host NS IP: namespace NS with eth0 = IP/24, its veth peer on the bridge.
  add_host() {
    local ns="$1" ip="$2" port="p${#NAMESPACES[@]}"
    ip netns add "$ns"
    NAMESPACES+=("$ns")
    ip -n "$ns" link set lo up
    ip -n "$ns" link add eth0 type veth peer name "$port" netns "$BR"
    ip -n "$ns" addr add "$ip/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$BR" link set "$port" master br0
    ip -n "$BR" link set "$port" up
  }
  add_host "${TAG}-coord" "$COORD_IP"
  front_ip() { echo "10.77.0.$((2 + $1))"; }
  for ((f = 0; f < FRONTS; f++)); do add_host "${TAG}-f$f" "$(front_ip "$f")"; done
  for ((i = 0; i < CLIENTS; i++)); do add_host "${TAG}-c$i" "$(client_ip "$i")"; done
  on_coordinator() { ip netns exec "${TAG}-coord" "$@"; }
  on_front() {
    local f="$1"
    shift
    ip netns exec "${TAG}-f$f" "$@"
  }
  FRONT_LISTEN_PORT=50051
  on_client() {
    local i="$1"
    shift
    ip netns exec "${TAG}-c$i" "$@"
  }
  PORT=50051
  LISTEN="$COORD_IP:$PORT"
else
  COORD_IP=127.0.0.1
  front_ip() { echo 127.0.0.1; }
  on_front() { shift; "$@"; }
  FRONT_LISTEN_PORT=0
  on_coordinator() { "$@"; }
  on_client() { shift; "$@"; }
  PORT=0  # any free port, read from the log
  LISTEN="$COORD_IP:0"
fi

SERVER_FLAGS=()
CLIENT_TLS=()
DEVICE_TLS=()
if [[ "$SECURITY" != plaintext ]]; then
  certs=("$ROOT/deploy/gen-certs.sh" "$WORKDIR/certs" --ip "$COORD_IP" --host localhost)
  # Fronts: one name for the pool (clients verify it, since their target is a list of addresses).
  ((FRONTS > 0)) && certs+=(--host fedmf-front)
  for ((f = 0; f < FRONTS; f++)); do $NETNS && certs+=(--ip "$(front_ip "$f")"); done
  [[ "$SECURITY" == mtls ]] && certs+=(--clients "client-:$CLIENTS")
  [[ "$SECURITY" == mtls ]] || ((FRONTS > 0)) && certs+=(--client admin)
  ((FRONTS > 0)) && certs+=(--clients "front-:$FRONTS")
  "${certs[@]}" >"$WORKDIR/gen-certs.log"
  SERVER_FLAGS=(--tls_cert="$WORKDIR/certs/server.pem" --tls_key="$WORKDIR/certs/server.key")
  CLIENT_TLS=(--tls_ca="$WORKDIR/certs/ca.pem")
  DEVICE_TLS=("${CLIENT_TLS[@]}")
  ((FRONTS > 0)) && DEVICE_TLS+=(--tls_server_name=fedmf-front)
  [[ "$SECURITY" == mtls ]] && SERVER_FLAGS+=(--tls_client_ca="$WORKDIR/certs/ca.pem")
fi
client_identity() {
  [[ "$SECURITY" == mtls ]] || return 0
  echo "--tls_cert=$WORKDIR/certs/clients/$1.pem --tls_key=$WORKDIR/certs/clients/$1.key"
}
# The combiner's port: under TLS it admits fronts (and the admin's probes) by certificate.
COMBINER_FLAGS=()
ADMIN_IDENTITY="$(client_identity admin)"
if ((FRONTS > 0)); then
  front_ids="$(seq -s, -f 'front-%g' 0 $((FRONTS - 1)))"
  COMBINER_FLAGS=(--role=combiner)
  if [[ "$SECURITY" != plaintext ]]; then
    COMBINER_FLAGS+=(--tls_client_ca="$WORKDIR/certs/ca.pem" --front_identities="$front_ids")
    ADMIN_IDENTITY="--tls_cert=$WORKDIR/certs/clients/admin.pem --tls_key=$WORKDIR/certs/clients/admin.key"
  fi
fi

users="$(sed -n 's/.*users=\([0-9]*\).*/\1/p' <<<"$DATA")"
on_coordinator "$COORD" --listen="$LISTEN" --eval_data="$DATA" --rounds="$ROUNDS" \
  --participation=0.1 --wait_for_users="${users:-0}" --state_dir="$WORKDIR/state" \
  "${SERVER_FLAGS[@]}" "${COMBINER_FLAGS[@]}" "${EXTRA[@]}" >"$WORKDIR/coordinator.log" 2>&1 &
COORD_PID=$!
PIDS+=("$COORD_PID")
for _ in $(seq 1 200); do
  grep -q 'event=listening ' "$WORKDIR/coordinator.log" && break
  kill -0 "$COORD_PID" 2>/dev/null || { cat "$WORKDIR/coordinator.log"; exit 1; }
  sleep 0.05
done
PORT="$(sed -n 's/.*event=listening .*port=\([0-9]*\).*/\1/p' "$WORKDIR/coordinator.log")"
[[ -n "$PORT" ]] || { echo "coordinator did not listen"; cat "$WORKDIR/coordinator.log"; exit 1; }
echo "$( ((FRONTS > 0)) && echo combiner || echo coordinator) on $COORD_IP:$PORT" \
  "($SECURITY$($NETNS && echo ", network namespace ${TAG}-coord"))"
# wait_healthy NAME PID TARGET ON...: until the gRPC health check of TARGET (run by ON, e.g.
# on_coordinator or on_front 2) answers SERVING, as under docker-compose (the same probe, with
# the admin identity under mutual TLS); fails when PID exits.
wait_healthy() {
  local name="$1" pid="$2" target="$3" i
  shift 3
  for ((i = 0; ; i++)); do
    # shellcheck disable=SC2086
    "$@" "$COORD" health --target="$target" "${CLIENT_TLS[@]}" $ADMIN_IDENTITY \
      >"$WORKDIR/health.out" 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$WORKDIR/$name.log"; exit 1; }
    ((i < 50)) || { echo "$name: health check failed: $(cat "$WORKDIR/health.out")"; exit 1; }
    sleep 0.2
  done
  echo "$name healthy: $(cat "$WORKDIR/health.out")"
}
wait_healthy coordinator "$COORD_PID" "$COORD_IP:$PORT" on_coordinator

# The fronts, each attached to the combiner (healthy = attached), and the clients' target.
TARGET="$COORD_IP:$PORT"
FRONT_ADDRS=()
FRONT_PIDS=()
for ((f = 0; f < FRONTS; f++)); do
  front_flags=(--role=front --listen="$(front_ip "$f"):$FRONT_LISTEN_PORT" --combiner="$COORD_IP:$PORT"
    --front_name="front-$f" "${SERVER_FLAGS[@]}")
  if [[ "$SECURITY" != plaintext ]]; then
    front_flags+=(--replica_tls_ca="$WORKDIR/certs/ca.pem"
      --replica_tls_cert="$WORKDIR/certs/clients/front-$f.pem"
      --replica_tls_key="$WORKDIR/certs/clients/front-$f.key")
  fi
  on_front "$f" "$COORD" "${front_flags[@]}" >"$WORKDIR/front-$f.log" 2>&1 &
  FRONT_PIDS+=($!)
  PIDS+=($!)
  for _ in $(seq 1 200); do
    grep -q 'event=listening ' "$WORKDIR/front-$f.log" && break
    kill -0 "${FRONT_PIDS[f]}" 2>/dev/null || { cat "$WORKDIR/front-$f.log"; exit 1; }
    sleep 0.05
  done
  port="$(sed -n 's/.*event=listening .*port=\([0-9]*\).*/\1/p' "$WORKDIR/front-$f.log")"
  FRONT_ADDRS+=("$(front_ip "$f"):$port")
  wait_healthy "front-$f" "${FRONT_PIDS[f]}" "$(front_ip "$f"):$port" on_front "$f"
done
# client_target I: the coordinator, or every front starting from front I mod F.
client_target() {
  ((FRONTS > 0)) || { echo "$TARGET"; return; }
  local j target="ipv4:"
  for ((j = 0; j < FRONTS; j++)); do target+="${FRONT_ADDRS[($1 + j) % FRONTS]},"; done
  echo "${target%,}"
}

# measure NAME=PID...: every 0.2 s until all are gone (or it is killed), each process's CPU seconds, its CPU when the
# coordinator's round 0 ended, and its peak RSS in MiB, as "NAME CPU CPU_AT_ROUND_0 RSS" lines in
# usage.txt. A PID that has a child (a function run in the background, e.g. on_front) stands for
# that child.
measure() {
  local -A cpu=() at0=() rss=()
  local entry name pid c r alive round0=false
  while :; do
    alive=false
    grep -q ' event=round round=0 ' "$WORKDIR/coordinator.log" && round0=true
    for entry in "$@"; do
      name="${entry%%=*}"
      pid="${entry#*=}"
      pid="$(pgrep -P "$pid" | head -n 1 || true)"
      [[ -n "$pid" ]] || pid="${entry#*=}"
      c="$(cpu_s "$pid")"
      [[ -n "$c" ]] || continue
      alive=true
      cpu[$name]="$c"
      # An exiting process (a zombie) has no VmHWM any more: keep its last.
      r="$(peak_rss "$pid" | awk '{ printf "%.0f", $1 / 1024 }')"
      [[ -z "$r" ]] || rss[$name]="$r"
      if $round0 && [[ -z "${at0[$name]:-}" ]]; then at0[$name]="$c"; fi
    done
    for entry in "$@"; do
      name="${entry%%=*}"
      echo "$name ${cpu[$name]:-?} ${at0[$name]:-?} ${rss[$name]:-?}"
    done >"$WORKDIR/usage.tmp"
    mv "$WORKDIR/usage.tmp" "$WORKDIR/usage.txt"
    $alive || break
    sleep 0.2
  done
}
if $MEASURE; then
  measured=("$( ((FRONTS > 0)) && echo combiner || echo coordinator)=$COORD_PID")
  for ((f = 0; f < FRONTS; f++)); do measured+=("front-$f=${FRONT_PIDS[f]}"); done
  measure "${measured[@]}" &
  MEASURE_PID=$!
  PIDS+=("$MEASURE_PID")
fi

DEVICE_FLAGS=()
if $ONE_STREAM; then
  [[ -n "$users" ]] || { echo "--one-stream-per-user needs --data with users=N" >&2; exit 2; }
  DEVICE_FLAGS=(--one_stream_per_user --channels=$(((users + CLIENTS - 1) / CLIENTS)) --top_n=0)
fi
CLIENT_PIDS=()
for ((i = 0; i < CLIENTS; i++)); do
  # shellcheck disable=SC2046
  on_client "$i" "$CLIENT" --coordinator="$(client_target "$i")" --data="$DATA" --shard="$i/$CLIENTS" \
    --name="client-$i" --give_up_after_s=60 "${DEVICE_TLS[@]}" $(client_identity "client-$i") \
    ${DEVICE_FLAGS[@]+"${DEVICE_FLAGS[@]}"} >"$WORKDIR/client-$i.log" 2>&1 &
  CLIENT_PIDS+=($!)
  PIDS+=($!)
done
$NETNS && echo "clients on $(client_ip 0) .. $(client_ip $((CLIENTS - 1))), one namespace each"
if $KILL_FRONT; then
  # Mid-round: once round 0 is done and the next one's aggregation is under way.
  stage=""
  while kill -0 "$COORD_PID" 2>/dev/null; do
    if grep -q ' event=round round=0 ' "$WORKDIR/coordinator.log"; then
      # shellcheck disable=SC2086
      stage="$(on_coordinator "$COORD" status --target="$COORD_IP:$PORT" "${CLIENT_TLS[@]}" \
        $ADMIN_IDENTITY 2>/dev/null | sed -n 's/.* stage=\([A-Za-z]*\) .*/\1/p')" || true
      [[ "$stage" =~ ^(AdvertiseKeys|ShareKeys|MaskedInput|ConsistencyCheck|Unmasking)$ ]] && break
    fi
    sleep 0.01
  done
  # The pid is the subshell that runs on_front; the front is its child.
  pkill -9 -P "${FRONT_PIDS[0]}" || true
  echo "killed front-0 (pid ${FRONT_PIDS[0]}) in stage ${stage:-none: the run was over}"
fi

status=0
for i in "${!CLIENT_PIDS[@]}"; do
  wait "${CLIENT_PIDS[$i]}" || { echo "client $i failed"; status=1; }
done
# The clients are gone: a coordinator that is still training 30 s later never will.
for _ in $(seq 1 300); do kill -0 "$COORD_PID" 2>/dev/null || break; sleep 0.1; done
kill "$COORD_PID" 2>/dev/null && { echo "the coordinator outlived its clients"; status=1; }
wait "$COORD_PID" || status=$?
grep ' event=round ' "$WORKDIR/coordinator.log" | sed 's/^ts=[^ ]* //' | cut -c1-160 || true
# --kill-front: front 0 went mid-round with users on it, and they came back through other fronts.
if $KILL_FRONT; then
  [[ -n "$stage" ]] || { echo "front-0 was killed after the run"; status=1; }
  grep -q ' event=front_lost .* users=[1-9]' "$WORKDIR/coordinator.log" ||
    { echo "the combiner lost no users with front-0"; status=1; }
  opened="$(cat "$WORKDIR"/front-*.log | grep -c ' event=stream_open .*status=OK')" || true
  ((opened > CLIENTS)) || { echo "front-0's clients did not reconnect elsewhere"; status=1; }
fi
if [[ $status -ne 0 ]] || ! grep -q "event=training_end rounds=$ROUNDS " "$WORKDIR/coordinator.log"; then
  echo "run-local-cluster: FAILED (logs in $WORKDIR)"
  for f in "$WORKDIR"/*.log; do echo "--- $f"; tail -n 15 "$f"; done
  exit 1
fi
streams_log=("$WORKDIR/coordinator.log")
((FRONTS > 0)) && streams_log=("$WORKDIR"/front-*.log)
peers="$(cat "${streams_log[@]}" | grep -o 'event=stream_open .*peer=[^ ]*' | sed 's/.*peer=//' |
  sed 's/:[0-9]*$//' | sort -u | tr '\n' ' ')"
if ((FRONTS > 0)); then
  for ((f = 0; f < FRONTS; f++)); do
    echo "front-$f: $(grep -c ' event=stream_open .*status=OK' "$WORKDIR/front-$f.log") streams opened"
  done
  grep ' event=front_lost ' "$WORKDIR/coordinator.log" | sed 's/^ts=[^ ]* //' || true
fi
if $MEASURE; then
  # The coordinator is gone; fronts would try to reattach for ever: the last sample is the run's.
  kill "$MEASURE_PID" 2>/dev/null || true
  wait "$MEASURE_PID" 2>/dev/null || true
  echo "process: CPU s over the run, CPU s a round after round 0, peak RSS MiB"
  while read -r name total at0 rss; do
    awk -v n="$name" -v t="$total" -v a="$at0" -v r="$ROUNDS" -v m="$rss" 'BEGIN {
      per = (a == "?" || r < 2) ? "?" : sprintf("%.2f", (t - a) / (r - 1))
      printf "  %s: %s s, %s s/round, %s MiB\n", n, t, per, m }'
  done <"$WORKDIR/usage.txt"
  bytes() { local v; v="$(field "$1" "$2")"; echo "${v:-0}"; }  # a stage without bytes logs none
  echo "bytes per cohort member and stage, up/down, on the $( ((FRONTS > 0)) && echo "combiner's replica links" ||
    echo "coordinator's device streams"):"
  grep ' event=round ' "$WORKDIR/coordinator.log" | while read -r line; do
    out="  round $(field round "$line") phase $(field phase "$line"):"
    out+=" participants $(field participants "$line"), task down $(bytes down_bytes_per_user_task "$line")"
    for stage in advertise_keys share_keys masked_input consistency_check unmasking; do
      out+=", $stage $(bytes "up_bytes_per_user_$stage" "$line")/$(bytes "down_bytes_per_user_$stage" "$line")"
    done
    echo "$out, result down $(bytes down_bytes_per_user_result "$line")"
  done
fi
echo "run-local-cluster: OK: $ROUNDS rounds, $CLIENTS clients$( ((FRONTS > 0)) && echo ", $FRONTS fronts"), streams from $peers"
