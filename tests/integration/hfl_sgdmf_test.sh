#!/usr/bin/env bash
# HFL-SGDMF (common/algorithms/hfl_sgdmf/) through real processes on 127.0.0.1: a
# fedmf-coordinator and S fedmf-client --party=hfl:I/S processes, each holding a block of the users
# with every item, their user embeddings kept in their own --state_dir. Usage:
# hfl_sgdmf_test.sh BUILD_DIR CASE, CASE one of
#   parties      3 parties, SecAgg, noise calibrated to (1, 1e-5) per user: every round sums all 3,
#                once each, and the run's test MSE (after fine-tuning, and before) equals
#                fedmf-central's in-process run of the same config and seed, the parties' noise
#                keyed as fedmf-central keys it (--insecure_noise_seed=SEED+1)
#   kill_resume  2 parties; party 1 is killed -9 once round 2 is applied and restarted on its
#                state: it takes part in later rounds and the run completes, every round applied
#                once (a round the kill broke is retried), which a party without its user
#                embeddings could not do
#   state_lost   the same kill, restarted WITHOUT its state: the party refuses to contribute
#   sim_equals   the parties case's run with its noise keyed by --seed: fedmf-sim
#                --parties=hfl:3 ends with the networked run's checkpoint, byte for byte
# Waits are bounded by progress lines (the coordinator's rounds), each with a generous cap.
# Every process started here is killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
CENTRAL="$BUILD/tools/fedmf-central"
SIM="$BUILD/tools/sim/fedmf-sim"
source "$(dirname "$0")/../../tools/lib/processes.sh"
source "$(dirname "$0")/party_test_lib.sh"
processes_init hfl
KIND=hfl

DATA="synthetic:users=90,items=60,per_user=20,min_per_user=10,seed=5"
SEED=2
SPLIT=(--split=holdout:0.1 --split_seed="$SEED")
# The same run in both binaries' flags: p = 4, theta = 5, eta = 0.5, gamma_0 = 0.05, 20 steps in
# stage 1 and in stage 3, T' = 5 per sync.
RUN=(--algorithm=hfl-sgdmf --eval_data="$DATA" "${SPLIT[@]}" --seed="$SEED" --eval_every=0
  --set=sgd.rank=4 --set=theta=5 --set=sgd.sampling_rate=0.5 --set=sgd.learning_rate=0.05
  --set=pretrain_steps=20 --set=finetune_steps=20 --set=local_steps=5 --stage_timeout_s=20)

# The kill cases' run: 300 rounds of one noisy step each, no budget.
KILL_RUN=("${RUN[@]}" --epsilon=0 --set=sgd.noise_multiplier=0.3 --set=local_steps=1 --set=parties=2)

# close A B: |A - B| <= 1e-5 |B| + 1e-6 (the coordinator prints 6 significant digits).
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; if (b < 0) b = -b;
  exit !(d <= 1e-5 * b + 1e-6) }'; }

case "$CASE" in
  parties)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${RUN[@]}" --rounds=6 \
      --epsilon=1 --delta=1e-5 --set=parties=3 --wait_for_users=3
    for i in 0 1 2; do
      start_party "$i" 3 "$WORK/party-$i.log" --state_dir="$WORK/party-$i" \
        --insecure_noise_seed=$((SEED + 1))
    done
    finished 6
    for r in 0 5; do
      line="$(grep -E " event=round round=$r phase=0 .*applied=yes" "$WORK/coordinator.log")"
      [[ "$(field contributors "$line")" == 3 ]] || fail "round $r: not 3 parties"
    done
    end="$(grep ' event=training_end ' "$WORK/coordinator.log")"
    "$CENTRAL" --model=hfl-sgdmf --data="$DATA" --split=holdout:0.1 --seed="$SEED" --rank=4 \
      --sgdmf_unit=user --sgdmf_theta=5 --sgdmf_sampling_rate=0.5 --sgdmf_learning_rate=0.05 \
      --sgdmf_epsilon=1 --sgdmf_delta=1e-5 --hfl_parties=3 --hfl_syncs=5 --hfl_local_steps=5 \
      --hfl_pretrain_steps=20 --hfl_finetune_steps=20 >"$WORK/central.log" 2>&1 ||
      fail "fedmf-central failed"
    central="$(grep ' event=hfl ' "$WORK/central.log")" || fail "no event=hfl from fedmf-central"
    for pair in test_mse:test_mse_after_finetune test_mse_before_finetune:test_mse_before_finetune \
      test_ratings:test_ratings; do
      ours="$(field "${pair%%:*}" "$end")"
      theirs="$(field "${pair##*:}" "$central")"
      close "$ours" "$theirs" || fail "${pair%%:*}: networked $ours, in process $theirs"
    done
    echo "test_mse=$(field test_mse "$end") (in process $(field test_mse_after_finetune "$central"))"
    ;;

  kill_resume) kill_resume "${KILL_RUN[@]}" ;;
  state_lost) state_lost "${KILL_RUN[@]}" ;;
  sim_equals) sim_equals 3 6 "${RUN[@]}" --epsilon=1 --delta=1e-5 --set=parties=3 ;;
  *)
    echo "unknown case $CASE" >&2
    exit 2
    ;;
esac
echo "PASS $CASE"
