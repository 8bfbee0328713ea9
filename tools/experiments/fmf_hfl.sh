#!/usr/bin/env bash
# Figs. 8-9 of the FMF privacy paper on MovieLens 100K (docs/results/fmf.md, section HFL-SGDMF):
# HFL-SGDMF (--hfl_mode=pretrain-u) against train-both, HFL-synSGD (syn-sgd) and non-private
# local-only training, s parties in process (fedmf-central --model=hfl-sgdmf), per user, before
# and after stage-3 fine-tuning. One CSV line per run in OUT/hfl.csv; fmf_hfl_summary.py turns it
# and the baselines of OUT/runs.csv (tools/experiments/run.py fmf --only baselines) into the tables.
#
#   tools/experiments/fmf_hfl.sh [--data=PATH] [--out=DIR] [--build=DIR] [--seeds=N]
#                                [--parties="10 40"] [--epsilons="0.5 1 2 5"] [--lrs="..."]
#                                [--tune_parties=S] [GROUP...]
#
# GROUPs (default: tune runs): tune (seed 1, epsilon 1, every mode and s at each rate of --lrs;
# the paper picks the rate with the lowest TRAINING loss, Sec. 4.3: here the train MSE after
# fine-tuning), runs (seed by seed, every s, mode and budget at the rate tune chose; local-only
# once per s and seed; with --tune_parties=S every s runs at the rate tuned at s = S, e.g. when
# tuning at s = 40 does not fit the time), networked (seed 1, s = 10, epsilon 1, HFL-SGDMF at the
# tuned rate through real processes, and the same run in process), networked-syn (the same for
# HFL-synSGD: 1000 SecAgg rounds of one step). The paper's settings (Sec. 5.3): p = 20, eta = 0.01, T = 100, T' = 10
# (synSGD: T T' = 1000 syncs of one step), theta = 10, delta = 1e-5, R = 5, and as many
# fine-tuning steps for every method (here 100, and 100 pre-training steps). The split holds
# out 10% of each user's ratings, seeded by the run's seed. Without the data file the script says
# so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/fmf"
BUILD="${ROOT}/build"
SEEDS=3
PARTIES="10 40"
EPSILONS="0.5 1 2 5"
LRS="0.003 0.01 0.03 0.1"
TUNE_PARTIES=""
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --parties=*) PARTIES="${arg#--parties=}" ;;
    --epsilons=*) EPSILONS="${arg#--epsilons=}" ;;
    --lrs=*) LRS="${arg#--lrs=}" ;;
    --tune_parties=*) TUNE_PARTIES="${arg#--tune_parties=}" ;;
    --help|-h) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "fmf_hfl.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(tune runs)
if [[ ! -f "${DATA}" ]]; then
  echo "fmf_hfl.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
CENTRAL="${BUILD}/tools/fedmf-central"
[[ -x "${CENTRAL}" ]] || { echo "fmf_hfl.sh: ${CENTRAL} missing: build first" >&2; exit 1; }
mkdir -p "${OUT}/logs"
CSV="${OUT}/hfl.csv"
[[ -f "${CSV}" ]] ||
  echo "group,mode,parties,epsilon,lr,seed,test_mse_before,test_mse_after,test_rmse_after,train_mse,z,epsilon_ours,epsilon_paper,sensitivity,paper_sensitivity,train_s" > "${CSV}"

COMMON=(--split=holdout:0.1 --rank=20 --clip_predictions=false --sgdmf_unit=user
        --sgdmf_sampling_rate=0.01 --sgdmf_theta=10 --sgdmf_delta=1e-5 --sgdmf_rating_max=5
        --hfl_syncs=100 --hfl_local_steps=10 --hfl_pretrain_steps=100 --hfl_finetune_steps=100)
MODES="pretrain-u syn-sgd train-both"

# fields LOG: the CSV fields of a fedmf-central --model=hfl-sgdmf log.
fields() {
  awk '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    /event=hfl / { before = val("test_mse_before_finetune"); after = val("test_mse_after_finetune")
                   train = val("train_mse") }
    /event=privacy/ { z = val("noise_multiplier"); ours = val("epsilon_ours"); paper = val("epsilon_paper")
                      s = val("sensitivity"); ps = val("paper_sensitivity") }
    /event=fold_done/ { rmse = val("rmse"); secs = val("train_seconds") }
    END { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", before, after, rmse, train, z, ours, paper, s, ps, secs }
  ' "$1"
}

# run GROUP MODE PARTIES EPSILON LR SEED: one run into the CSV, unless that run is already there
# (the groups resume where they stopped, and a wider --lrs grid runs only its new rates).
run() {
  local group="$1" mode="$2" parties="$3" eps="$4" lr="$5" seed="$6"
  grep -q "^${group},${mode},${parties},${eps},${lr},${seed}," "${CSV}" && return 0
  local log="${OUT}/logs/hfl-${group}-${mode}-s${parties}-eps${eps}-lr${lr}-seed${seed}.log"
  echo "== hfl ${group} ${mode} s=${parties} eps=${eps} lr=${lr} seed ${seed}" >&2
  "${CENTRAL}" --data="ml-100k:${DATA}" --model=hfl-sgdmf --seed="${seed}" "${COMMON[@]}" \
    --hfl_mode="${mode}" --hfl_parties="${parties}" --sgdmf_epsilon="${eps}" \
    --sgdmf_learning_rate="${lr}" > "${log}" 2>&1
  echo "${group},${mode},${parties},${eps},${lr},${seed},$(fields "${log}")" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# best_lr MODE PARTIES: the tune rate with the lowest train MSE (at s = --tune_parties if set).
best_lr() {
  awk -F, -v m="$1" -v s="${TUNE_PARTIES:-$2}" '
    $1 == "tune" && $2 == m && $3 == s && $10 != "" && (best == "" || $10 + 0 < best) { best = $10 + 0; lr = $5 }
    END { if (lr == "") exit 1; print lr }
  ' "${CSV}"
}

# networked MODE: MODE at s = 10, epsilon 1, seed 1 at its tuned rate through real processes
# (fmf_party_run.sh), the parties' noise keyed as fedmf-central's (--insecure_noise_seed=seed+1),
# and the same run in process: the two rows should agree to the fixed point's rounding. syn-sgd's
# T T' = 1000 steps are 1000 SecAgg rounds, each party uploading its noisy V gradient sum.
networked() {
  local mode="$1" prefix="" lr start mse rmse z ours paper train log before
  [[ "${mode}" == syn-sgd ]] && prefix=syn-sgd-
  lr="$(best_lr "${mode}" 10)" ||
    { echo "fmf_hfl.sh: no tune run for ${mode} s=10: run tune first" >&2; exit 1; }
  run networked-in-process "${mode}" 10 1 "${lr}" 1
  start=$(date +%s.%N)
  IFS=, read -r mse rmse _ z ours paper _ train < <(PARTY_FLAGS=--insecure_noise_seed=2 \
    "${ROOT}/tools/experiments/fmf_party_run.sh" "${BUILD}" "${DATA}" "${OUT}/logs" hfl 10 100 10 \
    user 1 "${lr}" 1 --hfl_mode="${mode}" --hfl_theta=10 --hfl_pretrain_steps=100 \
    --hfl_finetune_steps=100)
  log="${OUT}/logs/${prefix}hfl-s10-T100x10-user-eps1-lr${lr}-seed1-coordinator.log"
  before="$(sed -n 's/.* event=training_end .*test_mse_before_finetune=\([^ ]*\).*/\1/p' "${log}")"
  echo "networked,${mode},10,1,${lr},1,${before},${mse},${rmse},${train},${z},${ours},${paper},,,$(echo "$(date +%s.%N) - ${start}" | bc)" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

for group in "${SELECTED[@]}"; do
  case "${group}" in
    tune)
      for parties in ${PARTIES}; do
        for lr in ${LRS}; do
          for mode in ${MODES}; do run tune "${mode}" "${parties}" 1 "${lr}" 1; done
          run tune local-only "${parties}" 0 "${lr}" 1
        done
      done ;;
    runs)
      for seed in $(seq 1 "${SEEDS}"); do
        for parties in ${PARTIES}; do
          lr="$(best_lr local-only "${parties}")" ||
            { echo "fmf_hfl.sh: no tune run for local-only s=${parties}: run tune first" >&2; exit 1; }
          run runs local-only "${parties}" 0 "${lr}" "${seed}"
          for mode in ${MODES}; do
            lr="$(best_lr "${mode}" "${parties}")" ||
              { echo "fmf_hfl.sh: no tune run for ${mode} s=${parties}: run tune first" >&2; exit 1; }
            for eps in ${EPSILONS}; do run runs "${mode}" "${parties}" "${eps}" "${lr}" "${seed}"; done
          done
        done
      done ;;
    networked) networked pretrain-u ;;
    networked-syn) networked syn-sgd ;;
    *) echo "fmf_hfl.sh: unknown group ${group}" >&2; exit 2 ;;
  esac
done
