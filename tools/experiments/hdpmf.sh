#!/usr/bin/env bash
# Reproduces docs/results/hdpmf.md on MovieLens 100K with fedmf-sim (hdpmf and its baselines) and
# fedmf-central (global mean, user mean, item popularity): every run appends one CSV line to
# OUT/runs.csv; hdpmf_summary.py turns the CSV into the tables of docs/results/hdpmf.md.
#
#   tools/experiments/hdpmf.sh [--data=PATH] [--out=DIR] [--build=DIR] [--seeds=N] [--ranks="10 5"]
#                              [--variants="mf hdpmf pdpmf dpmf"] [--epsilon_sound="100"]
#                              [--sweep="VALUES"] [--extra="FLAGS"] [GROUP...]
#
# GROUPs (default: table3 sound): table3 (paper mode: --variants and the central baselines, --seeds
# seeds, each --ranks), sound (sound mode, same seeds and ranks, --epsilon_sound run budgets),
# ablation (HDPMF-R, Fig. 8: trained as HDPMF, no rescaling), fuc and euc (Fig. 2-5 shapes: HDPMF
# and PDPMF, seed 1, each --ranks, f_uc in 0.1..0.54 and eps_uc in 0.1..0.4), sparsity (Fig. 6-7:
# MF, HDPMF and PDPMF on 20..100% of each user's training ratings, leave-one-out, seed 1).
# --sweep replaces the values of fuc, euc or sparsity (e.g. --sweep="0.1 0.3 0.54" fuc).
# The split is the paper's: 10 random ratings of each user held out (leave:10). The data file
# defaults to ../shared/data/ml-100k/u.data next to the repository; without it the script says so
# and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/hdpmf"
SEEDS=5
EPS_SOUND="100"
SWEEP=""
RANKS="10 5"
VARIANTS="mf hdpmf pdpmf dpmf"
EXTRA=()
BUILD="${ROOT}/build"
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --ranks=*) RANKS="${arg#--ranks=}" ;;
    --variants=*) VARIANTS="${arg#--variants=}" ;;
    --extra=*) read -r -a EXTRA <<< "${arg#--extra=}" ;;
    --epsilon_sound=*) EPS_SOUND="${arg#--epsilon_sound=}" ;;
    --sweep=*) SWEEP="${arg#--sweep=}" ;;
    --help|-h) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "hdpmf.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(table3 sound)
if [[ ! -f "${DATA}" ]]; then
  echo "hdpmf.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
SIM="${BUILD}/tools/sim/fedmf-sim"
CENTRAL="${BUILD}/tools/fedmf-central"
for bin in "${SIM}" "${CENTRAL}"; do
  [[ -x "${bin}" ]] || { echo "hdpmf.sh: ${bin} missing: build first" >&2; exit 1; }
done
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"
[[ -f "${CSV}" ]] || echo "group,name,rank,seed,epsilon_run,rmse,mae,wall_s,p10" > "${CSV}"

# Every user in every epoch (full batch, T = 100), n_min = the whole cohort (so the summed noise
# is exactly Laplace(b)), the paper's epsilon = 1 per epoch (--epsilon=100 for the run), lambda
# 0.01 and eta_0 = 0.001 from the paper's grids, factors starting at the rating scale's midpoint
# (--hdpmf_init_center's default). Secure sums are added in the clear (--plain_sum: the same sum,
# tested) to keep 943-user cohorts fast; the privacy accounting is that of the secure run.
COMMON=(--algorithm=hdpmf --rounds=100 --participation=1 --min_clients=0 --plain_sum
        --eval_every=0 --evaluate_every=100)
SPLIT=leave:10
EPSILON=100

# run GROUP NAME RANK SEED FLAGS...: one fedmf-sim run, its last evaluation into the CSV.
run() {
  local group="$1" name="$2" rank="$3" seed="$4"
  shift 4
  local log="${OUT}/logs/${group}-${name}-k${rank}-seed${seed}.log"
  echo "== ${group} ${name} K=${rank} seed ${seed}" >&2
  "${SIM}" --data="ml-100k:${DATA}" --seed="${seed}" --split_seed="${seed}" --split="${SPLIT}" \
    --epsilon="${EPSILON}" "${COMMON[@]}" --hdpmf_rank="${rank}" "$@" ${EXTRA[@]+"${EXTRA[@]}"} \
    > "${log}" 2>&1
  awk -v group="${group}" -v name="${name}" -v rank="${rank}" -v seed="${seed}" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    /event=evaluation/ { rmse = val("test_rmse"); mae = val("test_mae"); p10 = val("precision10") }
    /event=new_run/ { eps = val("epsilon") }
    /event=sim_summary/ { wall = val("wall_s") }
    END { print group "," name "," rank "," seed "," eps "," rmse "," mae "," wall "," p10 }
  ' "${log}" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# central GROUP MODEL SEED: a fedmf-central baseline on the same split.
central() {
  local group="$1" model="$2" seed="$3"
  local log="${OUT}/logs/${group}-${model}-seed${seed}.log"
  echo "== ${group} ${model} seed ${seed}" >&2
  "${CENTRAL}" --data="ml-100k:${DATA}" --model="${model}" --split="${SPLIT}" --seed="${seed}" \
    > "${log}" 2>&1
  awk -v group="${group}" -v model="${model}" -v seed="${seed}" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    /event=fold_done/ {
      print group "," model ",0," seed ",0," val("rmse") "," val("mae") ",0," val("precision")
    }
  ' "${log}" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# paper VARIANT: the paper-mode flags of a variant. eta_0 0.001 (the paper's grid for HDPMF, PDPMF
# and MF); for DPMF its own grid's smallest, 0.0001, as its noise (b = 2530 per coordinate at the
# strongest weight 0.01) swamps larger steps.
paper() {
  local lr=0.001
  [[ "$1" == dpmf ]] && lr=0.0001
  echo --hdpmf_mode=paper --hdpmf_lambda=0.01 --hdpmf_variant="$1" --hdpmf_learning_rate="${lr}"
}
for group in "${SELECTED[@]}"; do
  case "${group}" in
    table3)
      for seed in $(seq 1 "${SEEDS}"); do
        for model in global-mean user-mean popularity; do central table3 "${model}" "${seed}"; done
        for rank in ${RANKS}; do
          for variant in ${VARIANTS}; do
            run table3 "${variant}" "${rank}" "${seed}" $(paper "${variant}")
          done
        done
      done ;;
    ablation)
      for seed in $(seq 1 "${SEEDS}"); do
        for rank in ${RANKS}; do
          run table3 hdpmf-r "${rank}" "${seed}" $(paper hdpmf-r)
        done
      done ;;
    sound)
      for seed in $(seq 1 "${SEEDS}"); do
        for rank in ${RANKS}; do
          for eps in ${EPS_SOUND}; do
            EPSILON="${eps}" run sound "hdpmf-sound-eps${eps}" "${rank}" "${seed}" \
              --hdpmf_mode=sound --hdpmf_learning_rate=0.001 --hdpmf_lambda=0.01
          done
        done
      done ;;
    fuc)
      for rank in ${RANKS}; do
        for f in ${SWEEP:-0.1 0.2 0.3 0.4 0.54}; do
          for variant in hdpmf pdpmf; do
            run fuc "${variant}-fuc${f}" "${rank}" 1 $(paper "${variant}") --hdpmf_f_uc="${f}"
          done
        done
      done ;;
    euc)
      for rank in ${RANKS}; do
        for e in ${SWEEP:-0.1 0.2 0.3 0.4}; do
          for variant in hdpmf pdpmf; do
            run euc "${variant}-euc${e}" "${rank}" 1 $(paper "${variant}") --hdpmf_eps_uc="${e}"
          done
        done
      done ;;
    sparsity)
      for fraction in ${SWEEP:-0.2 0.4 0.6 0.8 1}; do
        SPLIT="leave:1+train:${fraction}"
        for model in user-mean popularity; do central "sparsity${fraction}" "${model}" 1; done
        for rank in ${RANKS}; do
          for variant in mf hdpmf pdpmf; do
            run "sparsity${fraction}" "${variant}" "${rank}" 1 $(paper "${variant}")
          done
        done
      done
      SPLIT=leave:10 ;;
    *) echo "hdpmf.sh: unknown group ${group}" >&2; exit 2 ;;
  esac
done
echo "hdpmf.sh: results in ${CSV}" >&2
