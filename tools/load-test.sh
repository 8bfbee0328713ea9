#!/usr/bin/env bash
# Load test of the coordinator: N single-user clients, each registered with its own signing key
# and holding its own Participate stream, opened by one fedmf-client process
# (--one_stream_per_user, gRPC callback API, no thread per stream) over C channels (one TCP
# connection each). The coordinator runs R rounds with a cohort of N * P sampled among them, on
# SecAgg+ (Harary graph from the parameter finder, semi-honest model: no consistency check) with
# signed advertisements. Reports the coordinator's peak RSS (VmHWM), its peak thread count, its
# open descriptors and the per-round times.
#
#   tools/load-test.sh [BUILD_DIR] [N=5000] [CHANNELS=N] [ROUNDS=3] [PARTICIPATION=0.05]
#
# COORD_FLAGS (environment) replaces the SecAgg flags, e.g. COORD_FLAGS=--secagg_graph=auto.
# FRONTS=F (environment): the scale-out roles (docs/scale-out.md): the coordinator is a combiner
# and F fronts hold the streams, the client's channels spread over them (one ipv4: target); each
# front's peak RSS and Admin.Status entry (streams, users, bytes) are reported too.
#
# Needs the release build of fedmf-coordinator and fedmf-client and an open-file hard limit
# above CHANNELS + 100 (both binaries raise their soft limit themselves); exits 77 (CTest: skipped)
# when it is lower. About a minute for the defaults on 2 cores. Every process started here is
# killed on exit. CTest runs it as runtime_load_5000 (labels integration, slow).
set -euo pipefail
BUILD="${1:-build}"
N="${2:-5000}"
CHANNELS="${3:-$N}"
ROUNDS="${4:-3}"
PARTICIPATION="${5:-0.05}"
read -r -a SECAGG_FLAGS <<<"${COORD_FLAGS:---secagg_graph=harary --secagg_consistency_check=false}"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
source "$(dirname "$0")/lib/processes.sh"
processes_init load
require_open_files $((CHANNELS + 100))

FRONTS="${FRONTS:-0}"
ROLE=()
((FRONTS > 0)) && ROLE=(--role=combiner)
start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --num_users="$N" --num_items=100 \
  --set=rank=4 --rounds="$ROUNDS" --participation="$PARTICIPATION" --min_clients=10 --set=mechanism=none \
  --set=item_model=full --set=compression=2 --wait_for_users="$N" --stage_timeout_s=60 "${SECAGG_FLAGS[@]}" \
  ${ROLE[@]+"${ROLE[@]}"}
TARGET="127.0.0.1:$PORT"
COMBINER_PORT="$PORT"
FRONT_PIDS=()
if ((FRONTS > 0)); then
  TARGET="ipv4:"
  for ((f = 0; f < FRONTS; f++)); do
    "$COORD" --role=front --listen=127.0.0.1:0 --combiner="127.0.0.1:$COMBINER_PORT" \
      --front_name="front-$f" >"$WORK/front-$f.log" 2>&1 &
    FRONT_PIDS+=($!)
    PIDS+=($!)
    wait_listening "$WORK/front-$f.log" "$!"
    TARGET+="127.0.0.1:$PORT,"
  done
  TARGET="${TARGET%,}"
  PORT="$COMBINER_PORT"
  wait_for "$WORK/coordinator.log" ' event=front_attached ' 30 "$FRONTS"
fi
start=$(date +%s.%N)
"$CLIENT" --coordinator="$TARGET" --one_stream_per_user --channels="$CHANNELS" \
  --data="synthetic:users=$N,items=100,per_user=20,min_per_user=5" --give_up_after_s=120 \
  --top_n=0 >"$WORK/client.log" 2>&1 &
PIDS+=($!)
CLIENT_PID=$!

peak_threads=0
peak_client_threads=0
peak_fds=0
front_hwm=()
front_cpu=()
connected_at=""
while kill -0 "$COORD_PID" 2>/dev/null; do
  threads="$(sed -n 's/^Threads:\s*//p' "/proc/$COORD_PID/status" 2>/dev/null || echo 0)"
  # The coordinator may exit between kill -0 and these reads: a failed read counts 0, it does not
  # end the script (set -e with pipefail).
  fds="$(ls "/proc/$COORD_PID/fd" 2>/dev/null | wc -l || true)"
  ((threads > peak_threads)) && peak_threads=$threads
  ((fds > peak_fds)) && peak_fds=$fds
  hwm="$(peak_rss "$COORD_PID")"
  [[ -n "$hwm" ]] && last_hwm="$hwm"
  cthreads="$(sed -n 's/^Threads:\s*//p' "/proc/$CLIENT_PID/status" 2>/dev/null || echo 0)"
  ((cthreads > peak_client_threads)) && peak_client_threads=$cthreads
  chwm="$(peak_rss "$CLIENT_PID")"
  [[ -n "$chwm" ]] && client_hwm="$chwm"
  for f in "${!FRONT_PIDS[@]}"; do
    fhwm="$(peak_rss "${FRONT_PIDS[f]}")"
    [[ -n "$fhwm" ]] && front_hwm[f]="$fhwm"
    front_cpu[f]="$(cpu_s "${FRONT_PIDS[f]}")"
  done
  cpu="$(cpu_s "$COORD_PID")"
  [[ -n "$cpu" ]] && coord_cpu="$cpu"
  if [[ -z "$connected_at" ]] && grep -q ' event=round round=0 ' "$WORK/coordinator.log"; then
    connected_at=$(date +%s.%N)
    "$COORD" status --target="127.0.0.1:$PORT" >"$WORK/status.out" 2>&1 || true
  fi
  sleep 0.2
done
wait "$COORD_PID" || fail "coordinator failed"
wait "$CLIENT_PID" || fail "client failed"
grep -q "event=training_end rounds=$ROUNDS " "$WORK/coordinator.log" || fail "not $ROUNDS rounds"

echo "== $N clients over $CHANNELS channels, $ROUNDS rounds, participation $PARTICIPATION," \
  "coordinator flags: ${SECAGG_FLAGS[*]}"
echo "status right after round 0: $(cat "$WORK/status.out" 2>/dev/null)"
grep ' event=secagg_session ' "$WORK/coordinator.log" | head -n 1
grep ' event=round ' "$WORK/coordinator.log" | while read -r line; do
  echo "round $(field round "$line"): applied=$(field applied "$line")" \
    "participants=$(field participants "$line") dropouts=$(field dropouts "$line")" \
    "round_s=$(field round_s "$line") bytes_in=$(field bytes_in "$line")" \
    "bytes_out=$(field bytes_out "$line") stages: advertise $(field advertise_s "$line")" \
    "share_keys $(field share_keys_s "$line") masked_input $(field masked_input_s "$line")" \
    "unmasking $(field unmasking_s "$line")"
done
echo "coordinator peak RSS (VmHWM): ${last_hwm:-?}, CPU: ${coord_cpu:-?} s"
echo "coordinator peak threads: $peak_threads"
echo "coordinator peak open descriptors: $peak_fds"
echo "client process (all $N streams) peak RSS: ${client_hwm:-?}, peak threads: $peak_client_threads"
for f in "${!FRONT_PIDS[@]}"; do
  echo "front-$f peak RSS (VmHWM): ${front_hwm[f]:-?}, CPU: ${front_cpu[f]:-?} s; $(grep "^front .*name=\"front-$f\"" \
    "$WORK/status.out" 2>/dev/null || echo "no status entry")"
done
awk -v a="$start" -v b="${connected_at:-$start}" \
  'BEGIN { printf "from client start to round 0 done: %.1f s\n", b - a }'
