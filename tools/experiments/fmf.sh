#!/usr/bin/env bash
# Reproduces docs/results/fmf.md on MovieLens 100K with fedmf-central: the FMF privacy paper's
# central DP-SGD (VFL-SGDMF with s = 1, --model=dp-sgdmf), its non-private reference and Fig. 4
# (embedding clipping vs gradient clipping C in 1, 10, 50; per rating and per user), next to the
# global-mean, user-mean and item-popularity (item mean) baselines. Every run appends one CSV line
# to OUT/runs.csv; fmf_summary.py turns the CSV into the tables of docs/results/fmf.md.
#
#   tools/experiments/fmf.sh [--data=PATH] [--out=DIR] [--build=DIR] [--seeds=N]
#                            [--epsilons="0.5 1 2 5"] [--lrs="..."] [--extra="FLAGS"]
#                            [--vfl_settings="PARTITION:S:T:T' ..."] [--vfl_epsilons="1"]
#                            [--vfl_lrs="0.0003 0.001 0.003 0.01 0.03"]
#                            [--vfl_modes="vfl vfl-local-only"] [GROUP...]
#
# GROUPs (default: baselines tune fig4 reference): baselines (the three predictors, --seeds
# seeds), tune (every method and budget on seed 1 for each learning rate of --lrs: the paper picks
# the rate with the lowest TRAINING loss, Sec. 4.3), fig4 (every method and budget, --seeds seeds,
# each at the rate tune chose; epsilon 0 is the non-private run, embedding clipping at epsilon 0
# the reference line), reference (the non-private reference trained 10 times longer, 10000 steps,
# its rate tuned likewise), vfl (Figs. 6-7, not in the default: VFL-SGDMF per rating through a
# coordinator and S party processes on loopback, fmf_party_run.sh, for each PARTITION:S:T:T' of
# --vfl_settings (PARTITION vfl or vfl-genre) and each budget of --vfl_epsilons, at the rate tune
# chose for central embedding clipping; one CSV line per run in OUT/vfl.csv), vfl-local-only
# (the paper's local-only baseline of Figs. 6-7 on the same settings: each party trains alone,
# T T' steps, fmf_party_run.sh --local-only; into OUT/vfl.csv too), vfl-tune (VFL-SGDMF and
# local-only at each rate of --vfl_lrs, each budget of --vfl_epsilons, seed 1, each setting: the
# paper's rule, the lowest TRAINING MSE, which the parties sum in the final round), vfl-tuned (both
# on every setting, budget and seed at the rate vfl-tune chose for that setting, mode and budget;
# vfl-tune must have run at every budget vfl-tuned is given; --vfl_modes=vfl tunes and runs
# VFL-SGDMF only, e.g. at other (T, T'), which local-only does not read), vfl-privacy (the
# per-user accounting of VFL-SGDMF for s in 1 2 5 10 19, ours next to the paper's, from a
# coordinator's event=new_run line; OUT/vfl_privacy.csv). The split holds out
# 10% of each user's ratings (holdout:0.1), seeded by the run's seed, which also seeds
# initialization, trimming, sampling and noise. The data file defaults to
# ../shared/data/ml-100k/u.data next to the repository; without it the script says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/fmf"
SEEDS=3
EPSILONS="0 0.5 1 2 5"
LRS="0.0003 0.001 0.003 0.01"
EXTRA=()
BUILD="${ROOT}/build"
VFL_SETTINGS="vfl:2:100:10 vfl:5:100:10 vfl:10:100:10 vfl-genre:19:100:10"
VFL_EPSILONS="1"
VFL_LRS="0.0003 0.001 0.003 0.01 0.03"
VFL_MODES="vfl vfl-local-only"
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --epsilons=*) EPSILONS="0 ${arg#--epsilons=}" ;;
    --lrs=*) LRS="${arg#--lrs=}" ;;
    --extra=*) read -r -a EXTRA <<< "${arg#--extra=}" ;;
    --vfl_settings=*) VFL_SETTINGS="${arg#--vfl_settings=}" ;;
    --vfl_epsilons=*) VFL_EPSILONS="${arg#--vfl_epsilons=}" ;;
    --vfl_lrs=*) VFL_LRS="${arg#--vfl_lrs=}" ;;
    --vfl_modes=*) VFL_MODES="${arg#--vfl_modes=}" ;;
    --help|-h) sed -n '2,34p' "$0"; exit 0 ;;
    -*) echo "fmf.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(baselines tune fig4 reference)
if [[ ! -f "${DATA}" ]]; then
  echo "fmf.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
CENTRAL="${BUILD}/tools/fedmf-central"
# The vfl groups run fedmf-coordinator and fedmf-client (fmf_party_run.sh), the others fedmf-central.
[[ -x "${CENTRAL}" || "${SELECTED[*]}" =~ ^vfl[a-z-]*( vfl[a-z-]*)*$ ]] ||
  { echo "fmf.sh: ${CENTRAL} missing: build first" >&2; exit 1; }
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"
VFL_CSV="${OUT}/vfl.csv"
[[ -f "${CSV}" ]] ||
  echo "group,method,unit,epsilon,lr,seed,test_mse,test_rmse,train_mse,z,epsilon_spent,paper_c1,sensitivity,paper_sensitivity,train_s" > "${CSV}"

# The paper's settings (Sec. 4.3): p = 20, eta = 0.01, T T' = 1000 noisy steps, theta = 10 per
# user at s = 1, delta = 1e-5, R = 5 (MovieLens ratings lie in [1, 5]). Predictions are the raw
# <u_i, v_j> (the paper's MSE), not clipped to the rating range.
SPLIT=holdout:0.1
COMMON=(--split="${SPLIT}" --rank=20 --clip_predictions=false --sgdmf_sampling_rate=0.01
        --sgdmf_steps=1000 --sgdmf_theta=10 --sgdmf_delta=1e-5 --sgdmf_rating_max=5)
METHODS="embedding gradient-1 gradient-10 gradient-50"

# method_flags METHOD: the clipping flags of a method.
method_flags() {
  case "$1" in
    embedding) echo --sgdmf_clip=embedding ;;
    gradient-*) echo --sgdmf_clip=gradient --sgdmf_gradient_clip="${1#gradient-}" ;;
  esac
}

# fields LOG: the CSV fields a fedmf-central log ends with (test MSE = RMSE^2 over all test
# ratings, the last progress line's train MSE, the privacy line's figures).
fields() {
  awk '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    /event=iteration/ { train = val("train_mse") }
    /event=privacy/ { z = val("noise_multiplier"); spent = val("epsilon_spent"); c1 = val("paper_c1")
                      s = val("sensitivity"); ps = val("paper_sensitivity") }
    /event=fold_done/ { rmse = val("rmse"); secs = val("train_seconds") }
    END { printf "%.6f,%s,%s,%s,%s,%s,%s,%s,%s\n", rmse * rmse, rmse, train, z, spent, c1, s, ps, secs }
  ' "$1"
}

# run GROUP METHOD UNIT EPSILON LR SEED [FLAGS...]: one dp-sgdmf run into the CSV.
run() {
  local group="$1" method="$2" unit="$3" eps="$4" lr="$5" seed="$6"
  shift 6
  local log="${OUT}/logs/${group}-${method}-${unit}-eps${eps}-lr${lr}-seed${seed}.log"
  echo "== ${group} ${method} ${unit} eps=${eps} lr=${lr} seed ${seed}" >&2
  "${CENTRAL}" --data="ml-100k:${DATA}" --model=dp-sgdmf --seed="${seed}" "${COMMON[@]}" \
    $(method_flags "${method}") --sgdmf_unit="${unit}" --sgdmf_epsilon="${eps}" \
    --sgdmf_learning_rate="${lr}" "$@" ${EXTRA[@]+"${EXTRA[@]}"} > "${log}" 2>&1
  echo "${group},${method},${unit},${eps},${lr},${seed},$(fields "${log}")" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# best_lr METHOD UNIT EPSILON [GROUP]: the rate of GROUP (default tune) with the lowest training
# MSE.
best_lr() {
  awk -F, -v m="$1" -v u="$2" -v e="$3" -v g="${4:-tune}" '
    $1 == g && $2 == m && $3 == u && $4 == e && $9 != "" && $9 != "nan" &&
    (best == "" || $9 + 0 < best) { best = $9 + 0; lr = $5 }
    END { if (lr == "") exit 1; print lr }
  ' "${CSV}"
}

# vfl_run GROUP PARTITION:S:T:T' EPSILON LR SEED: one VFL run through real processes
# (fmf_party_run.sh, per rating; a vfl-local-only* GROUP runs the local-only baseline) into
# OUT/vfl.csv, unless that run is already there (the groups resume where they stopped).
vfl_run() {
  local group="$1" eps="$3" lr="$4" seed="$5" partition parties syncs local_steps mode=()
  IFS=: read -r partition parties syncs local_steps <<< "$2"
  [[ "${group}" == vfl-local-only* ]] && mode=(--local-only)
  local key="${group},${partition},${parties},${syncs},${local_steps},rating,${eps},${lr},${seed}"
  [[ -f "${VFL_CSV}" ]] ||
    echo "group,partition,parties,T,Tp,unit,epsilon,lr,seed,test_mse,test_rmse,test_ratings,z,epsilon_ours,epsilon_paper,run_s,train_mse" > "${VFL_CSV}"
  grep -q "^${key}," "${VFL_CSV}" && return 0
  echo "== ${group} $2 eps=${eps} lr=${lr} seed ${seed}" >&2
  local fields
  fields="$("${ROOT}/tools/experiments/fmf_party_run.sh" ${mode[@]+"${mode[@]}"} "${BUILD}" \
    "${DATA}" "${OUT}/logs" "${partition}" "${parties}" "${syncs}" "${local_steps}" rating "${eps}" \
    "${lr}" "${seed}")"
  echo "${key},${fields}" >> "${VFL_CSV}"
  tail -n 1 "${VFL_CSV}" >&2
}

# vfl_best_lr GROUP PARTITION:S:T:T' EPSILON: GROUP's rate with the lowest train MSE on that
# setting at that budget.
vfl_best_lr() {
  local partition parties syncs local_steps
  IFS=: read -r partition parties syncs local_steps <<< "$2"
  awk -F, -v g="$1" -v p="${partition}" -v s="${parties}" -v t="${syncs}" -v tp="${local_steps}" \
      -v e="$3" '
    $1 == g && $2 == p && $3 == s && $4 == t && $5 == tp && $7 == e && $17 != "" && $17 != "nan" &&
    (best == "" || $17 + 0 < best) { best = $17 + 0; lr = $8 }
    END { if (lr == "") exit 1; print lr }
  ' "${VFL_CSV}"
}

# for_each_setting FN: FN METHOD UNIT EPSILON for every unit, clipping method and budget.
for_each_setting() {
  for unit in rating user; do
    for method in ${METHODS}; do
      for eps in ${EPSILONS}; do "$1" "${method}" "${unit}" "${eps}"; done
    done
  done
}

for group in "${SELECTED[@]}"; do
  case "${group}" in
    baselines)
      for seed in $(seq 1 "${SEEDS}"); do
        for model in global-mean user-mean popularity; do
          log="${OUT}/logs/baselines-${model}-seed${seed}.log"
          echo "== baselines ${model} seed ${seed}" >&2
          "${CENTRAL}" --data="ml-100k:${DATA}" --model="${model}" --split="${SPLIT}" \
            --seed="${seed}" --clip_predictions=false > "${log}" 2>&1
          echo "baselines,${model},,,,${seed},$(fields "${log}")" >> "${CSV}"
          tail -n 1 "${CSV}" >&2
        done
      done ;;
    tune)
      # tune_setting METHOD UNIT EPSILON: every rate of --lrs on seed 1.
      tune_setting() { for lr in ${LRS}; do run tune "$1" "$2" "$3" "${lr}" 1; done; }
      for_each_setting tune_setting ;;
    fig4)
      # fig4_setting METHOD UNIT EPSILON: --seeds seeds at the rate tune chose.
      fig4_setting() {
        local lr
        lr="$(best_lr "$1" "$2" "$3")" ||
          { echo "fmf.sh: no tune run for $1 $2 eps=$3: run tune first" >&2; exit 1; }
        for seed in $(seq 1 "${SEEDS}"); do run fig4 "$1" "$2" "$3" "${lr}" "${seed}"; done
      }
      for_each_setting fig4_setting ;;
    reference)
      for lr in ${LRS}; do run tune-long embedding rating 0 "${lr}" 1 --sgdmf_steps=10000; done
      lr="$(best_lr embedding rating 0 tune-long)"
      for seed in $(seq 1 "${SEEDS}"); do
        run reference embedding rating 0 "${lr}" "${seed}" --sgdmf_steps=10000
      done ;;
    vfl|vfl-local-only)
      # Figs. 6-7: VFL-SGDMF through real processes (fmf_party_run.sh), per rating, each budget at
      # the rate tune chose for central embedding clipping (s = 1) at that budget; vfl-local-only
      # the paper's local-only baseline on the same settings (each party alone, T T' steps).
      for setting in ${VFL_SETTINGS}; do
        for eps in ${VFL_EPSILONS}; do
          lr="$(best_lr embedding rating "${eps}")" ||
            { echo "fmf.sh: no tune run for embedding rating eps=${eps}: run tune first" >&2; exit 1; }
          for seed in $(seq 1 "${SEEDS}"); do vfl_run "${group}" "${setting}" "${eps}" "${lr}" "${seed}"; done
        done
      done ;;
    vfl-tune)
      for setting in ${VFL_SETTINGS}; do
        for eps in ${VFL_EPSILONS}; do
          for lr in ${VFL_LRS}; do
            for mode in ${VFL_MODES}; do
              vfl_run "${mode}-tune" "${setting}" "${eps}" "${lr}" 1
            done
          done
        done
      done ;;
    vfl-tuned)
      for setting in ${VFL_SETTINGS}; do
        for mode in ${VFL_MODES}; do
          for eps in ${VFL_EPSILONS}; do
            lr="$(vfl_best_lr "${mode}-tune" "${setting}" "${eps}")" || {
              echo "fmf.sh: no ${mode}-tune run for ${setting} at epsilon ${eps}: run vfl-tune" \
                "--vfl_epsilons=\"${eps}\" first" >&2
              exit 1
            }
            for seed in $(seq 1 "${SEEDS}"); do vfl_run "${mode}-tuned" "${setting}" "${eps}" "${lr}" "${seed}"; done
          done
        done
      done ;;
    vfl-privacy)
      # Per-user accounting of VFL-SGDMF for s in 1 2 5 10 19: the z a coordinator calibrates for
      # each budget (T T' + kappa = 1000 steps per party, theta^(k) = 5) and the epsilon of its
      # event=new_run line, ours (all s parties' steps composed) next to the paper's Theorem 4.
      # The coordinator is stopped once it has logged the line: nothing is trained.
      PRIVACY_CSV="${OUT}/vfl_privacy.csv"
      echo "parties,epsilon,z,epsilon_ours,epsilon_paper" > "${PRIVACY_CSV}"
      COORD="${BUILD}/server/fedmf-coordinator"
      source "${ROOT}/tools/lib/processes.sh"
      processes_init fmf-vfl-privacy
      for parties in 1 2 5 10 19; do
        for eps in 0.5 1 2 5; do
          log="${OUT}/logs/vfl-privacy-s${parties}-eps${eps}.log"
          start_coordinator "${log}" --listen=127.0.0.1:0 --algorithm=vfl-sgdmf --num_users=943 \
            --num_items=1682 --rounds=101 --vfl_parties="${parties}" --vfl_local_steps=10 \
            --vfl_unit=user --vfl_theta=5 --vfl_sampling_rate=0.01 --epsilon="${eps}" --delta=1e-5
          kill "${COORD_PID}"
          wait "${COORD_PID}" 2>/dev/null || true
          line="$(grep ' event=new_run ' "${log}")"
          echo "${parties},${eps},$(field noise_multiplier "${line}"),$(field vfl_epsilon "${line}"),$(field vfl_paper_epsilon "${line}")" >> "${PRIVACY_CSV}"
          tail -n 1 "${PRIVACY_CSV}" >&2
        done
      done ;;
    *) echo "fmf.sh: unknown group ${group}" >&2; exit 2 ;;
  esac
done
echo "fmf.sh: results in ${OUT}" >&2
