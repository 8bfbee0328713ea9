#!/usr/bin/env bash
# The FMF privacy paper's Fig. 2 on MovieLens 100K (n = 943 users, m = 1682 items, p = 20): bytes
# per party per synchronization, measured from the serialized messages of real processes on
# 127.0.0.1 (the coordinator's event=round lines: each stage's bytes over the cohort), next to
# the paper's formulas (fmf_lfl_summary.py puts them side by side).
#
#   tools/experiments/fmf_comm.sh [--data=PATH] [--out=DIR] [--build=DIR] [ALGORITHM...]
#
# ALGORITHMs (default: vfl hfl lfl): the rows of OUT/comm.csv measured anew; the others' rows
# are kept. VFL-SGDMF and HFL-SGDMF: a coordinator and S fedmf-client --party processes
# (fmf_party_run.sh) for S in 2 5 10, T = 3 syncs of T' = 10 local steps at epsilon 1 (VFL per
# rating, HFL per user); one VFL sync uploads U^(k) (n x p) through SecAgg and downloads U, one
# HFL sync uploads V^(k) (m x p) and downloads V (its round 0 also runs stage 1, its last round
# stage 3, at the parties: no extra messages). LFL-SGDMF: the dropout-free two-phase run of `fmf_lfl.sh dropout` (omega 0.3,
# D = 0, its coordinator log in OUT/logs; run that group first), whose rounds are one sync each,
# in two SecAgg phases of m x p. Rows of OUT/comm.csv: one per algorithm, party count and phase,
# and vector length (VFL's last round sums the parties' test errors: 2 values), the mean over
# the applied dropout-free rounds (HFL's last round sums the parties' test errors: 3 values).
# Without the data file the script says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/fmf"
BUILD="${ROOT}/build"
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --help|-h) sed -n '2,22p' "$0"; exit 0 ;;
    vfl|hfl|lfl) SELECTED+=("${arg}") ;;
    *) echo "fmf_comm.sh: unknown argument ${arg}" >&2; exit 2 ;;
  esac
done
if [[ ! -f "${DATA}" ]]; then
  echo "fmf_comm.sh: ${DATA} not found: MovieLens 100K is needed (pass --data=PATH/u.data); skipping"
  exit 0
fi
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(vfl hfl lfl)
mkdir -p "${OUT}/logs"
CSV="${OUT}/comm.csv"
HEADER="algorithm,parties,phase,rounds,length,bits,up_masked_input,up_total,down_task,down_total"
# Keep the rows of the algorithms not measured now.
kept="$( (grep -vE "^($(IFS='|'; echo "${SELECTED[*]}"))-sgdmf," "${CSV}" 2>/dev/null || true) |
  grep -v '^algorithm,' || true)"
{ echo "${HEADER}"; [[ -z "${kept}" ]] || echo "${kept}"; } > "${CSV}"
selected() { [[ " ${SELECTED[*]} " == *" $1 "* ]]; }

# mean_traffic ALGORITHM PARTIES LOG: one CSV line per phase and length, the per-party bytes of LOG's applied
# dropout-free rounds averaged.
mean_traffic() {
  awk -v alg="$1" -v parties="$2" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    / event=round / && val("applied") == "yes" && val("dropouts") == 0 {
      k = val("phase") "," val("length"); if (!(k in n)) order[++keys] = k
      n[k]++; bits[k] = val("bits")
      mi[k] += val("up_bytes_per_user_masked_input"); up[k] += val("up_bytes_per_user")
      task[k] += val("down_bytes_per_user_task"); down[k] += val("down_bytes_per_user")
    }
    END {
      for (i = 1; i <= keys; i++) {
        k = order[i]; split(k, pl, ",")
        printf "%s,%s,%s,%d,%s,%s,%.0f,%.0f,%.0f,%.0f\n", alg, parties, pl[1], n[k], pl[2], bits[k],
          mi[k] / n[k], up[k] / n[k], task[k] / n[k], down[k] / n[k]
      }
    }' "$3" >> "${CSV}"
}

# The party algorithms: PARTITION UNIT LEARNING_RATE (the rate does not change the bytes).
for run in "vfl rating 0.001" "hfl user 0.003"; do
  read -r partition unit lr <<<"${run}"
  selected "${partition}" || continue
  for parties in 2 5 10; do
    echo "== ${partition}-sgdmf s=${parties}" >&2
    "${ROOT}/tools/experiments/fmf_party_run.sh" "${BUILD}" "${DATA}" "${OUT}/logs" "${partition}" \
      "${parties}" 3 10 "${unit}" 1 "${lr}" 1 > /dev/null
    mean_traffic "${partition}-sgdmf" "${parties}" \
      "${OUT}/logs/${partition}-s${parties}-T3x10-${unit}-eps1-lr${lr}-seed1-coordinator.log"
  done
done
if selected lfl; then
  LFL_LOG="$(ls "${OUT}"/logs/lfl-dropout-two-phase-omega0.3-d0-seed1-coordinator.log 2>/dev/null || true)"
  [[ -n "${LFL_LOG}" ]] ||
    { echo "fmf_comm.sh: no LFL dropout-free log in ${OUT}/logs: run fmf_lfl.sh dropout first" >&2; exit 1; }
  cohort="$(sed -n 's/.* event=new_run .* cohort=\([0-9]*\) .*/\1/p' "${LFL_LOG}")"
  mean_traffic lfl-sgdmf "${cohort}" "${LFL_LOG}"
fi
cat "${CSV}" >&2
