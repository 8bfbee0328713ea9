#!/usr/bin/env bash
# Reproduces "PriviRec-k on Gowalla" in docs/results/privirec.md: fedmf-sim (plain sum, sparse
# contributions, all 29,858 users) with --algorithm=privirec-k on LightGCN's Gowalla split, one run
# per K:L:RR given (RR: rr = Rayleigh-Ritz eigenvalues, diag = the paper's diag(T_L)), one after
# the other, each under `flock /work/bigmem.lock` (runs that may take several GB never overlap)
# and `/usr/bin/time -v`; a stage deadline of an hour, since a power phase uploads d_u k values
# a user (k = 256: 73 KB a user, 2.2 GB in all, minutes in-process, not the default 20 s). Every run appends one line to OUT/privirec-k.csv (Recall@20, NDCG@20,
# wall seconds and peak RSS from /usr/bin/time); its log goes to OUT/logs/privirec-k-K-L-RR.log.
#
#   tools/experiments/privirec-k.sh [--data=DIR] [--out=DIR] [--build=DIR]
#                                   [--max_plan_bytes=BYTES] [K:L:RR ...]
#
# Default runs: every k in 256 512 1024 2048 3584, L in 2 3, rr and diag, smaller k first. DIR
# defaults to ../shared/data/gowalla next to the repository; without DIR/train.txt and
# DIR/test.txt the script says so and exits 0. The lock file is --lock=FILE (default
# /work/bigmem.lock; an empty value runs without one). The plan broadcasts the items' k-column
# iterate (40,981 k doubles: 1.18 GB at k = 3584, above the wire's default 1 GiB bound), so every
# run passes fedmf-sim --max_plan_bytes=BYTES, default 2147483647 (protobuf's limit: k <= 6,546).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/gowalla"
OUT="${ROOT}/docs/results/privirec"
BUILD="${ROOT}/build"
LOCK="/work/bigmem.lock"
MAX_PLAN_BYTES=2147483647
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --lock=*) LOCK="${arg#--lock=}" ;;
    --max_plan_bytes=*) MAX_PLAN_BYTES="${arg#--max_plan_bytes=}" ;;
    --help|-h) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "privirec-k.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
if [[ ${#SELECTED[@]} -eq 0 ]]; then
  for k in 256 512 1024 2048 3584; do
    for l in 2 3; do SELECTED+=("${k}:${l}:rr" "${k}:${l}:diag"); done
  done
fi
for file in train.txt test.txt; do
  if [[ ! -f "${DATA}/${file}" ]]; then
    echo "privirec-k.sh: ${DATA}/${file} not found: LightGCN's Gowalla split is needed" \
         "(pass --data=DIR holding train.txt and test.txt); skipping"
    exit 0
  fi
done
SIM="${BUILD}/tools/sim/fedmf-sim"
[[ -x "${SIM}" ]] || { echo "privirec-k.sh: ${SIM} missing: build first" >&2; exit 1; }
mkdir -p "${OUT}/logs"
CSV="${OUT}/privirec-k.csv"
[[ -f "${CSV}" ]] || echo "k,L,eigenvalues,recall20,ndcg20,wall_s,peak_rss_mib" > "${CSV}"
LOCKED=()
[[ -z "${LOCK}" ]] || LOCKED=(flock "${LOCK}")

# value KEY LINE: the value of KEY=... in an event line.
value() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }

for run in "${SELECTED[@]}"; do
  IFS=: read -r k l rr <<< "${run}"
  case "${rr}" in
    rr) ritz=true ;;
    diag) ritz=false ;;
    *) echo "privirec-k.sh: ${run}: the third field is rr or diag" >&2; exit 2 ;;
  esac
  log="${OUT}/logs/privirec-k-${k}-${l}-${rr}.log"
  echo "== k=${k} L=${l} ${rr} (log: ${log})" >&2
  ${LOCKED[@]+"${LOCKED[@]}"} /usr/bin/time -v "${SIM}" \
    --data="user-items:${DATA}/train.txt?test=${DATA}/test.txt" --split=predefined \
    --algorithm=privirec-k --set=rank="${k}" --set=power_sums="${l}" \
    --set=rayleigh_ritz="${ritz}" --rounds=1 --plain_sum --eval_every=0 --seed=1 \
    --stage_timeout_s=3600 --max_plan_bytes="${MAX_PLAN_BYTES}" > "${log}" 2>&1
  evaluation=$(grep ' event=evaluation round=1 ' "${log}" | tail -n 1)
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "${log}" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; ++i) s = s * 60 + $i; print s }')
  rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "${log}")
  printf '%s,%s,%s,%s,%s,%s,%s\n' "${k}" "${l}" "${rr}" \
    "$(value recall20 "${evaluation}")" "$(value ndcg20 "${evaluation}")" "${wall}" \
    "$((rss_kb / 1024))" | tee -a "${CSV}"
done
