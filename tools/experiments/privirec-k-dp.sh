#!/usr/bin/env bash
# Reproduces "PriviRec-k with the DP option" in docs/results/privirec.md: fedmf-sim --plain_sum,
# PriviRec-k (GF-CF from a rank-K basis, L power sums, Rayleigh-Ritz) on MovieLens 100K binarized,
# all 1,682 movies and 943 users, holdout 0.2, without noise and at whole-run (epsilon, 1e-5)-DP
# for each EPSILON (every user's noisy power vector is dense: 1,682 K coordinates per power sum,
# the simulator holds all 943 of them: about 0.85 GB and a minute per run at K = 64); then
# fedmf-central's item popularity and GF-CF on the same split. One line per run in
# OUT/dp-k-ml100k.csv: model,k,epsilon,seed,recall20,ndcg20,degree_noise_std,power_noise_std,
# wall_s,user_s,maxrss_kb (the stds from fedmf-sim's event=new_run line).
#
#   tools/experiments/privirec-k-dp.sh [--data=FILE] [--out=DIR] [--build=DIR] [--k=K] [--l=L]
#                                      [--epsilons="1 2 5 10 20"] [--seeds="1"]
#                                      [--degree_clip=D] [--baselines=no]
#
# FILE defaults to ../shared/data/ml-100k/u.data next to the repository; without it the script
# says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/privirec"
BUILD="${ROOT}/build"
K=64
L=2
EPSILONS="1 2 5 10 20"
SEEDS="1"
DEGREE_CLIP=100
BASELINES=yes
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --k=*) K="${arg#--k=}" ;;
    --l=*) L="${arg#--l=}" ;;
    --epsilons=*) EPSILONS="${arg#--epsilons=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --degree_clip=*) DEGREE_CLIP="${arg#--degree_clip=}" ;;
    --baselines=*) BASELINES="${arg#--baselines=}" ;;
    --help|-h) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "privirec-k-dp.sh: unknown argument ${arg}" >&2; exit 2 ;;
  esac
done
if [[ ! -r "${DATA}" ]]; then
  echo "privirec-k-dp.sh: ${DATA} not found: MovieLens 100K's u.data is needed; skipped"
  exit 0
fi
mkdir -p "${OUT}/logs"
CSV="${OUT}/dp-k-ml100k.csv"
[[ -f "${CSV}" ]] ||
  echo "model,k,epsilon,seed,recall20,ndcg20,degree_noise_std,power_noise_std,wall_s,user_s,maxrss_kb" \
    >"${CSV}"

# field NAME LOG: NAME's value on the last line of LOG that has it (fedmf-sim's key=value events,
# /usr/bin/time's line), empty if none.
field() { grep -o " $1=[^ ]*" "$2" | tail -n 1 | cut -d= -f2 || true; }

# shellcheck source=tools/experiments/ranking-metric.sh
source "${ROOT}/tools/experiments/ranking-metric.sh"  # metric NAME LOG

run() {  # run MODEL EPSILON SEED COMMAND...
  local model="$1" epsilon="$2" seed="$3" log="${OUT}/logs/dp-k-ml100k-$1-k${K}-$2-$3.log"
  shift 3
  /usr/bin/time -f " wall=%e user=%U maxrss_kb=%M" "$@" >"${log}" 2>&1
  echo "${model},${K},${epsilon},${seed},$(metric recall20 "${log}"),$(metric ndcg20 "${log}"),$(
    field degree_noise_std "${log}"),$(field power_noise_std "${log}"),$(field wall "${log}"),$(
    field user "${log}"),$(field maxrss_kb "${log}")" | tee -a "${CSV}"
}

common=(--data="ml-100k:${DATA}" --split=holdout:0.2)
sim=("${BUILD}/tools/sim/fedmf-sim" "${common[@]}" --algorithm=privirec-k
  --privirec_k_rank="${K}" --privirec_k_power_sums="${L}" --rounds=1 --plain_sum --eval_every=0
  --stage_timeout_s=600)
for seed in ${SEEDS}; do
  [[ "${BASELINES}" == no ]] || run "privirec-k-l${L}" none "${seed}" "${sim[@]}" --seed="${seed}"
  for epsilon in ${EPSILONS}; do
    run "privirec-k-l${L}-clip${DEGREE_CLIP}" "${epsilon}" "${seed}" "${sim[@]}" \
      --seed="${seed}" --privirec_k_epsilon="${epsilon}" --delta=1e-5 \
      --privirec_k_degree_clip="${DEGREE_CLIP}"
  done
  [[ "${BASELINES}" == no ]] && continue
  for model in popularity gf-cf; do
    run "central-${model}" none "${seed}" "${BUILD}/tools/fedmf-central" "${common[@]}" \
      --relevance_threshold=1 --model="${model}" --seed="${seed}"
  done
done
