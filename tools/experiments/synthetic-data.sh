#!/usr/bin/env bash
# Reproduces docs/results/synthetic-data.md: each synthetic shape next to the real dataset it
# stands in for. Every measurement appends a row "group,dataset,seed,metric,value" to
# OUT/runs.csv (logs in OUT/logs/); the `table` group prints the markdown tables of the doc from it.
#
#   tools/experiments/synthetic-data.sh [--data=DIR] [--out=DIR] [--build=DIR] [--seeds="1 2"]
#                                       [--synthetic-seeds="1 2"] [GROUP...]
#
# GROUPs (default: shape ml-100k gowalla ml-20m table):
#   shape    fedmf-data on ML-100K, Gowalla and their synthetic shapes (counts, skew, stars)
#   ml-100k  per split seed: central ALS RMSE, popularity F1@10 and non-private DPMF-RP F1@10
#            (fedmf-sim, fedmf's defaults, --mechanism=none) on ML-100K and on synthetic:ml-100k
#            (each --synthetic-seeds value a generator seed, split with the same split seed)
#   gowalla  GF-CF and popularity Recall@20: real Gowalla on its predefined split, synthetic:gowalla
#            on a 20% per-user holdout (Gowalla's test part is 21% of its interactions)
#   ml-20m   the ml-20m shape's generation time and peak memory (the budget: 60 s, 2 GiB)
#   table    the tables, from OUT/runs.csv
# DIR (default ../shared/data next to the repository) holds ml-100k/u.data and gowalla/; a real
# dataset that is absent is skipped with a message, its synthetic shape still measured.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data"
OUT="${ROOT}/docs/results/synthetic-data"
BUILD="${ROOT}/build"
SEEDS="1 2"
SYNTHETIC_SEEDS="1 2"
GROUPS_SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --synthetic-seeds=*) SYNTHETIC_SEEDS="${arg#--synthetic-seeds=}" ;;
    --help|-h) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "synthetic-data.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) GROUPS_SELECTED+=("${arg}") ;;
  esac
done
[[ ${#GROUPS_SELECTED[@]} -gt 0 ]] || GROUPS_SELECTED=(shape ml-100k gowalla ml-20m table)
source "${ROOT}/tools/lib/processes.sh"  # field KEY LINE

DATA_BIN="${BUILD}/tools/fedmf-data"
CENTRAL="${BUILD}/tools/fedmf-central"
SIM="${BUILD}/tools/sim/fedmf-sim"
for bin in "${DATA_BIN}" "${CENTRAL}" "${SIM}"; do
  [[ -x "${bin}" ]] || { echo "synthetic-data.sh: ${bin} missing: build first" >&2; exit 1; }
done
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"
[[ -f "${CSV}" ]] || echo "group,dataset,seed,metric,value" > "${CSV}"

ML100K="ml-100k:${DATA}/ml-100k/u.data"
GOWALLA="user-items:${DATA}/gowalla/train.txt?test=${DATA}/gowalla/test.txt"
have_ml100k() { [[ -f "${DATA}/ml-100k/u.data" ]] || { echo "synthetic-data.sh: ${DATA}/ml-100k/u.data not found: skipping real ML-100K" >&2; return 1; }; }
have_gowalla() { [[ -f "${DATA}/gowalla/train.txt" && -f "${DATA}/gowalla/test.txt" ]] || { echo "synthetic-data.sh: ${DATA}/gowalla/{train,test}.txt not found: skipping real Gowalla" >&2; return 1; }; }

# record GROUP DATASET SEED METRIC VALUE
record() {
  [[ -n "$5" ]] || { echo "synthetic-data.sh: no $4 for $2 seed $3 (see ${OUT}/logs)" >&2; exit 1; }
  echo "$1,$2,$3,$4,$5" >> "${CSV}"
  echo "$1 $2 seed $3: $4 = $5" >&2
}

# shape NAME SPEC: every count and share fedmf-data prints, as rows.
shape() {
  local line key
  line="$(nice -n 10 "${DATA_BIN}" --data="$2")"
  for key in users items ratings per_user_min per_user_median per_user_max per_item_min \
      per_item_median per_item_max top_tenth_item_share stars_1 stars_2 stars_3 stars_4 stars_5 \
      load_s peak_rss_mib; do
    [[ " ${line} " == *" ${key}="* ]] && record shape "$1" 0 "${key}" "$(field "${key}" " ${line}")"
  done
}

# central NAME SPEC SEED MODEL SPLIT METRIC... [-- FLAGS]: fedmf-central's fold_done metrics.
central() {
  local name="$1" spec="$2" seed="$3" model="$4" split="$5" metrics=() flags=() line m
  shift 5
  while [[ $# -gt 0 && "$1" != -- ]]; do metrics+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift && flags=("$@")
  local log="${OUT}/logs/${name}-${model}-seed${seed}.log"
  nice -n 10 "${CENTRAL}" --data="${spec}" --model="${model}" --split="${split}" --seed="${seed}" \
    "${flags[@]}" > "${log}" 2>&1
  line="$(grep ' event=fold_done ' "${log}" | tail -n 1)"
  for m in "${metrics[@]}"; do record "${GROUP}" "${name}" "${seed}" "${model}_${m}" "$(field "${m}" "${line}")"; done
}

# dpmf NAME SPEC SEED: non-private DPMF-RP (fedmf's defaults) in fedmf-sim; F1@10 and RMSE.
dpmf() {
  local log="${OUT}/logs/$1-dpmf-seed$3.log" line
  nice -n 10 "${SIM}" --data="$2" --mechanism=none --seed="$3" --split_seed="$3" --plain_sum \
    --client_processes=2 --eval_every=0 --evaluate_every=100 --stage_timeout_s=600 > "${log}" 2>&1
  line="$(grep ' event=evaluation ' "${log}" | tail -n 1)"
  record "${GROUP}" "$1" "$3" dpmf_f1_10 "$(field f1_10 "${line}")"
  record "${GROUP}" "$1" "$3" dpmf_rmse "$(field test_rmse "${line}")"
}

# explicit NAME SPEC SEED: the four numbers of an explicit-rating dataset.
explicit() {
  central "$1" "$2" "$3" als holdout:0.2 rmse
  central "$1" "$2" "$3" popularity holdout:0.2 f1
  dpmf "$1" "$2" "$3"
}

for GROUP in "${GROUPS_SELECTED[@]}"; do
  case "${GROUP}" in
    shape)
      if have_ml100k; then shape ml-100k "${ML100K}"; fi
      shape synthetic:ml-100k synthetic:ml-100k
      if have_gowalla; then shape gowalla "${GOWALLA}"; fi
      shape synthetic:gowalla synthetic:gowalla ;;
    ml-100k)
      for seed in ${SEEDS}; do
        if have_ml100k; then explicit ml-100k "${ML100K}" "${seed}"; fi
        for g in ${SYNTHETIC_SEEDS}; do
          explicit "synthetic:ml-100k~g${g}" "synthetic:ml-100k,seed=${g}" "${seed}"
        done
      done ;;
    gowalla)
      # Implicit feedback: every test interaction is relevant (--relevance_threshold=1).
      if have_gowalla; then
        for model in popularity gf-cf; do
          central gowalla "${GOWALLA}" 1 "${model}" predefined recall_long ndcg_long -- --relevance_threshold=1
        done
      fi
      for g in ${SYNTHETIC_SEEDS}; do
        for model in popularity gf-cf; do
          central "synthetic:gowalla~g${g}" "synthetic:gowalla,seed=${g}" 1 "${model}" holdout:0.2 \
            recall_long ndcg_long -- --relevance_threshold=1
        done
      done ;;
    ml-20m) shape synthetic:ml-20m synthetic:ml-20m ;;
    table) python3 "${ROOT}/tools/experiments/synthetic_data_table.py" "${CSV}" ;;
    *) echo "synthetic-data.sh: unknown group ${GROUP}" >&2; exit 2 ;;
  esac
done
