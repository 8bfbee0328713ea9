#!/usr/bin/env bash
# Reproduces "PriviRec with the DP option" in docs/results/privirec.md: fedmf-sim --plain_sum,
# PriviRec (GF-CF) on MovieLens 100K binarized, restricted to the movies with id <= MAX_ITEM
# (default 400: every user's dense noisy Gram vector is m (m + 1) / 2 coordinates, and the
# simulator holds all of them; the whole 1,682 movies need about 11 GB and hours on 2 cores),
# all its users, holdout 0.2, non-private and at whole-run (epsilon, 1e-5)-DP for each EPSILON,
# each for every SEED; then fedmf-central's item popularity and GF-CF on the same split. One line
# per run in OUT/dp-ml100k.csv: model,epsilon,seed,recall20,ndcg20,wall_s. --noise_parties=C
# (C >= 1) makes a noise committee of C users add all the noise (docs/privacy-accounting.md 4.11;
# the others' vectors stay sparse); its runs are named ...-cC.
#
#   tools/experiments/privirec-dp.sh [--data=FILE] [--out=DIR] [--build=DIR] [--max_item=N]
#                                    [--epsilons="1 2 5 10 20"] [--seeds="1"] [--degree_clip=D]
#                                    [--gram_threshold=T] [--noise_parties=C] [--baselines=no]
#
# FILE defaults to ../shared/data/ml-100k/u.data next to the repository; without it the script
# says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/privirec"
BUILD="${ROOT}/build"
MAX_ITEM=400
EPSILONS="1 2 5 10 20"
SEEDS="1"
DEGREE_CLIP=100
GRAM_THRESHOLD=0
NOISE_PARTIES=0
BASELINES=yes
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --max_item=*) MAX_ITEM="${arg#--max_item=}" ;;
    --epsilons=*) EPSILONS="${arg#--epsilons=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --degree_clip=*) DEGREE_CLIP="${arg#--degree_clip=}" ;;
    --gram_threshold=*) GRAM_THRESHOLD="${arg#--gram_threshold=}" ;;
    --noise_parties=*) NOISE_PARTIES="${arg#--noise_parties=}" ;;
    --baselines=*) BASELINES="${arg#--baselines=}" ;;
    --help|-h) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "privirec-dp.sh: unknown argument ${arg}" >&2; exit 2 ;;
  esac
done
if [[ ! -r "${DATA}" ]]; then
  echo "privirec-dp.sh: ${DATA} not found: MovieLens 100K's u.data is needed; skipped"
  exit 0
fi
mkdir -p "${OUT}/logs"
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
awk -v max="${MAX_ITEM}" '$2 <= max' "${DATA}" >"${WORK}/u.data"
CSV="${OUT}/dp-ml100k.csv"
[[ -f "${CSV}" ]] || echo "model,epsilon,seed,recall20,ndcg20,wall_s" >"${CSV}"

# shellcheck source=tools/experiments/ranking-metric.sh
source "${ROOT}/tools/experiments/ranking-metric.sh"  # metric NAME LOG

run() {  # run MODEL EPSILON SEED COMMAND...
  local model="$1" epsilon="$2" seed="$3" log="${OUT}/logs/dp-ml100k-$1-$2-$3.log"
  shift 3
  local start end
  start=$(date +%s.%N)
  "$@" >"${log}" 2>&1
  end=$(date +%s.%N)
  echo "${model},${epsilon},${seed},$(metric recall20 "${log}"),$(metric ndcg20 "${log}"),$(
    echo "${end} - ${start}" | bc)" | tee -a "${CSV}"
}

COMMITTEE=""
[[ "${NOISE_PARTIES}" == 0 ]] || COMMITTEE="-c${NOISE_PARTIES}"
common=(--data="ml-100k:${WORK}/u.data" --split=holdout:0.2)
sim=("${BUILD}/tools/sim/fedmf-sim" "${common[@]}" --algorithm=privirec --set=filter=gf-cf
  --rounds=1 --plain_sum --eval_every=0 --stage_timeout_s=600)
for seed in ${SEEDS}; do
  # The seed draws the noise and the split (fedmf-central's --seed is its split seed too).
  seeded=("${sim[@]}" --seed="${seed}" --split_seed="${seed}")
  [[ "${BASELINES}" == no ]] || run privirec none "${seed}" "${seeded[@]}"
  for epsilon in ${EPSILONS}; do
    run "privirec-clip${DEGREE_CLIP}-t${GRAM_THRESHOLD}${COMMITTEE}" "${epsilon}" "${seed}" \
      "${seeded[@]}" --set=epsilon="${epsilon}" --delta=1e-5 \
      --set=degree_clip="${DEGREE_CLIP}" --set=gram_threshold="${GRAM_THRESHOLD}" \
      --set=noise_parties="${NOISE_PARTIES}"
  done
  [[ "${BASELINES}" == no ]] && continue
  for model in popularity gf-cf; do
    run "central-${model}" none "${seed}" "${BUILD}/tools/fedmf-central" "${common[@]}" \
      --relevance_threshold=1 --model="${model}" --seed="${seed}"
  done
done
