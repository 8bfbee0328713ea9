#!/usr/bin/env bash
# Starts a fedmf-coordinator on a free loopback port and one fedmf-loadgen process simulating
# USERS users (one registered client and one Participate stream each, over CHANNELS TCP
# connections), runs ROUNDS training rounds with a cohort of PARTICIPATION * USERS, and prints the
# loadgen's summary (client-side stage/round latency percentiles, throughput, the coordinator's
# bytes, CPU time, peak RSS, dropouts and aborted rounds) ending with one key=value line.
#
#   tools/load/run-load.sh BUILD_DIR USERS PARTICIPATION ROUNDS GRAPH [fedmf-loadgen flags...]
#   e.g. tools/load/run-load.sh build 1000 0.1 3 complete --drop_advertise=0.025 --drop_share=0.025 \
#          --drop_masked=0.025 --drop_unmask=0.025
#
# The model: 2048 items, --set=item_model=compressed --set=compression=2 (p' = 1024), rank 16, so
# d = p'k = 16384 = 2^14; --set=mechanism=none (load, not privacy). GRAPH: complete, harary or auto.
# Environment: CHANNELS (default 32), WORKERS (2), STAGE_TIMEOUT (30 s), COORD_FLAGS (extra
# coordinator flags, e.g. "--secagg_signatures=false --dropout_fraction=0.4"), KEEP=DIR (keep the
# logs there), LOADGENS (1): split the users over this many fedmf-loadgen processes (one process
# cannot hold 100,000), each with CHANNELS connections and WORKERS threads and its own summary, the
# first also reporting the coordinator's CPU and peak RSS; WAIT_FOR_USERS (USERS): users the
# first round waits for (with check-in, --check_in_period_s in COORD_FLAGS, the cohort: devices
# that came back are told to leave again while a round runs, so all USERS are never live at
# once); LOADGEN_NICE (0): run the loadgens at this nice value (19 gives the coordinator the CPU
# whenever it wants it, so the Status and registration latencies measure the coordinator, not
# the machine's contention). Exits 77 when the open-file hard limit
# is below CHANNELS + 100. Every process started here is killed on exit.
set -euo pipefail
BUILD="${1:?BUILD_DIR}"
USERS="${2:?USERS}"
PARTICIPATION="${3:?PARTICIPATION}"
ROUNDS="${4:?ROUNDS}"
GRAPH="${5:?GRAPH}"
shift 5
CHANNELS="${CHANNELS:-32}"
WORKERS="${WORKERS:-2}"
STAGE_TIMEOUT="${STAGE_TIMEOUT:-30}"
read -r -a EXTRA <<<"${COORD_FLAGS:-}"
COORD="$BUILD/server/fedmf-coordinator"
LOADGEN="$BUILD/tools/loadgen/fedmf-loadgen"
source "$(dirname "$0")/../lib/processes.sh"
processes_init runload
require_open_files $((CHANNELS + 100))
COHORT="$(awk -v n="$USERS" -v p="$PARTICIPATION" 'BEGIN { printf "%d", n * p + 0.5 }')"
start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --num_users="$USERS" \
  --num_items=2048 --set=rank=16 --set=item_model=compressed --set=compression=2 --set=mechanism=none \
  --rounds="$ROUNDS" --participation="$PARTICIPATION" --min_clients=$((COHORT / 2)) \
  --wait_for_users="${WAIT_FOR_USERS:-$USERS}" --stage_timeout_s="$STAGE_TIMEOUT" --eval_every=0 \
  --secagg_graph="$GRAPH" "${EXTRA[@]}"
echo "== $USERS users, cohort $COHORT ($PARTICIPATION), $ROUNDS rounds, graph $GRAPH," \
  "channels $CHANNELS, workers $WORKERS, stage timeout ${STAGE_TIMEOUT}s," \
  "coordinator extra: ${EXTRA[*]:-none}; loadgen: $*"
LOADGENS="${LOADGENS:-1}"
PER_LOADGEN=$(((USERS + LOADGENS - 1) / LOADGENS))
LOADGEN_PIDS=()
for ((g = 0; g < LOADGENS; g++)); do
  first=$((g * PER_LOADGEN))
  count=$((USERS - first < PER_LOADGEN ? USERS - first : PER_LOADGEN))
  coordinator_pid=0
  ((g == 0)) && coordinator_pid="$COORD_PID"
  nice -n "${LOADGEN_NICE:-0}" "$LOADGEN" --coordinator="127.0.0.1:$PORT" --channels="$CHANNELS" --workers="$WORKERS" \
    --data="synthetic:users=$USERS,items=2048,per_user=20,min_per_user=5" \
    --first_user="$first" --users="$count" --coordinator_pid="$coordinator_pid" \
    --coordinator_log="$WORK/coordinator.log" "$@" >"$WORK/loadgen-$g.out" 2>"$WORK/loadgen-$g.log" &
  LOADGEN_PIDS+=($!)
  PIDS+=($!)
done
status=0
for ((g = 0; g < LOADGENS; g++)); do
  wait "${LOADGEN_PIDS[$g]}" || status=$?
  ((LOADGENS == 1)) || echo "-- loadgen $g (users $((g * PER_LOADGEN)) ..)"
  cat "$WORK/loadgen-$g.out"
done
grep -m 1 ' event=secagg_session ' "$WORK/coordinator.log" || true
grep ' event=round ' "$WORK/coordinator.log" | sed 's/ up_bytes_per_user.*//' || true
if ((status != 0)); then
  echo "FAIL: fedmf-loadgen exited with $status"
  tail -n 20 "$WORK"/loadgen-*.log "$WORK/coordinator.log"
  exit "$status"
fi
