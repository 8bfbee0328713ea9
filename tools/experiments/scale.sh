#!/usr/bin/env bash
# Reproduces docs/results/scale.md: fedmf-sim at MovieLens-20M's shape (synthetic:ml-20m, 138,493
# users x 26,744 items, 144 ratings a user), every user every round (--participation=1), in the
# clear (--plain_sum). Every measurement appends "group,dataset,epsilon,metric,value" to
# OUT/runs.csv (logs in OUT/logs/); peak RSS is /usr/bin/time -v's.
#
#   tools/experiments/scale.sh [--out=DIR] [--build=DIR] [--rounds=T] [--users="1000 10000 full"]
#                              [--epsilons="1 5"] [--shape_users=full] [--no_eval] [GROUP...]
#
# --shape_users=N runs the per-user, dpmf, lfl and ldp groups on synthetic:ml-20m,users=N (the
# same catalogue, fewer users) instead of all 138,493; --no_eval skips scoring the model (a run
# of a round or two only times the round).
#
# GROUPs (default: all). Cost on 2 otherwise idle cores, from the CPU time measured in
# docs/results/scale.md (wall time on a loaded machine is a multiple of it); it grows linearly
# with users x rounds: DPMF-RP ~6 ms a user and round with --summed_noise and ~15 ms without
# (full shape: ~7 and ~17 min a round, 2.4 GiB peak; 100 rounds ~11.5 h with summed noise),
# LFL-SGDMF ~80 ms and GD-DR ~85 ms a user and round (~1.5 h a round at the full shape), 0.4
# to 2 GiB at 1,000 users. Data generation adds ~21 s and 1.3 GiB at the full shape.
#   per-user  DPMF-RP Gaussian, epsilon 5, ml-20m, noise drawn by every user (the deployment's
#             path), T rounds: per-round time and peak RSS
#   dpmf      DPMF-RP Gaussian, epsilon 5, ml-20m, --summed_noise, T rounds (--rounds, default
#             100), scored at the end: per-round time, peak RSS, F1@10 and RMSE
#   lfl       LFL-SGDMF, epsilon 5, ml-20m, T rounds (per-user noise: it has no shortcut)
#   ldp       local-DP GD-DR (ldp-gd-dr), epsilon 5, ml-20m, T rounds (local noise is per user)
#   curve     DPMF-RP Gaussian --summed_noise for each --users (synthetic:ml-20m,users=N; "full":
#             all 138,493) at each --epsilons, T rounds, next to popularity (fedmf-central) on the
#             same split
#   popularity  popularity alone for each --users
#   table     the tables, from OUT/runs.csv
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${ROOT}/docs/results/scale"
BUILD="${ROOT}/build"
ROUNDS=100
USERS="1000 10000 full"
EPSILONS="1 5"
SHAPE_USERS=full
EVALUATE=1
GROUPS_SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --rounds=*) ROUNDS="${arg#--rounds=}" ;;
    --users=*) USERS="${arg#--users=}" ;;
    --epsilons=*) EPSILONS="${arg#--epsilons=}" ;;
    --shape_users=*) SHAPE_USERS="${arg#--shape_users=}" ;;
    --no_eval) EVALUATE=0 ;;
    --help|-h) sed -n '2,31p' "$0"; exit 0 ;;
    -*) echo "scale.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) GROUPS_SELECTED+=("${arg}") ;;
  esac
done
[[ ${#GROUPS_SELECTED[@]} -gt 0 ]] || GROUPS_SELECTED=(per-user dpmf lfl ldp curve table)
source "${ROOT}/tools/lib/processes.sh"  # field KEY LINE

SIM="${BUILD}/tools/sim/fedmf-sim"
CENTRAL="${BUILD}/tools/fedmf-central"
for bin in "${SIM}" "${CENTRAL}"; do
  [[ -x "${bin}" ]] || { echo "scale.sh: ${bin} missing: build first" >&2; exit 1; }
done
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"
[[ -f "${CSV}" ]] || echo "group,dataset,epsilon,metric,value" > "${CSV}"

# record GROUP DATASET EPSILON METRIC VALUE
record() {
  [[ -n "$5" ]] || { echo "scale.sh: no $4 for $1 $2 epsilon $3 (see ${OUT}/logs)" >&2; exit 1; }
  echo "$1,$2,$3,$4,$5" >> "${CSV}"
  echo "$1 $2 epsilon $3: $4 = $5" >&2
}

spec_of() { if [[ "$1" == full ]]; then echo synthetic:ml-20m; else echo "synthetic:ml-20m,users=$1"; fi; }

# sim GROUP DATASET EPSILON ROUNDS FLAGS...: one fedmf-sim run under /usr/bin/time -v; records its
# setup and per-round seconds, peak RSS and (when it scored the model) F1@10 and RMSE.
sim() {
  local group="$1" dataset="$2" epsilon="$3" rounds="$4" log line evaluate_every=0
  shift 4
  [[ "${EVALUATE}" == 1 ]] && evaluate_every="${rounds}"
  log="${OUT}/logs/${group}-${dataset}-eps${epsilon}.log"
  /usr/bin/time -v nice -n 10 "${SIM}" --data="$(spec_of "${dataset}")" --epsilon="${epsilon}" \
    --rounds="${rounds}" --participation=1 --plain_sum --client_processes=2 --eval_every=0 \
    --evaluate_every="${evaluate_every}" "$@" > "${log}" 2>&1
  line="$(grep ' event=sim_summary ' "${log}" | tail -n 1)"
  record "${group}" "${dataset}" "${epsilon}" rounds "$(field rounds "${line}")"
  record "${group}" "${dataset}" "${epsilon}" s_per_round "$(field s_per_round "${line}")"
  record "${group}" "${dataset}" "${epsilon}" peak_rss_mib \
    "$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "${log}" | awk '{printf "%d", $1 / 1024}')"
  line="$(grep ' event=evaluation ' "${log}" | tail -n 1 || true)"
  if [[ -n "${line}" ]]; then
    record "${group}" "${dataset}" "${epsilon}" f1_10 "$(field f1_10 "${line}")"
    record "${group}" "${dataset}" "${epsilon}" rmse "$(field test_rmse "${line}")"
  fi
}

# popularity DATASET: fedmf-central's popularity F1@10 on the simulations' split (holdout:0.2,
# split seed 1).
popularity() {
  local log="${OUT}/logs/popularity-$1.log" line
  nice -n 10 "${CENTRAL}" --data="$(spec_of "$1")" --model=popularity --split=holdout:0.2 \
    --seed=1 > "${log}" 2>&1
  line="$(grep ' event=fold_done ' "${log}" | tail -n 1)"
  record popularity "$1" 0 f1_10 "$(field f1 "${line}")"
}

for GROUP in "${GROUPS_SELECTED[@]}"; do
  case "${GROUP}" in
    per-user) sim per-user "${SHAPE_USERS}" 5 "${ROUNDS}" --mechanism=gaussian ;;
    dpmf) sim dpmf "${SHAPE_USERS}" 5 "${ROUNDS}" --mechanism=gaussian --summed_noise ;;
    lfl) sim lfl "${SHAPE_USERS}" 5 "${ROUNDS}" --algorithm=lfl-sgdmf ;;
    ldp) sim ldp "${SHAPE_USERS}" 5 "${ROUNDS}" --algorithm=ldp-gd-dr ;;
    curve)
      for users in ${USERS}; do
        popularity "${users}"
        for epsilon in ${EPSILONS}; do
          sim curve "${users}" "${epsilon}" "${ROUNDS}" --mechanism=gaussian --summed_noise
        done
      done ;;
    popularity) for users in ${USERS}; do popularity "${users}"; done ;;
    table) python3 "${ROOT}/tools/experiments/scale_table.py" "${CSV}" ;;
    *) echo "scale.sh: unknown group ${GROUP}" >&2; exit 2 ;;
  esac
done
