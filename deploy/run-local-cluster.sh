#!/usr/bin/env bash
# The deployment topology (one fedmf-coordinator, N fedmf-client processes each hosting its shard
# of the users) as real processes on this machine, until training ends.
#   default   everything on loopback (127.0.0.1)
#   --netns   "multi-host": the coordinator and every client in its own network namespace, each
#             with a veth pair to a bridge (in a namespace of its own), real addresses
#             10.77.0.1 (coordinator) and 10.77.0.10+i (client i): traffic crosses interfaces.
#             Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN); the namespaces are removed on exit.
#
# Usage: deploy/run-local-cluster.sh [--build DIR] [--clients N] [--rounds R] [--data SPEC]
#          [--security plaintext|tls|mtls] [--netns] [--workdir DIR] [--check-netns]
#          [-- extra coordinator flags]
#   --security  tls (default): server certificate (SAN: the coordinator's address) from
#               deploy/gen-certs.sh; mtls: also one client certificate per client (identity
#               client-i); plaintext: no TLS (the processes warn loudly off loopback)
#   --workdir   logs and certificates stay there (default: a temporary directory, removed)
#   --check-netns  exit 0 if network namespaces can be made here, 77 (with the reason) if not
# Exit status: 0 when the coordinator finished every round and every client exited cleanly.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build"
CLIENTS=3
ROUNDS=3
DATA="synthetic:users=300,items=200,per_user=30,min_per_user=10"
SECURITY=tls
NETNS=false
WORKDIR=""
CHECK_ONLY=false
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --clients) CLIENTS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --data) DATA="$2"; shift 2 ;;
    --security) SECURITY="$2"; shift 2 ;;
    --netns) NETNS=true; shift ;;
    --workdir) WORKDIR="$2"; shift 2 ;;
    --check-netns) CHECK_ONLY=true; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "run-local-cluster: unknown argument '$1'" >&2; sed -n '2,22p' "$0" >&2; exit 2 ;;
  esac
done
case "$SECURITY" in plaintext | tls | mtls) ;; *) echo "--security: plaintext, tls or mtls" >&2; exit 2 ;; esac
[[ "$CLIENTS" =~ ^[1-9][0-9]*$ && "$CLIENTS" -le 200 ]] || { echo "--clients: 1..200" >&2; exit 2; }

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
  for ((i = 0; i < CLIENTS; i++)); do add_host "${TAG}-c$i" "$(client_ip "$i")"; done
  on_coordinator() { ip netns exec "${TAG}-coord" "$@"; }
  on_client() {
    local i="$1"
    shift
    ip netns exec "${TAG}-c$i" "$@"
  }
  PORT=50051
  LISTEN="$COORD_IP:$PORT"
else
  COORD_IP=127.0.0.1
  on_coordinator() { "$@"; }
  on_client() { shift; "$@"; }
  PORT=0  # any free port, read from the log
  LISTEN="$COORD_IP:0"
fi

SERVER_FLAGS=()
CLIENT_TLS=()
if [[ "$SECURITY" != plaintext ]]; then
  certs=("$ROOT/deploy/gen-certs.sh" "$WORKDIR/certs" --ip "$COORD_IP" --host localhost)
  [[ "$SECURITY" == mtls ]] && certs+=(--clients "client-:$CLIENTS" --client admin)
  "${certs[@]}" >"$WORKDIR/gen-certs.log"
  SERVER_FLAGS=(--tls_cert="$WORKDIR/certs/server.pem" --tls_key="$WORKDIR/certs/server.key")
  CLIENT_TLS=(--tls_ca="$WORKDIR/certs/ca.pem")
  [[ "$SECURITY" == mtls ]] && SERVER_FLAGS+=(--tls_client_ca="$WORKDIR/certs/ca.pem")
fi
client_identity() {
  [[ "$SECURITY" == mtls ]] || return 0
  echo "--tls_cert=$WORKDIR/certs/clients/$1.pem --tls_key=$WORKDIR/certs/clients/$1.key"
}

users="$(sed -n 's/.*users=\([0-9]*\).*/\1/p' <<<"$DATA")"
on_coordinator "$COORD" --listen="$LISTEN" --eval_data="$DATA" --rounds="$ROUNDS" \
  --participation=0.1 --wait_for_users="${users:-0}" --state_dir="$WORKDIR/state" \
  "${SERVER_FLAGS[@]}" "${EXTRA[@]}" >"$WORKDIR/coordinator.log" 2>&1 &
COORD_PID=$!
PIDS+=("$COORD_PID")
for _ in $(seq 1 200); do
  grep -q 'event=listening ' "$WORKDIR/coordinator.log" && break
  kill -0 "$COORD_PID" 2>/dev/null || { cat "$WORKDIR/coordinator.log"; exit 1; }
  sleep 0.05
done
PORT="$(sed -n 's/.*event=listening .*port=\([0-9]*\).*/\1/p' "$WORKDIR/coordinator.log")"
[[ -n "$PORT" ]] || { echo "coordinator did not listen"; cat "$WORKDIR/coordinator.log"; exit 1; }
echo "coordinator on $COORD_IP:$PORT ($SECURITY$($NETNS && echo ", network namespace ${TAG}-coord"))"
# The clients start once the coordinator's gRPC health check answers SERVING, as under
# docker-compose (the same probe, with the admin identity under mutual TLS).
for ((i = 0; ; i++)); do
  # shellcheck disable=SC2046
  on_coordinator "$COORD" health --target="$COORD_IP:$PORT" "${CLIENT_TLS[@]}" \
    $(client_identity admin) >"$WORKDIR/health.out" 2>&1 && break
  kill -0 "$COORD_PID" 2>/dev/null || { cat "$WORKDIR/coordinator.log"; exit 1; }
  ((i < 50)) || { echo "health check failed: $(cat "$WORKDIR/health.out")"; exit 1; }
  sleep 0.2
done
echo "coordinator healthy: $(cat "$WORKDIR/health.out")"

CLIENT_PIDS=()
for ((i = 0; i < CLIENTS; i++)); do
  # shellcheck disable=SC2046
  on_client "$i" "$CLIENT" --coordinator="$COORD_IP:$PORT" --data="$DATA" --shard="$i/$CLIENTS" \
    --name="client-$i" --give_up_after_s=60 "${CLIENT_TLS[@]}" $(client_identity "client-$i") \
    >"$WORKDIR/client-$i.log" 2>&1 &
  CLIENT_PIDS+=($!)
  PIDS+=($!)
done
$NETNS && echo "clients on $(client_ip 0) .. $(client_ip $((CLIENTS - 1))), one namespace each"

status=0
wait "$COORD_PID" || status=$?
for i in "${!CLIENT_PIDS[@]}"; do
  wait "${CLIENT_PIDS[$i]}" || { echo "client $i failed"; status=1; }
done
grep ' event=round ' "$WORKDIR/coordinator.log" | sed 's/^ts=[^ ]* //' | cut -c1-160 || true
if [[ $status -ne 0 ]] || ! grep -q "event=training_end rounds=$ROUNDS " "$WORKDIR/coordinator.log"; then
  echo "run-local-cluster: FAILED (logs in $WORKDIR)"
  for f in "$WORKDIR"/*.log; do echo "--- $f"; tail -n 15 "$f"; done
  exit 1
fi
peers="$(grep -o 'event=stream_open .*peer=[^ ]*' "$WORKDIR/coordinator.log" | sed 's/.*peer=//' |
  sed 's/:[0-9]*$//' | sort -u | tr '\n' ' ')"
echo "run-local-cluster: OK: $ROUNDS rounds, $CLIENTS clients, streams from $peers"
