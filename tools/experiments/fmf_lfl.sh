#!/usr/bin/env bash
# Reproduces the LFL-SGDMF sections of docs/results/fmf.md on MovieLens 100K (the FMF privacy
# paper's Fig. 10 and its LFL communication): every ML-100K user is a party (943 users), 10% of
# each user's ratings held out (holdout:0.1, seeded by --split_seed), test MSE = test RMSE^2 of the
# final evaluation. One CSV line per run in OUT/lfl.csv; fmf_lfl_summary.py makes the tables.
#
#   tools/experiments/fmf_lfl.sh [--data=PATH] [--out=DIR] [--build=DIR] [--rounds=T]
#                                [--epsilons="0.5 1 2 5"] [--lrs="0.01 0.1"]
#                                [--lrs_none="1 10 100"] [--seeds="2 3 4"]
#                                [--participation=0.1] [--dropout_rounds=3] [GROUP...]
#
# GROUPs (default: baselines tune fig10):
#   baselines  fedmf-central's global-mean, user-mean and popularity (item mean) on the same
#           splits (--seeds);
#   tune    LFL-SGDMF (two-phase noise, omega 0.3) at every budget and every rate of --lrs, and
#           the non-private LFL (--lfl_noise=none) at every rate of --lrs_none, on seed 1 only;
#   fig10   on --seeds (not seed 1, which chose the rates): LFL-SGDMF at each budget with the
#           rate tune found best on seed 1 (lowest test MSE), the non-private LFL likewise,
#           stage 1 only (one round without noise at rate 1e-300, a step below the resolution
#           of V's doubles: the model is V_0 and each user's own fit to it), and GD-DR (ldp-gd-dr, k = 10 rounds
#           at eps / 10 each, the defaults of docs/results/ldp-mf.md);
#   dropout real processes on 127.0.0.1: a fedmf-coordinator and one fedmf-loadgen process
#           holding all 943 users (each its own registered client and stream), a cohort of
#           --participation (default 0.1: 94 users) per round, --dropout_rounds rounds at
#           (1, 1e-5) and the rate tune chose at epsilon 1; each cohort user drops out of a round
#           at SecAgg's MaskedInput with probability D (it cuts its stream, as a crashed device,
#           and re-registers for later rounds): two-phase, two-phase-paper and single at
#           (omega, D) = (0.3, 0), (0.3, 0.2), (0.6, 0.5), (0.6, 0.3), (0.6, 0), two-phase also
#           at (0.3, 0.3), (0.3, 0.1), (0.6, 0.1), (0.6, 0.2); then two-phase with the drops in
#           phase 1 only (fedmf-loadgen --drop_phase=1: phase 0 loses nobody, each of its
#           contributors drops at phase 1's MaskedInput with probability D) at omega in
#           {0.3, 0.6}, D in {0.1, 0.3}; seed 1; one line per run in OUT/lfl_dropout.csv (whether
#           the run completed, rounds applied and failed attempts of either phase, the mean n_1
#           and n_2, test MSE, the ledger's epsilon, bytes per user, the phase that lost users).
# Runs use fedmf-sim with the users' vectors summed in the clear (--plain_sum: the same sum bit
# for bit as SecAgg, tested); runtime_sim_lfl_sgdmf shows fedmf-sim equals the coordinator and
# client processes. The data file defaults to ../shared/data/ml-100k/u.data next to the
# repository; without it the script says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/fmf"
BUILD="${ROOT}/build"
ROUNDS=10
EPSILONS="0.5 1 2 5"
LRS="0.01 0.1"
LRS_NONE="1 10 100"
SEEDS="2 3 4"
PARTICIPATION=0.1
DROPOUT_ROUNDS=3
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --rounds=*) ROUNDS="${arg#--rounds=}" ;;
    --epsilons=*) EPSILONS="${arg#--epsilons=}" ;;
    --lrs=*) LRS="${arg#--lrs=}" ;;
    --lrs_none=*) LRS_NONE="${arg#--lrs_none=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --participation=*) PARTICIPATION="${arg#--participation=}" ;;
    --dropout_rounds=*) DROPOUT_ROUNDS="${arg#--dropout_rounds=}" ;;
    --help|-h) sed -n '2,38p' "$0"; exit 0 ;;
    -*) echo "fmf_lfl.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(baselines tune fig10)
if [[ ! -f "${DATA}" ]]; then
  echo "fmf_lfl.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
SIM="${BUILD}/tools/sim/fedmf-sim"
[[ -x "${SIM}" ]] || { echo "fmf_lfl.sh: ${SIM} missing: build first" >&2; exit 1; }
mkdir -p "${OUT}/logs"
CSV="${OUT}/lfl.csv"
[[ -f "${CSV}" ]] ||
  echo "group,method,epsilon,lr,rounds,seed,test_mse,test_rmse,epsilon_spent,noise_std,wall_s" > "${CSV}"

# field KEY LINE (the value of KEY in an event line), and the process helpers of the dropout group.
source "${ROOT}/tools/lib/processes.sh"

# sim GROUP METHOD EPSILON LR ROUNDS SEED FLAGS...: one fedmf-sim run into the CSV.
sim() {
  local group="$1" method="$2" eps="$3" lr="$4" rounds="$5" seed="$6"
  shift 6
  # A run already in the CSV is kept (the groups resume where they stopped, and a wider grid
  # runs only its new rates).
  grep -q "^${group},${method},${eps},${lr},${rounds},${seed}," "${CSV}" && return 0
  local log="${OUT}/logs/lfl-${group}-${method}-eps${eps}-lr${lr}-T${rounds}-seed${seed}.log"
  echo "== ${group} ${method} eps=${eps} lr=${lr} T=${rounds} seed ${seed}" >&2
  "${SIM}" --data="ml-100k:${DATA}" --split=holdout:0.1 --split_seed="${seed}" --seed="${seed}" \
    --rounds="${rounds}" --evaluate_every="${rounds}" --participation=1 --plain_sum \
    --client_processes=2 "$@" > "${log}" 2>&1 ||
    { echo "fmf_lfl.sh: run failed, see ${log}" >&2; exit 1; }
  local eval summary new_run rmse
  eval="$(grep ' event=evaluation ' "${log}" | tail -n 1)"
  summary="$(grep ' event=sim_summary ' "${log}")"
  new_run="$(grep ' event=new_run ' "${log}")"
  rmse="$(field test_rmse "${eval}")"
  [[ -n "${rmse}" ]] || { echo "fmf_lfl.sh: no test_rmse in ${log}" >&2; exit 1; }
  echo "${group},${method},${eps},${lr},${rounds},${seed},$(awk -v r="${rmse}" 'BEGIN { printf "%.6f", r * r }'),${rmse},$(field epsilon_dp "${summary}"),$(field noise_std "${new_run}"),$(field wall_s "${summary}")" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# lfl GROUP EPSILON LR SEED: LFL-SGDMF, two-phase noise at (EPSILON, 1e-5), or none at EPSILON 0.
lfl() {
  local noise=(--lfl_noise=two-phase --epsilon="$2" --delta=1e-5) method=lfl-sgdmf
  [[ "$2" == 0 ]] && { noise=(--lfl_noise=none); method=lfl-none; }
  sim "$1" "${method}" "$2" "$3" "${ROUNDS}" "$4" --algorithm=lfl-sgdmf --lfl_omega=0.3 \
    --lfl_learning_rate="$3" "${noise[@]}"
}

# best_lr METHOD EPSILON: the rate of the tune group with the lowest seed-1 test MSE.
best_lr() {
  awk -F, -v m="$1" -v e="$2" '
    $1 == "tune" && $2 == m && $3 == e && (best == "" || $7 + 0 < best) { best = $7 + 0; lr = $4 }
    END { if (lr == "") exit 1; print lr }
  ' "${CSV}"
}

# dropout MODE OMEGA D SEED PHASE: one real-process run with injected dropouts into
# lfl_dropout.csv; PHASE is the phase users drop in (0 or 1), or "all" (every phase: a user
# drops out of the whole round, which in practice loses it in phase 0).
dropout() {
  local mode="$1" omega="$2" drop="$3" seed="$4" phase="$5" lr
  lr="$(best_lr lfl-sgdmf 1)" || { echo "fmf_lfl.sh: run tune first" >&2; exit 1; }
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
    --lfl_omega="${omega}" --dropout_fraction="${omega}" --lfl_noise="${mode}" --epsilon=1 \
    --delta=1e-5 --lfl_learning_rate="${lr}" --wait_for_users=943 --stage_timeout_s=120 \
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
    baselines)
      CENTRAL="${BUILD}/tools/fedmf-central"
      [[ -x "${CENTRAL}" ]] || { echo "fmf_lfl.sh: ${CENTRAL} missing: build first" >&2; exit 1; }
      for seed in ${SEEDS}; do
        for model in global-mean user-mean popularity; do
          log="${OUT}/logs/lfl-baselines-${model}-seed${seed}.log"
          "${CENTRAL}" --data="ml-100k:${DATA}" --model="${model}" --split=holdout:0.1 \
            --seed="${seed}" > "${log}" 2>&1 || { echo "fmf_lfl.sh: see ${log}" >&2; exit 1; }
          rmse="$(field rmse "$(grep ' event=fold_done ' "${log}")")"
          echo "baselines,${model},,,,${seed},$(awk -v r="${rmse}" 'BEGIN { printf "%.6f", r * r }'),${rmse},,," >> "${CSV}"
          tail -n 1 "${CSV}" >&2
        done
      done ;;
    tune)
      for lr in ${LRS_NONE}; do lfl tune 0 "${lr}" 1; done
      for eps in ${EPSILONS}; do
        for lr in ${LRS}; do lfl tune "${eps}" "${lr}" 1; done
      done ;;
    fig10)
      for seed in ${SEEDS}; do
        sim fig10 stage1-only 0 1e-300 1 "${seed}" --algorithm=lfl-sgdmf --lfl_noise=none \
          --lfl_learning_rate=1e-300
        lr="$(best_lr lfl-none 0)" || { echo "fmf_lfl.sh: run tune first" >&2; exit 1; }
        lfl fig10 0 "${lr}" "${seed}"
        for eps in ${EPSILONS}; do
          lr="$(best_lr lfl-sgdmf "${eps}")" || { echo "fmf_lfl.sh: run tune first" >&2; exit 1; }
          lfl fig10 "${eps}" "${lr}" "${seed}"
          sim fig10 gd-dr "${eps}" 2 10 "${seed}" --algorithm=ldp-gd-dr --epsilon="${eps}"
        done
      done ;;
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
echo "fmf_lfl.sh: results in ${CSV}" >&2
