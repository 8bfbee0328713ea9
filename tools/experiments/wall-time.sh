#!/usr/bin/env bash
# Wall time of a whole DPMF-RP training over real processes on loopback: one fedmf-coordinator and
# CLIENTS fedmf-client processes hosting every MovieLens 100K user (user u in process u % CLIENTS),
# secure aggregation on, and the seconds per SecAgg stage summed over the rounds' event=round lines.
#
#   tools/experiments/wall-time.sh [--data=PATH] [--build=DIR] [--clients=8] [-- COORDINATOR FLAGS]
#
# Default coordinator flags: fedmf's settings at the paper's cohort (beta = 0.1, 94 users a round,
# the complete SecAgg graph), 100 rounds, rotated_l2 PBM, whole-run RDP epsilon 100.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
BUILD="${ROOT}/build"
CLIENTS=8
FLAGS=(--rounds=100 --participation=0.1 --set=mechanism=pbm --set=pbm_geometry=rotated_l2
       --set=pbm_clip_multiplier=2 --set=item_model=full --set=compression=3 --set=mu=0.01 --set=learning_rate=0.2
       --epsilon=100 --eval_every=0 --stage_timeout_s=120)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --data=*) DATA="${1#--data=}" ;;
    --build=*) BUILD="${1#--build=}" ;;
    --clients=*) CLIENTS="${1#--clients=}" ;;
    --help|-h) sed -n '2,9p' "$0"; exit 0 ;;
    --) shift; FLAGS=("$@"); break ;;
    *) echo "wall-time.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if [[ ! -f "${DATA}" ]]; then
  echo "wall-time.sh: ${DATA} not found: MovieLens 100K is needed (--data=PATH/u.data); skipping"
  exit 0
fi
COORD="${BUILD}/server/fedmf-coordinator"
CLIENT="${BUILD}/client/fedmf-client"
# The logs are kept for inspection (KEEP: see tools/lib/processes.sh).
KEEP="${KEEP:-$(mktemp -d /tmp/fedmf-wall.XXXXXX)}"
source "${ROOT}/tools/lib/processes.sh"
processes_init wall
trap 'exit 130' INT TERM

start=$(date +%s.%N)
LISTEN_TIMEOUT_S=60 start_coordinator "${WORK}/coordinator.log" --listen=127.0.0.1:0 \
  --eval_data="ml-100k:${DATA}" --wait_for_users=943 "${FLAGS[@]}"
for i in $(seq 0 $((CLIENTS - 1))); do
  "${CLIENT}" --coordinator="127.0.0.1:${PORT}" --data="ml-100k:${DATA}" --shard="${i}/${CLIENTS}" \
    --top_n=0 > "${WORK}/client-${i}.log" 2>&1 &
  PIDS+=($!)
done
for pid in "${PIDS[@]}"; do wait "${pid}"; done
end=$(date +%s.%N)
echo "logs: ${WORK}"
awk -v wall="$(echo "${end} - ${start}" | bc)" -v clients="${CLIENTS}" '
  function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
  / event=round / { n++; for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] ~ /_s$/) s[kv[1]] += kv[2] } }
  / event=evaluation / { last = $0 }
  END {
    printf "client_processes=%d rounds=%d wall_s=%.1f s_per_round=%.2f\n", clients, n, wall, wall / n
    for (k in s) printf "  %s total=%.1f per_round=%.3f\n", k, s[k], s[k] / n
    print "final: " last
  }' "${WORK}/coordinator.log"
