#!/usr/bin/env bash
# Reproduces docs/results/ldp-mf.md: Private GD (ldp-gd) and Private GD-DR (ldp-gd-dr) of the
# local-DP MF paper on MovieLens 100K with fedmf-sim, next to the non-private GD, global-mean,
# user-mean and popularity baselines of fedmf-central, by 10-fold cross-validation as the paper.
# Every run appends one line to OUT/runs.csv (OUT/distance.csv for the model comparisons,
# OUT/communication.csv for the bytes); ldp_mf_summarize.py turns them into the tables.
#
#   tools/experiments/ldp-mf.sh [--data=PATH] [--out=DIR] [--build=DIR] [--folds=N]
#                               [--ks="1 3 5 10 20 50"] [--epsilons="0.05 0.1 0.2 0.4 0.8 1.6"]
#                               [--extra="FLAGS"] [GROUP...]
#
# GROUPs (default: all): baselines k epsilon large_epsilon distance communication. --folds (default 10) runs
# folds 1..N of the 10-fold split. --extra adds fedmf-sim flags to every private run. Needs the
# binaries of --build (default build/, made by tools/run-tests.sh). The data file defaults to
# ../shared/data/ml-100k/u.data next to the repository; without it the script says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/ldp-mf"
BUILD="${ROOT}/build"
FOLDS=10
KS="1 3 5 10 20 50"
EPSILONS="0.05 0.1 0.2 0.4 0.8 1.6"
EXTRA=()
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --folds=*) FOLDS="${arg#--folds=}" ;;
    --ks=*) KS="${arg#--ks=}" ;;
    --epsilons=*) EPSILONS="${arg#--epsilons=}" ;;
    --extra=*) read -r -a EXTRA <<< "${arg#--extra=}" ;;
    --help|-h) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "ldp-mf.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(baselines k epsilon large_epsilon distance communication)
if [[ ! -f "${DATA}" ]]; then
  echo "ldp-mf.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
SIM="${BUILD}/tools/sim/fedmf-sim"
CENTRAL="${BUILD}/tools/fedmf-central"
COMPARE="${BUILD}/tools/fedmf-compare-models"
for bin in "${SIM}" "${CENTRAL}" "${COMPARE}"; do
  [[ -x "${bin}" ]] || { echo "ldp-mf.sh: ${bin} missing: build first (tools/run-tests.sh)" >&2; exit 1; }
done
mkdir -p "${OUT}/logs" "${OUT}/models"
CSV="${OUT}/runs.csv"
[[ -f "${CSV}" ]] || echo "group,algorithm,mode,correction,k,epsilon,fold,rmse,mae,f1,wall_s" > "${CSV}"
DIST="${OUT}/distance.csv"
[[ -f "${DIST}" ]] ||
  echo "algorithm,mode,correction,k,epsilon,max_abs_item_diff,top10_f_score" > "${DIST}"
COMM="${OUT}/communication.csv"
[[ -f "${COMM}" ]] || echo "algorithm,coordinates,up_bytes_per_user,down_bytes_per_user" > "${COMM}"

ML="ml-100k:${DATA}"
# Every user reports every round (the paper's full gradient descent), reports in the clear, the
# model scored after the last round only; seed 1 for the split, V_0, the u_i^0 and the noise.
COMMON=(--participation=1 --eval_every=0 --seed=1 --split_seed=1 --client_processes=2)

# val KEY LINE: the value of KEY=... in a key=value log line.
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }

# private GROUP ALGORITHM MODE CORRECTION K EPSILON FOLD FLAGS...: one fedmf-sim run of one fold.
private() {
  local group="$1" algorithm="$2" mode="$3" correction="$4" k="$5" eps="$6" fold="$7"
  shift 7
  local log="${OUT}/logs/${group}-${algorithm}-${mode}-${correction}-k${k}-eps${eps}-fold${fold}.log"
  "${SIM}" --data="${ML}" --algorithm="${algorithm}" --split="fold:${fold}/10" --rounds="${k}" \
    --epsilon="${eps}" --evaluate_every="${k}" --ldp_correction="${correction}" "${COMMON[@]}" "$@" \
    ${EXTRA[@]+"${EXTRA[@]}"} > "${log}" 2>&1 || { echo "ldp-mf.sh: run failed, see ${log}" >&2; exit 1; }
  local line wall
  line="$(grep ' event=evaluation ' "${log}" | tail -n 1)"
  wall="$(val wall_s "$(grep ' event=sim_summary ' "${log}")")"
  echo "${group},${algorithm},${mode},${correction},${k},${eps},${fold},$(val test_rmse "${line}"),$(val test_mae "${line}"),$(val f1_10 "${line}"),${wall}" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# central MODEL K FLAGS...: a fedmf-central model on the same folds, one CSV line per fold.
central() {
  local model="$1" k="$2"
  shift 2
  local log="${OUT}/logs/central-${model}-k${k}.log"
  "${CENTRAL}" --data="${ML}" --model="${model}" --split=kfold:10 --folds_to_run="${FOLDS}" \
    --seed=1 --iterations="${k}" "$@" > "${log}" 2>&1 ||
    { echo "ldp-mf.sh: fedmf-central failed, see ${log}" >&2; exit 1; }
  grep ' event=fold_done ' "${log}" | while read -r line; do
    echo "baselines,${model},central,off,${k},0,$(val fold "${line}"),$(val rmse "${line}"),$(val mae "${line}"),$(val f1 "${line}"),$(val train_seconds "${line}")" >> "${CSV}"
  done
  tail -n 1 "${CSV}" >&2
}

# distance ALGORITHM MODE CORRECTION EPSILON FLAGS...: the private model trained on all of
# ML-100K against the non-private GD's (same V_0, u_i^0, steps), k = 10.
distance() {
  local algorithm="$1" mode="$2" correction="$3" eps="$4"
  shift 4
  local name="${algorithm}-${mode}-${correction}-eps${eps}" reference="${OUT}/models/non-private-k10.pb"
  if [[ ! -f "${reference}" ]]; then
    "${CENTRAL}" --data="${ML}" --model=ldp-gd --split=holdout:0 --seed=1 --iterations=10 \
      --save_model="${reference}" > "${OUT}/logs/distance-reference.log" 2>&1 ||
      { echo "ldp-mf.sh: reference model failed" >&2; exit 1; }
  fi
  "${SIM}" --data="${ML}" --algorithm="${algorithm}" --split=holdout:0 --rounds=10 \
    --epsilon="${eps}" --evaluate_every=0 --ldp_correction="${correction}" "${COMMON[@]}" "$@" \
    --save_model="${OUT}/models/${name}.pb" > "${OUT}/logs/distance-${name}.log" 2>&1 ||
    { echo "ldp-mf.sh: run failed, see ${OUT}/logs/distance-${name}.log" >&2; exit 1; }
  local line
  line="$("${COMPARE}" --model="${OUT}/models/${name}.pb" --reference="${reference}" 2>&1 |
    grep ' event=model_distance ')"
  echo "${algorithm},${mode},${correction},10,${eps},$(val max_abs_item_diff "${line}"),$(val top_n_f_score "${line}")" >> "${DIST}"
  tail -n 1 "${DIST}" >&2
}

# communication ALGORITHM FLAGS...: one round with one simulated client process per user, so each
# round task (the plan with V) and each upload is one user's; a deadline long enough that none of
# the 943 threads building its contributor at once is dropped.
communication() {
  local algorithm="$1"
  shift
  local log="${OUT}/logs/communication-${algorithm}.log"
  "${SIM}" --data="${ML}" --algorithm="${algorithm}" --split=fold:1/10 --rounds=1 --epsilon=1 \
    --evaluate_every=0 --participation=1 --eval_every=0 --client_processes=943 \
    --stage_timeout_s=600 "$@" \
    > "${log}" 2>&1 || { echo "ldp-mf.sh: run failed, see ${log}" >&2; exit 1; }
  local line
  line="$(grep ' event=round round=0 ' "${log}")"
  echo "${algorithm},$(val length "${line}"),$(val up_bytes_per_user "${line}"),$(val down_bytes_per_user "${line}")" >> "${COMM}"
  tail -n 1 "${COMM}" >&2
}

for group in "${SELECTED[@]}"; do
  case "${group}" in
    baselines)
      for model in global-mean user-mean popularity; do central "${model}" 0; done
      for k in ${KS}; do central ldp-gd "${k}"; done ;;
    k)  # Fig. 9: GD-DR as published at epsilon = 0.1, with and without the correction factor
      for k in ${KS}; do
        for correction in true false; do
          for fold in $(seq 1 "${FOLDS}"); do
            private k ldp-gd-dr paper "${correction}" "${k}" 0.1 "${fold}"
          done
        done
      done ;;
    epsilon)  # Figs. 3-4: k = 10, the correction factor on (the paper's setting)
      for eps in ${EPSILONS}; do
        for fold in $(seq 1 "${FOLDS}"); do
          private epsilon ldp-gd none true 10 "${eps}" "${fold}"
          private epsilon ldp-gd-dr paper true 10 "${eps}" "${fold}"
          private epsilon ldp-gd-dr unbiased true 10 "${eps}" "${fold}" --ldp_projection_mode=unbiased
        done
      done ;;
    large_epsilon)  # beyond the paper: does any epsilon let one report per user learn here?
      for eps in 10 100 1000; do
        for fold in $(seq 1 "${FOLDS}"); do
          private large_epsilon ldp-gd none false 10 "${eps}" "${fold}"
          private large_epsilon ldp-gd-dr unbiased false 10 "${eps}" "${fold}" \
            --ldp_projection_mode=unbiased
        done
      done ;;
    distance)  # Fig. 2 (and the top-10 agreement of Figs. 7-8) on all of ML-100K, k = 10
      for eps in ${EPSILONS}; do
        for correction in false true; do
          distance ldp-gd none "${correction}" "${eps}"
          distance ldp-gd-dr paper "${correction}" "${eps}"
        done
        distance ldp-gd-dr unbiased true "${eps}" --ldp_projection_mode=unbiased
      done ;;
    communication)
      communication ldp-gd
      communication ldp-gd-dr ;;
    *) echo "ldp-mf.sh: unknown group ${group}" >&2; exit 2 ;;
  esac
done
echo "ldp-mf.sh: results in ${OUT}; tables: tools/experiments/ldp_mf_summarize.py ${OUT}" >&2
