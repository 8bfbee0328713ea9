#!/usr/bin/env bash
# The VFL runs of docs/results/fmf.md (Figs. 6-7) on MovieLens 100K through a coordinator and S
# party processes on loopback (fmf_party_run.sh); the central runs (baselines, tune, fig4,
# reference) are `tools/experiments/run.py fmf`, whose docs/results/fmf/runs.csv the vfl groups
# read for the rate central tuning chose. One CSV line per run in OUT/vfl.csv
# (OUT/vfl_privacy.csv for vfl-privacy); fmf_vfl_summary.py turns them into the tables.
#
#   tools/experiments/fmf.sh [--data=PATH] [--out=DIR] [--build=DIR] [--seeds=N]
#                            [--vfl_settings="PARTITION:S:T:T' ..."] [--vfl_epsilons="1"]
#                            [--vfl_lrs="0.0003 0.001 0.003 0.01 0.03"]
#                            [--vfl_modes="vfl vfl-local-only"] GROUP...
#
# GROUPs: vfl (VFL-SGDMF per rating for each PARTITION:S:T:T' of --vfl_settings (PARTITION vfl or
# vfl-genre) and each budget of --vfl_epsilons, --seeds seeds, at the rate `run.py fmf` tune chose
# for central embedding clipping per rating at that budget), vfl-local-only
# (the paper's local-only baseline of Figs. 6-7 on the same settings: each party trains alone,
# T T' steps, fmf_party_run.sh --local-only), vfl-tune (VFL-SGDMF and
# local-only at each rate of --vfl_lrs, each budget of --vfl_epsilons, seed 1, each setting: the
# paper's rule, the lowest TRAINING MSE, which the parties sum in the final round), vfl-tuned (both
# on every setting, budget and seed at the rate vfl-tune chose for that setting, mode and budget;
# vfl-tune must have run at every budget vfl-tuned is given; --vfl_modes=vfl tunes and runs
# VFL-SGDMF only, e.g. at other (T, T'), which local-only does not read), vfl-privacy (the
# per-user accounting of VFL-SGDMF for s in 1 2 5 10 19, ours next to the paper's, from a
# coordinator's event=new_run line; nothing is trained). The split holds out
# 10% of each user's ratings (holdout:0.1), seeded by the run's seed, which also seeds
# initialization, trimming, sampling and noise. The data file defaults to
# ../shared/data/ml-100k/u.data next to the repository; without it the script says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/fmf"
SEEDS=3
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
    --vfl_settings=*) VFL_SETTINGS="${arg#--vfl_settings=}" ;;
    --vfl_epsilons=*) VFL_EPSILONS="${arg#--vfl_epsilons=}" ;;
    --vfl_lrs=*) VFL_LRS="${arg#--vfl_lrs=}" ;;
    --vfl_modes=*) VFL_MODES="${arg#--vfl_modes=}" ;;
    --help|-h) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "fmf.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || { echo "fmf.sh: name a GROUP (--help)" >&2; exit 2; }
if [[ ! -f "${DATA}" ]]; then
  echo "fmf.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"
VFL_CSV="${OUT}/vfl.csv"

# best_lr EPSILON: the rate `run.py fmf` tune (CSV rows group,method,unit,epsilon,lr,seed,
# metric,value) found with the lowest training MSE for embedding clipping per rating.
best_lr() {
  awk -F, -v e="$1" '
    $1 == "tune" && $2 == "embedding" && $3 == "rating" && $4 == e && $7 == "train_mse" &&
    $8 != "nan" && (best == "" || $8 + 0 < best) { best = $8 + 0; lr = $5 }
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

for group in "${SELECTED[@]}"; do
  case "${group}" in
    vfl|vfl-local-only)
      # Figs. 6-7: VFL-SGDMF through real processes (fmf_party_run.sh), per rating, each budget at
      # the rate tune chose for central embedding clipping (s = 1) at that budget; vfl-local-only
      # the paper's local-only baseline on the same settings (each party alone, T T' steps).
      for setting in ${VFL_SETTINGS}; do
        for eps in ${VFL_EPSILONS}; do
          lr="$(best_lr "${eps}")" || {
            echo "fmf.sh: no tune run for embedding rating eps=${eps}: run" \
              "tools/experiments/run.py fmf --only tune first" >&2
            exit 1
          }
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
