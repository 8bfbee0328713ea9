#!/usr/bin/env bash
# The LFL-SGDMF dropout runs of docs/results/fmf.md on MovieLens 100K (Fig. 10's runs are
# `tools/experiments/run.py fmf`, whose lfl-tune rows give the rate): real processes on
# 127.0.0.1, a fedmf-coordinator and one fedmf-loadgen process holding all 943 users (each its
# own registered client and stream), a cohort of --participation (default 0.1: 94 users) per
# round, --dropout_rounds rounds at (1, 1e-5) and the rate lfl-tune chose at epsilon 1; each
# cohort user drops out of a round at SecAgg's MaskedInput with probability D (it cuts its
# stream, as a crashed device, and re-registers for later rounds): two-phase, two-phase-paper
# and single at (omega, D) = (0.3, 0), (0.3, 0.2), (0.6, 0.5), (0.6, 0.3), (0.6, 0), two-phase
# also at (0.3, 0.3), (0.3, 0.1), (0.6, 0.1), (0.6, 0.2); then two-phase with the drops in phase
# 1 only (fedmf-loadgen --drop_phase=1: phase 0 loses nobody, each of its contributors drops at
# phase 1's MaskedInput with probability D) at omega in {0.3, 0.6}, D in {0.1, 0.3}; seed 1; one
# line per run in OUT/lfl_dropout.csv (whether the run completed, rounds applied and failed
# attempts of either phase, the mean n_1 and n_2, test MSE, the ledger's epsilon, bytes per
# user, the phase that lost users); fmf_lfl_summary.py makes its table. 10% of each user's
# ratings are held out (holdout:0.1, seeded by the seed).
#
#   tools/experiments/fmf_lfl.sh [--data=PATH] [--out=DIR] [--build=DIR] [--participation=0.1]
#                                [--dropout_rounds=3] dropout
#
# The data file defaults to ../shared/data/ml-100k/u.data next to the
# repository; without it the script says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/fmf"
BUILD="${ROOT}/build"
PARTICIPATION=0.1
DROPOUT_ROUNDS=3
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --participation=*) PARTICIPATION="${arg#--participation=}" ;;
    --dropout_rounds=*) DROPOUT_ROUNDS="${arg#--dropout_rounds=}" ;;
    --help|-h) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "fmf_lfl.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || { echo "fmf_lfl.sh: name a GROUP (dropout)" >&2; exit 2; }
if [[ ! -f "${DATA}" ]]; then
  echo "fmf_lfl.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"

# field KEY LINE (the value of KEY in an event line), and the process helpers.
source "${ROOT}/tools/lib/processes.sh"

# best_lr: the rate `run.py fmf` lfl-tune (rows group,method,partition,parties,T,Tp,unit,epsilon,
# lr,seed,metric,value) found with the lowest test RMSE for LFL-SGDMF at epsilon 1.
best_lr() {
  awk -F, '
    $1 == "lfl-tune" && $2 == "lfl-sgdmf" && $8 == "1" && $11 == "test_rmse" &&
    (best == "" || $12 + 0 < best) { best = $12 + 0; lr = $9 }
    END { if (lr == "") exit 1; print lr }
  ' "${CSV}"
}

# dropout MODE OMEGA D SEED PHASE: one real-process run with injected dropouts into
# lfl_dropout.csv; PHASE is the phase users drop in (0 or 1), or "all" (every phase: a user
# drops out of the whole round, which in practice loses it in phase 0).
dropout() {
  local mode="$1" omega="$2" drop="$3" seed="$4" phase="$5" lr
  lr="$(best_lr)" ||
    { echo "fmf_lfl.sh: run tools/experiments/run.py fmf --only lfl-tune first" >&2; exit 1; }
  # A cell already in the CSV is kept (the group resumes where it stopped).
  if awk -F, -v k="${mode},${omega},${drop},${seed},${phase}" '$1","$2","$3","$4","$NF == k {
      found = 1 } END { exit !found }' "${DROPOUT_CSV}"; then
    return
  fi
  local name="dropout-${mode}-omega${omega}-d${drop}-seed${seed}" drop_phase=-1
  [[ "${phase}" == all ]] || { name="dropout-${mode}-omega${omega}-d${drop}-phase${phase}-seed${seed}"; drop_phase="${phase}"; }
  local log="${OUT}/logs/lfl-${name}-coordinator.log" status=completed
  local split=(--split=holdout:0.1 --split_seed="${seed}")
  echo "== dropout ${mode} omega=${omega} d=${drop} phase ${phase} seed ${seed}" >&2
  # Ten failed attempts in a row end the run (the coordinator exits non-zero): with D > omega no
  # round can reach its threshold.
  start_coordinator "${log}" --listen=127.0.0.1:0 --algorithm=lfl-sgdmf --num_users=943 \
    --num_items=1682 --rating_max=5 --eval_data="ml-100k:${DATA}" "${split[@]}" --seed="${seed}" \
    --eval_every=0 --rounds="${DROPOUT_ROUNDS}" --participation="${PARTICIPATION}" \
    --set=omega="${omega}" --dropout_fraction="${omega}" --set=noise="${mode}" --epsilon=1 \
    --delta=1e-5 --set=learning_rate="${lr}" --wait_for_users=943 --stage_timeout_s=120 \
    --max_failed_rounds=10
  "${LOADGEN}" --coordinator="127.0.0.1:${PORT}" --data="ml-100k:${DATA}" "${split[@]}" \
    --seed="${seed}" --drop_masked="${drop}" --drop_phase="${drop_phase}" --drop_mode=disconnect \
    --coordinator_log="${log}" \
    > "${OUT}/logs/lfl-${name}-loadgen.log" 2>&1 &
  local loadgen_pid=$!
  PIDS+=("${loadgen_pid}")
  wait "${COORD_PID}" || status=aborted
  wait "${loadgen_pid}" || true
  # A round is applied when its last phase is: phase 1's in the two-phase modes (a failed
  # phase 1 abandons the round, whose retry starts again at phase 0).
  awk -v mode="${mode}" -v omega="${omega}" -v drop="${drop}" -v seed="${seed}" -v lr="${lr}" \
      -v status="${status}" -v phase="${phase}" -v two_phase="$([[ "${mode}" == single ]] && echo 0 || echo 1)" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    / event=round / && val("phase") == 0 { if (val("applied") == "yes") { p0++; n1 += val("contributors"); up0 += val("up_bytes_per_user"); down0 += val("down_bytes_per_user") } else failed++ }
    / event=round / && val("phase") == 1 { if (val("applied") == "yes") { n2 += val("contributors"); p1++; up1 += val("up_bytes_per_user"); down1 += val("down_bytes_per_user") } else failed++ }
    / event=round / && val("epsilon_dp") != "" { eps = val("epsilon_dp") }
    / event=new_run / { cohort = val("cohort"); nmin = val("n_min") }
    / event=evaluation / && val("test_rmse") != "" { rmse = val("test_rmse") }
    END {
      ok = two_phase ? p1 : p0
      printf "%s,%s,%s,%s,%s,%s,%s,%d,%d,%.1f,%s,%s,%s,%s,%.0f,%.0f,%s,%s,%s,%s\n", mode, omega, drop, seed, lr, status,
        cohort, ok, failed, p0 ? n1 / p0 : 0, p1 ? sprintf("%.1f", n2 / p1) : "", nmin,
        rmse == "" ? "" : sprintf("%.6f", rmse * rmse), rmse, p0 ? up0 / p0 : 0, p0 ? down0 / p0 : 0,
        p1 ? sprintf("%.0f", up1 / p1) : "", p1 ? sprintf("%.0f", down1 / p1) : "", eps, phase
    }' "${log}" >> "${DROPOUT_CSV}"
  tail -n 1 "${DROPOUT_CSV}" >&2
}

for group in "${SELECTED[@]}"; do
  case "${group}" in
    dropout)
      COORD="${BUILD}/server/fedmf-coordinator"
      LOADGEN="${BUILD}/tools/loadgen/fedmf-loadgen"
      for bin in "${COORD}" "${LOADGEN}"; do
        [[ -x "${bin}" ]] || { echo "fmf_lfl.sh: ${bin} missing: build first" >&2; exit 1; }
      done
      processes_init fmf-lfl-dropout
      DROPOUT_CSV="${OUT}/lfl_dropout.csv"
      [[ -f "${DROPOUT_CSV}" ]] ||
        echo "mode,omega,dropout,seed,lr,status,cohort,rounds_applied,attempts_failed,mean_n1,mean_n2,n_min,test_mse,test_rmse,up_bytes_per_user_phase0,down_bytes_per_user_phase0,up_bytes_per_user_phase1,down_bytes_per_user_phase1,epsilon_spent,drop_phase" > "${DROPOUT_CSV}"
      # MODES:OMEGA:D, the most telling first: the three modes at the same cells, omega's edge
      # (D = omega = 0.3, where about half of the attempts miss n_min), then the rest.
      for cell in {two-phase,two-phase-paper,single}:{0.3:0,0.3:0.2,0.6:0.5} two-phase:0.6:0.3 \
          two-phase:0.3:0.3 {two-phase,two-phase-paper,single}:0.6:0 \
          {two-phase-paper,single}:0.6:0.3 two-phase:{0.3:0.1,0.6:0.1,0.6:0.2}; do
        IFS=: read -r mode omega drop <<< "${cell}"
        dropout "${mode}" "${omega}" "${drop}" 1 all
      done
      for cell in two-phase:{0.3,0.6}:{0.1,0.3}; do
        IFS=: read -r mode omega drop <<< "${cell}"
        dropout "${mode}" "${omega}" "${drop}" 1 1
      done ;;
    *) echo "fmf_lfl.sh: unknown group ${group}" >&2; exit 2 ;;
  esac
done
echo "fmf_lfl.sh: results in ${OUT}/lfl_dropout.csv" >&2
