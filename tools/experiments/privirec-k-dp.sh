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
# --gowalla[=DIR] runs instead on LightGCN's Gowalla split (DIR/train.txt, DIR/test.txt, DIR
# defaulting to ../shared/data/gowalla, the predefined split) into OUT/dp-k-gowalla.csv, with
# fedmf-central's item popularity on the same split as the baseline. --noise_parties=C (C >= 1) makes a
# noise committee of C users add all the noise (docs/privacy-accounting.md 4.11; the other users'
# vectors stay sparse, which Gowalla needs); its runs are named ...-cC. Each fedmf-sim run is
# reniced (nice -n 5); at Gowalla k = 256 with C = 16 a run holds about 3-4 GB: run it alone.
#
#   tools/experiments/privirec-k-dp.sh [--data=FILE | --gowalla[=DIR]] [--out=DIR] [--build=DIR]
#                                      [--k=K] [--l=L] [--epsilons="1 2 5 10 20"] [--seeds="1"]
#                                      [--degree_clip=D] [--noise_parties=C] [--baselines=no]
#
# FILE defaults to ../shared/data/ml-100k/u.data next to the repository; without the data the
# script says so and exits 0.
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
GOWALLA=""
NOISE_PARTIES=0
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
    --gowalla) GOWALLA="${ROOT}/../shared/data/gowalla" ;;
    --gowalla=*) GOWALLA="${arg#--gowalla=}" ;;
    --noise_parties=*) NOISE_PARTIES="${arg#--noise_parties=}" ;;
    --help|-h) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "privirec-k-dp.sh: unknown argument ${arg}" >&2; exit 2 ;;
  esac
done
if [[ -n "${GOWALLA}" ]]; then
  for file in train.txt test.txt; do
    if [[ ! -r "${GOWALLA}/${file}" ]]; then
      echo "privirec-k-dp.sh: ${GOWALLA}/${file} not found: LightGCN's Gowalla split is needed" \
        "(--gowalla=DIR holding train.txt and test.txt); skipped"
      exit 0
    fi
  done
  NAME=gowalla
  CENTRAL="popularity"  # GF-CF's dense 40,981^2 item-item matrix is 13 GB: see privirec.md
  common=(--data="user-items:${GOWALLA}/train.txt?test=${GOWALLA}/test.txt" --split=predefined)
else
  if [[ ! -r "${DATA}" ]]; then
    echo "privirec-k-dp.sh: ${DATA} not found: MovieLens 100K's u.data is needed; skipped"
    exit 0
  fi
  NAME=ml100k
  CENTRAL="popularity gf-cf"
  common=(--data="ml-100k:${DATA}" --split=holdout:0.2)
fi
COMMITTEE=""
[[ "${NOISE_PARTIES}" == 0 ]] || COMMITTEE="-c${NOISE_PARTIES}"
mkdir -p "${OUT}/logs"
CSV="${OUT}/dp-k-${NAME}.csv"
[[ -f "${CSV}" ]] ||
  echo "model,k,epsilon,seed,recall20,ndcg20,degree_noise_std,power_noise_std,wall_s,user_s,maxrss_kb" \
    >"${CSV}"

# field NAME LOG: NAME's value on the last line of LOG that has it (fedmf-sim's key=value events,
# /usr/bin/time's line), empty if none.
field() { grep -o " $1=[^ ]*" "$2" | tail -n 1 | cut -d= -f2 || true; }

# shellcheck source=tools/experiments/ranking-metric.sh
source "${ROOT}/tools/experiments/ranking-metric.sh"  # metric NAME LOG

run() {  # run MODEL EPSILON SEED COMMAND...
  local model="$1" epsilon="$2" seed="$3" log="${OUT}/logs/dp-k-${NAME}-$1-k${K}-$2-$3.log"
  shift 3
  /usr/bin/time -f " wall=%e user=%U maxrss_kb=%M" "$@" >"${log}" 2>&1
  echo "${model},${K},${epsilon},${seed},$(metric recall20 "${log}"),$(metric ndcg20 "${log}"),$(
    field degree_noise_std "${log}"),$(field power_noise_std "${log}"),$(field wall "${log}"),$(
    field user "${log}"),$(field maxrss_kb "${log}")" | tee -a "${CSV}"
}

sim=(nice -n 5 "${BUILD}/tools/sim/fedmf-sim" "${common[@]}" --algorithm=privirec-k
  --set=rank="${K}" --set=power_sums="${L}" --rounds=1 --plain_sum --eval_every=0
  --stage_timeout_s=3600)
for seed in ${SEEDS}; do
  # The seed draws the noise, X_0 and the split (fedmf-central's --seed is its split seed too).
  seeded=("${sim[@]}" --seed="${seed}" --split_seed="${seed}")
  [[ "${BASELINES}" == no ]] || run "privirec-k-l${L}" none "${seed}" "${seeded[@]}"
  for epsilon in ${EPSILONS}; do
    run "privirec-k-l${L}-clip${DEGREE_CLIP}${COMMITTEE}" "${epsilon}" "${seed}" "${seeded[@]}" \
      --set=epsilon="${epsilon}" --delta=1e-5 \
      --set=degree_clip="${DEGREE_CLIP}" --set=noise_parties="${NOISE_PARTIES}"
  done
  [[ "${BASELINES}" == no ]] && continue
  for model in ${CENTRAL}; do
    run "central-${model}" none "${seed}" "${BUILD}/tools/fedmf-central" "${common[@]}" \
      --relevance_threshold=1 --model="${model}" --seed="${seed}"
  done
done
