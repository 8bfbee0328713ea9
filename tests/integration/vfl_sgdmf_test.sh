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
#   sim_equals   3 parties, SecAgg, noisy steps, the parties' noise keyed by --seed: fedmf-sim
#                --parties=vfl:3 ends with the networked run's checkpoint, byte for byte
# Waits are bounded by progress lines (the coordinator's rounds), each with a generous cap.
# Every process started here is killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
SIM="$BUILD/tools/sim/fedmf-sim"
source "$(dirname "$0")/../../tools/lib/processes.sh"
source "$(dirname "$0")/party_test_lib.sh"
processes_init vfl
KIND=vfl

DATA="synthetic:users=80,items=60,per_user=20,min_per_user=10,seed=5"
SEED=2
SPLIT=(--split=holdout:0.1 --split_seed="$SEED")
# --rounds is T + 1 (T syncs, then the final stage); the parties' item embeddings never reach the
# coordinator, so its federated evaluation stays off (the final round measures the test error).
RUN=(--algorithm=vfl-sgdmf --eval_data="$DATA" "${SPLIT[@]}" --eval_every=0 --epsilon=0
  --set=sgd.noise_multiplier=0.3 --set=sgd.sampling_rate=0.5 --set=local_steps=10 --set=sgd.rank=4
  --set=item_only_steps=5 --set=sgd.learning_rate=0.05 --stage_timeout_s=20)

case "$CASE" in
  parties)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${RUN[@]}" --rounds=6 \
      --set=parties=3 --wait_for_users=3
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

  kill_resume) kill_resume "${RUN[@]}" --set=parties=2 ;;
  state_lost) state_lost "${RUN[@]}" --set=parties=2 ;;
  sim_equals) sim_equals 3 6 "${RUN[@]}" --set=parties=3 ;;
  *)
    echo "unknown case $CASE" >&2
    exit 2
    ;;
esac
echo "PASS $CASE"
