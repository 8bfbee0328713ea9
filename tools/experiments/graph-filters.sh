#!/usr/bin/env bash
# Reproduces "Centralized graph filters on Gowalla" in docs/results/privirec.md: fedmf-central on
# LightGCN's Gowalla split (the paper's: train.txt, test.txt), each graph filter at its published
# settings and the item-popularity baseline, one process at a time under `nice -n 10`. Every run
# appends one line to OUT/runs.csv (Recall@20, NDCG@20, seconds to build the filter and to
# evaluate, wall seconds and peak RSS as the run measured them itself); its log goes to
# OUT/logs/MODEL.log.
#
#   tools/experiments/graph-filters.sh [--data=DIR] [--out=DIR] [--build=DIR] [--threads=N]
#                                      [--extra="FLAGS"] [MODEL...]
#
# MODELs (default: all, in this order): popularity gf-cf turbo-cf bspm-lm bspm-em. DIR defaults to
# ../shared/data/gowalla next to the repository; without DIR/train.txt and DIR/test.txt the script
# says so and exits 0. --threads sets fedmf-central's worker threads (default: all cores);
# --extra adds flags to every run (e.g. --extra="--block_users=32").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/gowalla"
OUT="${ROOT}/docs/results/privirec"
BUILD="${ROOT}/build"
THREADS=0
EXTRA=()
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --threads=*) THREADS="${arg#--threads=}" ;;
    --extra=*) read -r -a EXTRA <<< "${arg#--extra=}" ;;
    --help|-h) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "graph-filters.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(popularity gf-cf turbo-cf bspm-lm bspm-em)
for file in train.txt test.txt; do
  if [[ ! -f "${DATA}/${file}" ]]; then
    echo "graph-filters.sh: ${DATA}/${file} not found: LightGCN's Gowalla split is needed" \
         "(pass --data=DIR holding train.txt and test.txt); skipping"
    exit 0
  fi
done
CENTRAL="${BUILD}/tools/fedmf-central"
[[ -x "${CENTRAL}" ]] || { echo "graph-filters.sh: ${CENTRAL} missing: build first" >&2; exit 1; }
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"
[[ -f "${CSV}" ]] ||
  echo "model,recall20,ndcg20,train_s,evaluate_s,wall_s,peak_rss_mib,threads,settings" > "${CSV}"

# value KEY LINE: the value of KEY=... in an event line.
value() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }

for model in "${SELECTED[@]}"; do
  log="${OUT}/logs/${model}.log"
  echo "== ${model} (log: ${log})" >&2
  # Implicit feedback: every test interaction is relevant (--relevance_threshold=1).
  nice -n 10 "${CENTRAL}" --data="user-items:${DATA}/train.txt?test=${DATA}/test.txt" \
    --split=predefined --model="${model}" --relevance_threshold=1 --threads="${THREADS}" \
    ${EXTRA[@]+"${EXTRA[@]}"} > "${log}" 2>&1
  fold=$(grep 'event=fold_done' "${log}" | tail -n 1)
  done_line=$(grep 'event=run_done' "${log}" | tail -n 1)
  settings=$(sed -n 's/^model: //p' "${log}" | head -n 1)
  printf '%s,%s,%s,%s,%s,%s,%s,%s,"%s"\n' "${model}" \
    "$(value recall_long "${fold}")" "$(value ndcg_long "${fold}")" \
    "$(value train_seconds "${fold}")" "$(value evaluate_seconds "${fold}")" \
    "$(value wall_seconds "${done_line}")" "$(value peak_rss_mib "${done_line}")" \
    "$(value threads "${done_line}")" "${settings}" | tee -a "${CSV}"
done
