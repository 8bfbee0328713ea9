#!/usr/bin/env bash
# Communication per user and round, measured on the real serialized messages (the paper's Figure 3:
# the payload at m/p = 2 and 3 against no projection). For each dataset (the ML-100K-shaped
# synthetic data, and MovieLens 100K when its u.data is present) and each compression m/p in
# 1 (--set=projection=none), 2, 3, 5, 10, runs fedmf-coordinator and 4 fedmf-client processes on
# loopback with PBM (epsilon 1 over the run, federated evaluation off) for a few rounds and reads
# the coordinator's last event=round line: upload per user in the masked-input stage (the
# payload) and in all stages, download per user (the task carries the model), the plan's length d
# and bit width b.
# Usage: tools/measure-communication.sh [BUILD_DIR] > table.csv
#        (environment: ROUNDS=2, ML100K=path/u.data, COORD_FLAGS="extra coordinator flags", e.g.
#        COORD_FLAGS=--set=pbm_geometry=rotated_l2)
set -euo pipefail
BUILD="${1:-build}"
ROUNDS="${ROUNDS:-2}"
ML100K="${ML100K:-$(dirname "$0")/../../shared/data/ml-100k/u.data}"
read -r -a EXTRA <<<"${COORD_FLAGS:-}"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
[[ -x "$COORD" && -x "$CLIENT" ]] || {
  echo "build fedmf-coordinator and fedmf-client in $BUILD first" >&2
  exit 1
}
source "$(dirname "$0")/lib/processes.sh"
processes_init comm
trap 'exit 130' INT TERM

datasets=("synthetic")
[[ -f "$ML100K" ]] && datasets+=("ml-100k:$ML100K")

echo "dataset,compression,projection,length,bits,cohort,up_masked_input_per_user,up_total_per_user,down_task_per_user,down_total_per_user"
for data in "${datasets[@]}"; do
  for c in 1 2 3 5 10; do
    projection=sparse
    [[ "$c" == 1 ]] && projection=none
    log="$WORK/coordinator-$c.log"
    PIDS=()
    start_coordinator "$log" --listen=127.0.0.1:0 --num_users=943 --num_items=1682 \
      --rounds="$ROUNDS" --participation=0.1 --min_clients=66 --dropout_fraction=0.3 \
      --wait_for_users=943 --set=mechanism=pbm --epsilon=1 --set=projection="$projection" \
      --set=compression="$c" --stage_timeout_s=60 --eval_every=0 "${EXTRA[@]}"
    for i in 0 1 2 3; do
      "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$data" --split= --shard="$i/4" \
        --give_up_after_s=60 --top_n=0 >"$WORK/client-$i.log" 2>&1 &
      PIDS+=($!)
    done
    status=0
    for pid in "${PIDS[@]}"; do wait "$pid" || status=$?; done
    line="$(grep ' event=round .*applied=yes' "$log" | tail -n 1 || true)"
    [[ $status -eq 0 && -n "$line" ]] || fail "run failed ($data, m/p=$c)"
    echo "${data%%:*},$c,$projection,$(field length "$line"),$(field bits "$line"),$(field participants "$line"),$(field up_bytes_per_user_masked_input "$line"),$(field up_bytes_per_user "$line"),$(field down_bytes_per_user_task "$line"),$(field down_bytes_per_user "$line")"
  done
done
