#!/usr/bin/env bash
# VFL-SGDMF (common/algorithms/vfl_sgdmf/) through real processes on 127.0.0.1: a
# fedmf-coordinator and S fedmf-client --party=vfl:I/S processes, each holding every user and a
# block of the items, their item embeddings kept in their own --state_dir. Usage:
# vfl_sgdmf_test.sh BUILD_DIR CASE, CASE one of
#   parties      3 parties, SecAgg, noisy steps: every round sums all 3, once each; the run
#                reports the parties' test MSE over their held-out ratings
#   kill_resume  2 parties; party 1 is killed -9 once round 2 is applied and restarted on its
#                state: it takes part in later rounds and the run completes, every round applied
#                once (a round the kill broke is retried), which a party without its item
#                embeddings could not do
#   state_lost   the same kill, restarted WITHOUT its state: the party refuses to contribute
# Waits are bounded by progress lines (the coordinator's rounds), each with a generous cap.
# Every process started here is killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init vfl

DATA="synthetic:users=80,items=60,per_user=20,min_per_user=10,seed=5"
SPLIT=(--split=holdout:0.1 --split_seed=2)
# --rounds is T + 1 (T syncs, then the final stage); the parties' item embeddings never reach the
# coordinator, so its federated evaluation stays off (the final round measures the test error).
RUN=(--algorithm=vfl-sgdmf --eval_data="$DATA" "${SPLIT[@]}" --eval_every=0 --epsilon=0
  --vfl_noise_multiplier=0.3 --vfl_sampling_rate=0.5 --vfl_local_steps=10 --vfl_rank=4
  --vfl_item_only_steps=5 --vfl_learning_rate=0.05 --stage_timeout_s=20)

# start_party I S LOG [flags]: party I of S; pid in PARTY_PID.
start_party() {
  local i="$1" s="$2" log="$3"
  shift 3
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" "${SPLIT[@]}" --party="vfl:$i/$s" \
    --top_n=0 --give_up_after_s=60 "$@" >"$log" 2>&1 &
  PARTY_PID=$!
  PIDS+=($!)
}

# applied ROUND: the coordinator's event=round lines of ROUND that were applied.
applied() { grep -cE " event=round round=$1 phase=0 .*applied=yes" "$WORK/coordinator.log" || true; }

# finished ROUNDS: waits for the coordinator's exit and checks its training_end line.
finished() {
  wait "$COORD_PID" || fail "coordinator failed"
  grep -q "event=training_end rounds=$1 .*test_mse=" "$WORK/coordinator.log" ||
    fail "no training_end after $1 rounds with a test_mse"
  for ((r = 0; r < $1; r++)); do
    [[ "$(applied $r)" == 1 ]] || fail "round $r applied $(applied $r) times"
  done
}

# kill_party_1 STATE_DIR: 2 parties, 300 rounds (a few seconds: the kill, once round 2 is
# applied, lands long before the end); party 1 is killed -9 and restarted on STATE_DIR.
kill_party_1() {
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${RUN[@]}" --rounds=300 \
    --vfl_parties=2 --wait_for_users=2
  start_party 0 2 "$WORK/party-0.log" --state_dir="$WORK/party-0"
  start_party 1 2 "$WORK/party-1.log" --state_dir="$WORK/party-1"
  wait_for "$WORK/coordinator.log" " event=round round=2 phase=0 .*applied=yes" 120
  kill -9 "$PARTY_PID"
  wait "$PARTY_PID" 2>/dev/null || true
  start_party 1 2 "$WORK/party-1-restarted.log" --state_dir="$1"
}

case "$CASE" in
  parties)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${RUN[@]}" --rounds=6 \
      --vfl_parties=3 --wait_for_users=3
    for i in 0 1 2; do start_party "$i" 3 "$WORK/party-$i.log" --state_dir="$WORK/party-$i"; done
    finished 6
    for r in 0 5; do
      line="$(grep -E " event=round round=$r phase=0 .*applied=yes" "$WORK/coordinator.log")"
      [[ "$(field contributors "$line")" == 3 ]] || fail "round $r: not 3 parties"
    done
    end="$(grep ' event=training_end ' "$WORK/coordinator.log")"
    mse="$(field test_mse "$end")"
    tested="$(field test_ratings "$end")"
    echo "test_mse=$mse over $tested test ratings"
    awk -v m="$mse" -v n="$tested" 'BEGIN { exit !(m > 0 && m < 25 && n > 0) }' ||
      fail "test_mse $mse (of $tested ratings) outside (0, R^2)"
    ;;

  kill_resume)
    kill_party_1 "$WORK/party-1"
    finished 300
    # Every round needs both parties: the rounds after the restart are the restarted party's.
    joined="$(field coordinator_round "$(grep ' event=registered ' "$WORK/party-1-restarted.log")")"
    ((joined < 299)) || fail "the restarted party joined at round $joined, after the training"
    ! grep -qE "lost rounds|has no state" "$WORK"/party-*.log || fail "a party lost its state"
    echo "resumed at round $joined;" \
      "$(grep -c ' event=round .*applied=no' "$WORK/coordinator.log" || true) retried"
    ;;

  state_lost)
    kill_party_1 "$WORK/party-1-fresh"
    wait_for "$WORK/party-1-restarted.log" "has no state for round" 120
    echo "refused: $(grep -o 'has no state for round [0-9]*' "$WORK/party-1-restarted.log" | head -n 1)"
    ;;

  *)
    echo "unknown case $CASE" >&2
    exit 2
    ;;
esac
echo "PASS $CASE"
