#!/usr/bin/env bash
# Client cost per user per round of DP-ALS next to DPMF-RP, over real processes with SecAgg
# (docs/results/privacy-utility.md, "Cost"): a fedmf-coordinator and ONE fedmf-client process
# hosting the first USERS users of MovieLens 100K (every item), ROUNDS rounds of each algorithm with
# every user in every round, at whole-run (5, 1e-5)-DP; then
#   client CPU s / user / round = (user + system CPU of the client process) / (USERS ROUNDS)
#   bytes up / user / round     = the coordinator's up_bytes_per_user (serialized messages: SecAgg
#                                 keys, shares and the masked input), mean over the rounds
# The client's CPU includes SecAgg (X25519, AES-CTR masks, Shamir shares over USERS - 1 neighbours),
# the same for both algorithms at equal USERS; the algorithms differ in local solve, noise sampling
# and vector length. Usage:
#   tools/experiments/dpals-cost.sh [--build=DIR] [--data=PATH/u.data] [--users=100] [--rounds=2]
#       [DPALS_FLAGS...]
# DPALS_FLAGS are added to DP-ALS's run (its measured settings); DPMF-RP runs its default
# (configs/dpmf-rp/fedmf.textproto: Gaussian, full item model) with --participation=1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${ROOT}/build"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
USERS=100
ROUNDS=2
EXTRA=()
for arg in "$@"; do
  case "${arg}" in
    --build=*) BUILD="${arg#--build=}" ;;
    --data=*) DATA="${arg#--data=}" ;;
    --users=*) USERS="${arg#--users=}" ;;
    --rounds=*) ROUNDS="${arg#--rounds=}" ;;
    --help|-h) sed -n '2,17p' "$0"; exit 0 ;;
    *) EXTRA+=("${arg}") ;;
  esac
done
[[ -f "${DATA}" ]] || { echo "dpals-cost.sh: ${DATA} not found; skipping"; exit 0; }
COORD="${BUILD}/server/fedmf-coordinator"
CLIENT="${BUILD}/client/fedmf-client"
source "${ROOT}/tools/lib/processes.sh"
processes_init dpals-cost
awk -v n="${USERS}" '$1 <= n' "${DATA}" >"${WORK}/u.data"
data="ml-100k:${WORK}/u.data"

# measure NAME FLAGS...: one run; prints NAME, client CPU s / user / round, bytes up / user / round.
measure() {
  local name="$1"
  shift
  start_coordinator "${WORK}/${name}-coordinator.log" --listen=127.0.0.1:0 --eval_data="${data}" \
    --split=holdout:0.2 --rounds="${ROUNDS}" --seed=1 --eval_every=0 --epsilon=5 --delta=1e-5 \
    --wait_for_users="${USERS}" --stage_timeout_s=600 --state_dir="${WORK}/${name}" "$@"
  /usr/bin/time -f "%U %S" -o "${WORK}/${name}-time" "${CLIENT}" --coordinator="127.0.0.1:${PORT}" \
    --data="${data}" --give_up_after_s=60 >"${WORK}/${name}-client.log" 2>&1 &
  local client=$!
  PIDS+=("${client}")
  wait "${COORD_PID}" || fail "${name}: coordinator failed"
  wait "${client}" || fail "${name}: client failed"
  grep -q "event=training_end rounds=${ROUNDS} " "${WORK}/${name}-coordinator.log" ||
    fail "${name}: not ${ROUNDS} rounds"
  awk -v name="${name}" -v users="${USERS}" -v rounds="${ROUNDS}" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    FILENAME ~ /-time$/ { cpu = $1 + $2; next }
    / event=round .*applied=yes / { up += val("up_bytes_per_user"); n++ }
    END { printf "%s client_cpu_s_per_user_round=%.4f up_bytes_per_user_round=%d\n", name, cpu / (users * rounds), up / n }
  ' "${WORK}/${name}-time" "${WORK}/${name}-coordinator.log"
}

measure dp-als --algorithm=dp-als ${EXTRA[@]+"${EXTRA[@]}"}
measure dpmf-rp --config="${ROOT}/configs/dpmf-rp/fedmf.textproto" --algorithm=dpmf-rp \
  --participation=1
