#!/usr/bin/env bash
# One VFL-SGDMF run through real processes on 127.0.0.1 (a fedmf-coordinator and S
# fedmf-client --party processes), for tools/experiments/fmf.sh's vfl group. Prints one CSV line:
#   test_mse,test_rmse,test_ratings,z,epsilon_ours,epsilon_paper,run_s
#
#   fmf_vfl_run.sh [--local-only] BUILD DATA LOGDIR PARTITION S T T' UNIT EPSILON LR SEED
#                  [EXTRA COORDINATOR FLAGS]
#
# --local-only: the paper's local-only baseline (--vfl_mode=local-only): each party runs its T T'
# steps alone in one round and only the parties' test errors are summed (U is never averaged).
# PARTITION: vfl (random contiguous blocks of items) or vfl-genre (MovieLens genres, S parties).
# DATA: the MovieLens 100K u.data. The split holds out 10% of each user's ratings
# (holdout:0.1, seeded by SEED, which also seeds the public initialization and trimming).
# EPSILON 0: no noise. The paper's settings: p = 20, eta = 0.01, theta^(k) = 5, delta = 1e-5.
set -euo pipefail
MODE=federated
[[ "${1:-}" == --local-only ]] && { MODE=local-only; shift; }
BUILD="$1" DATA="$2" LOGDIR="$3" PARTITION="$4" S="$5" T="$6" TP="$7" UNIT="$8" EPS="$9"
LR="${10}" SEED="${11}"
shift 11
COORD="${BUILD}/server/fedmf-coordinator"
CLIENT="${BUILD}/client/fedmf-client"
source "$(dirname "${BASH_SOURCE[0]}")/../lib/processes.sh"
processes_init fmf-vfl
NAME="${PARTITION}-s${S}-T${T}x${TP}-${UNIT}-eps${EPS}-lr${LR}-seed${SEED}"
ROUNDS=(--rounds=$((T + 1)) --vfl_local_steps="${TP}")
if [[ "${MODE}" == local-only ]]; then
  NAME="local-only-${NAME}"
  ROUNDS=(--rounds=1 --vfl_local_steps=$((T * TP)) --vfl_mode=local-only)
fi
mkdir -p "${LOGDIR}"
SPLIT=(--split=holdout:0.1 --split_seed="${SEED}")
NOISE=(--epsilon="${EPS}" --delta=1e-5)
[[ "${EPS}" == 0 ]] && NOISE=(--epsilon=0 --vfl_noise_multiplier=0)
start=$(date +%s.%N)
start_coordinator "${LOGDIR}/${NAME}-coordinator.log" --listen=127.0.0.1:0 \
  --algorithm=vfl-sgdmf --eval_data="ml-100k:${DATA}" "${SPLIT[@]}" --seed="${SEED}" \
  --eval_every=0 "${ROUNDS[@]}" --vfl_parties="${S}" --wait_for_users="${S}" --vfl_rank=20 --vfl_sampling_rate=0.01 --vfl_unit="${UNIT}" \
  --vfl_theta=5 --vfl_learning_rate="${LR}" --rating_max=5 --stage_timeout_s=120 \
  "${NOISE[@]}" "$@"
for ((i = 0; i < S; i++)); do
  "${CLIENT}" --coordinator="127.0.0.1:${PORT}" --data="ml-100k:${DATA}" "${SPLIT[@]}" \
    --party="${PARTITION}:${i}/${S}" --top_n=0 --give_up_after_s=300 \
    > "${LOGDIR}/${NAME}-party-${i}.log" 2>&1 &
  PIDS+=($!)
done
wait "${COORD_PID}" || fail "coordinator failed (${LOGDIR}/${NAME}-coordinator.log)"
end_line="$(grep ' event=training_end ' "${LOGDIR}/${NAME}-coordinator.log")"
new_run="$(grep ' event=new_run ' "${LOGDIR}/${NAME}-coordinator.log")"
mse="$(field test_mse "${end_line}")"
[[ -n "${mse}" ]] || fail "no test_mse in ${end_line}"
echo "${mse},$(field test_rmse "${end_line}"),$(field test_ratings "${end_line}"),$(field noise_multiplier "${new_run}"),$(field vfl_epsilon "${new_run}"),$(field vfl_paper_epsilon "${new_run}"),$(echo "$(date +%s.%N) - ${start}" | bc)"
