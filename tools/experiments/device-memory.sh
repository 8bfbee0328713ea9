#!/usr/bin/env bash
# What one device holds to use a published model: a fedmf-coordinator serves the final model of a
# finished run from its state directory (--serve: a run already done only serves), and one device,
# the C example on the mobile library (client/example/fedmf_c_example.c), checks in for it
# (--model_only), downloads it, builds the algorithm's scorer and recommends its top 5. The
# device's peak RSS (/usr/bin/time's %M) is its memory for that model: the download buffer, the
# parsed model and the scorer built from it.
#
# Usage: tools/experiments/device-memory.sh BUILD STATE_DIR NUM_ITEMS RATINGS [FLAG...]
#   STATE_DIR  the finished run's --state_dir (fedmf-sim's or fedmf-coordinator's)
#   RATINGS    the device's ratings as the C example takes them, ITEM:RATING,...
#   FLAG...    the run's flags, for the coordinator to resume its checkpoint, with --num_users and
#              --num_items (e.g. --algorithm=privirec-k --set=rank=1024 --num_users=29858
#              --num_items=40981); fedmf-sim's own --data, --split, --plain_sum and
#              --client_processes are dropped (without --eval_data the coordinator does not score
#              the model again before it serves it)
# Prints the device's event lines and event=device_memory max_rss_kb=N model_bytes=B wall_s=S.
set -euo pipefail
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then sed -n '2,17p' "$0"; exit 0; fi
[[ $# -ge 4 ]] || { sed -n '2,17p' "$0" >&2; exit 2; }
BUILD="$1" STATE="$2" ITEMS="$3" RATINGS="$4"
shift 4
COORD="$BUILD/server/fedmf-coordinator"
EXAMPLE="$BUILD/client/fedmf-c-example"
source "$(dirname "$0")/../lib/processes.sh"
processes_init device-memory
flags=()
for flag in "$@"; do
  case "$flag" in
    --plain_sum | --client_processes=* | --data=* | --split=*) ;;
    *) flags+=("$flag") ;;
  esac
done
start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --state_dir="$STATE" --serve \
  "${flags[@]}"
# Restoring a large checkpoint takes a while: bounded by the coordinator staying alive.
until grep -q 'event=serving_models ' "$WORK/coordinator.log"; do
  kill -0 "$COORD_PID" 2>/dev/null || fail "the coordinator exited: $(tail -n 3 "$WORK/coordinator.log")"
  sleep 1
done
/usr/bin/time -f 'event=time max_rss_kb=%M wall_s=%e' "$EXAMPLE" \
  --coordinator="127.0.0.1:$PORT" --id=1 --num_items="$ITEMS" --ratings="$RATINGS" --model_only \
  --give_up_after_s=600 >"$WORK/device.log" 2>&1 || fail "the device failed"
grep -q 'event=c_example_end .*top5=[0-9]' "$WORK/device.log" || fail "the device did not recommend"
grep 'event=c_example' "$WORK/device.log"
time_line="$(grep 'event=time ' "$WORK/device.log")"
model_bytes="$(sed -n 's/.*event=serving_models .*latest_bytes=\([0-9]*\).*/\1/p' \
  "$WORK/coordinator.log" | tail -n 1)"
echo "event=device_memory max_rss_kb=$(field max_rss_kb "$time_line") model_bytes=${model_bytes:-unknown} wall_s=$(field wall_s "$time_line")"
