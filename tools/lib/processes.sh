# shellcheck shell=bash
# Shared by the scripts that start fedmf processes (integration tests, load tests): a work
# directory removed on exit, every started pid killed on exit, failure reports with the newest
# logs, and a coordinator's port read off its log. Source it after `set -euo pipefail`, set COORD
# (the fedmf-coordinator binary) and call `processes_init NAME`. KEEP=DIR: work in DIR and keep it.

# processes_init NAME: WORK (a fresh /tmp/fedmf-NAME.* directory, or $KEEP), PIDS, the exit trap.
processes_init() {
  if [[ -n "${KEEP:-}" ]]; then
    WORK="$KEEP"
    mkdir -p "$WORK"
  else
    WORK="$(mktemp -d "/tmp/fedmf-$1.XXXXXX")"
  fi
  PIDS=()
  trap processes_cleanup EXIT
}

# A script may define processes_before_remove (e.g. to unmount what it mounted under WORK); it
# runs after the processes are gone. --one-file-system: rm never follows a mount left in WORK.
processes_cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if declare -F processes_before_remove >/dev/null; then processes_before_remove; fi
  [[ -n "${KEEP:-}" ]] || rm -rf --one-file-system "$WORK"
}

# fail MESSAGE...: prints it and the tails of the 12 newest logs under WORK to stderr, exits 1.
fail() {
  {
    echo "FAIL: $*"
    local f
    while read -r f; do
      echo "--- $f"
      tail -n 25 "$f"
    done < <(find "$WORK" -name '*.log' -printf '%T@ %p\n' 2>/dev/null | sort -rn | head -n 12 |
      cut -d' ' -f2-)
  } >&2
  exit 1
}

# require_open_files N: exits 77 (CTest: skipped) when the open-file hard limit is below N (the
# binaries raise their soft limit themselves).
require_open_files() {
  if [[ "$(ulimit -Hn)" != unlimited ]] && (($(ulimit -Hn) < $1)); then
    echo "SKIP: open-file hard limit $(ulimit -Hn) is below $1; raise ulimit -Hn"
    exit 77
  fi
}

# cpu_s PID: the process's user + system CPU seconds so far; peak_rss PID: its peak resident set
# (VmHWM, e.g. "171234 kB"). Both empty once it is gone.
cpu_s() {
  awk -v t="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / t }' \
    "/proc/$1/stat" 2>/dev/null || true
}
peak_rss() { sed -n 's/^VmHWM:\s*//p' "/proc/$1/status" 2>/dev/null || true; }

# field KEY LINE: the value of KEY in an event line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# wait_listening LOG PID: sets PORT from the coordinator's event=listening line in LOG; fails if
# PID exits first or nothing is logged within LISTEN_TIMEOUT_S (default 30) seconds.
wait_listening() {
  local log="$1" pid="$2"
  PORT=""
  for _ in $(seq 1 $((${LISTEN_TIMEOUT_S:-30} * 20))); do
    # The log may not exist yet: a background job opens its redirection after the fork.
    PORT="$(sed -n 's/.*event=listening .*port=\([0-9]*\).*/\1/p' "$log" 2>/dev/null || true)"
    [[ -n "$PORT" ]] && return 0
    kill -0 "$pid" 2>/dev/null || fail "coordinator exited: $(tail -n 3 "$log")"
    sleep 0.05
  done
  fail "coordinator did not listen within ${LISTEN_TIMEOUT_S:-30} s"
}

# wait_for LOG REGEX SECONDS [COUNT]: waits until COUNT (default 1) lines of LOG match REGEX; fails
# after SECONDS.
wait_for() {
  local count="${4:-1}" matched
  for _ in $(seq 1 $(($3 * 20))); do
    matched="$(grep -cE "$2" "$1" 2>/dev/null)" || matched=0
    ((matched >= count)) && return 0
    sleep 0.05
  done
  fail "fewer than $count lines matching '$2' in $1 within $3 s"
}

# DPMF-RP's paper options (PBM column_l1, compressed item model, a tenth of the users per round,
# --epsilon as RDP at order 2), which the runtime, abuse and load scripts were written against.
DPMF_RP_PAPER="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../configs/dpmf-rp" && pwd)/paper.textproto"

# paper_config FLAGS...: prints --config=$DPMF_RP_PAPER when FLAGS start a dpmf-rp run (no
# --algorithm, or --algorithm=dpmf-rp) and name no --config (nor an older build's --preset) nor
# --run (a RunSpec file, the whole run) nor --service (whose runs are submitted).
paper_config() {
  local arg
  for arg in "$@"; do
    case "$arg" in
      --algorithm=dpmf-rp) ;;
      --algorithm=* | --config=* | --preset=* | --run=* | --service) return 0 ;;
    esac
  done
  echo "--config=$DPMF_RP_PAPER"
}

# start_coordinator LOG FLAGS...: $COORD FLAGS in the background (output to LOG); sets COORD_PID
# and PORT. A dpmf-rp coordinator starts from the paper options (paper_config); FLAGS override
# them (--set=FIELD=VALUE, --delta=1e-5).
start_coordinator() {
  local log="$1"
  shift
  : >"$log"
  local config
  mapfile -t config < <(paper_config "$@")
  "$COORD" ${config[@]+"${config[@]}"} "$@" >"$log" 2>&1 &
  COORD_PID=$!
  PIDS+=("$COORD_PID")
  wait_listening "$log" "$COORD_PID"
}
