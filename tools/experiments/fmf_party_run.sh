#!/usr/bin/env bash
# One VFL-SGDMF or HFL-SGDMF run through real processes on 127.0.0.1 (a fedmf-coordinator and S
# fedmf-client --party processes), for tools/experiments/fmf_comm.sh and one-off runs
# (run.py fmf runs the VFL and HFL experiments itself).
# Prints one CSV line:
#   test_mse,test_rmse,test_ratings,z,epsilon_ours,epsilon_paper,run_s,train_mse
# (train_mse: the parties' MSE on their training ratings at the end, HFL after fine-tuning: the
# paper's criterion for the learning rate).
#
#   fmf_party_run.sh [--local-only] BUILD DATA LOGDIR PARTITION S T T' UNIT EPSILON LR SEED
#                    [EXTRA COORDINATOR FLAGS]
#
# PARTITION: vfl (random contiguous blocks of items), vfl-genre (MovieLens genres, S parties) or
# hfl (contiguous blocks of users, every item: HFL-SGDMF, UNIT user only, its default options
# for stages 1 and 3; EXTRA flags set them, e.g. --set=theta=10; with --set=mode=syn-sgd the run
# is HFL-synSGD, T T' rounds of one step, its logs named syn-sgd-...).
# --local-only (VFL only): the paper's local-only baseline (--set=mode=local-only): each party runs
# its T T' steps alone in one round and only the parties' test errors are summed (U is never
# averaged).
# DATA: the MovieLens 100K u.data. The split holds out 10% of each user's ratings
# (holdout:0.1, seeded by SEED, which also seeds the public initialization and trimming).
# PARTY_FLAGS (environment): extra fedmf-client flags, e.g. --insecure_noise_seed=N to key the
# parties' noise as fedmf-central --seed=N-1 does (reproduction only: no privacy). EPSILON 0: no noise. The paper's settings: p = 20, eta = 0.01, theta^(k) = 5, delta = 1e-5.
set -euo pipefail
MODE=federated
[[ "${1:-}" == --local-only ]] && { MODE=local-only; shift; }
BUILD="$1" DATA="$2" LOGDIR="$3" PARTITION="$4" S="$5" T="$6" TP="$7" UNIT="$8" EPS="$9"
LR="${10}" SEED="${11}"
shift 11
COORD="${BUILD}/server/fedmf-coordinator"
CLIENT="${BUILD}/client/fedmf-client"
source "$(dirname "${BASH_SOURCE[0]}")/../lib/processes.sh"
processes_init fmf-party
ALG=vfl
[[ "${PARTITION}" == hfl ]] && ALG=hfl
NAME="${PARTITION}-s${S}-T${T}x${TP}-${UNIT}-eps${EPS}-lr${LR}-seed${SEED}"
ROUNDS=(--rounds=$((T + 1)) "--set=local_steps=${TP}")
if [[ " $* " == *" --set=mode=syn-sgd "* ]]; then  # HFL-synSGD: T T' rounds of one step
  NAME="syn-sgd-${NAME}"
  ROUNDS=(--rounds=$((T * TP + 1)) "--set=local_steps=${TP}")
fi
if [[ "${MODE}" == local-only ]]; then
  [[ "${ALG}" == vfl ]] || { echo "fmf_party_run.sh: --local-only is VFL's baseline" >&2; exit 2; }
  NAME="local-only-${NAME}"
  ROUNDS=(--rounds=1 --set=local_steps=$((T * TP)) --set=mode=local-only)
fi
mkdir -p "${LOGDIR}"
SPLIT=(--split=holdout:0.1 --split_seed="${SEED}")
NOISE=(--epsilon="${EPS}" --delta=1e-5)
[[ "${EPS}" == 0 ]] && NOISE=(--epsilon=0 --set=sgd.noise_multiplier=0)
# The privacy unit is an option of VFL-SGDMF only (HFL-SGDMF protects users).
UNIT_OPTION=("--set=unit=${UNIT}")
[[ "${ALG}" == hfl ]] && UNIT_OPTION=()
start=$(date +%s.%N)
start_coordinator "${LOGDIR}/${NAME}-coordinator.log" --listen=127.0.0.1:0 \
  --algorithm="${ALG}-sgdmf" --eval_data="ml-100k:${DATA}" "${SPLIT[@]}" --seed="${SEED}" \
  --eval_every=0 "${ROUNDS[@]}" "--set=parties=${S}" --wait_for_users="${S}" \
  --set=sgd.rank=20 --set=sgd.sampling_rate=0.01 "${UNIT_OPTION[@]}" \
  --set=theta=5 "--set=sgd.learning_rate=${LR}" --rating_max=5 --stage_timeout_s=120 \
  "${NOISE[@]}" "$@"
read -r -a PARTY_EXTRA <<<"${PARTY_FLAGS:-}"
for ((i = 0; i < S; i++)); do
  "${CLIENT}" --coordinator="127.0.0.1:${PORT}" --data="ml-100k:${DATA}" "${SPLIT[@]}" \
    --party="${PARTITION}:${i}/${S}" --top_n=0 --give_up_after_s=300 "${PARTY_EXTRA[@]}" \
    > "${LOGDIR}/${NAME}-party-${i}.log" 2>&1 &
  PIDS+=($!)
done
wait "${COORD_PID}" || fail "coordinator failed (${LOGDIR}/${NAME}-coordinator.log)"
end_line="$(grep ' event=training_end ' "${LOGDIR}/${NAME}-coordinator.log")"
new_run="$(grep ' event=new_run ' "${LOGDIR}/${NAME}-coordinator.log")"
mse="$(field test_mse "${end_line}")"
[[ -n "${mse}" ]] || fail "no test_mse in ${end_line}"
echo "${mse},$(field test_rmse "${end_line}"),$(field test_ratings "${end_line}"),$(field noise_multiplier "${new_run}"),$(field "${ALG}_epsilon" "${new_run}"),$(field "${ALG}_paper_epsilon" "${new_run}"),$(echo "$(date +%s.%N) - ${start}" | bc),$(field train_mse "${end_line}")"
