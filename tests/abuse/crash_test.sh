#!/usr/bin/env bash
# Crash safety: kill -9 the coordinator at random points, 20 times, and restart it on the same port
# and --state_dir while 3 fedmf-client processes keep reconnecting. Usage: crash_test.sh BUILD_DIR.
#  * pbm: 12 kills during a 120-round PBM run at epsilon = 1 (one ledger entry of 1/120 a round).
#    Every restart must resume (event=resume) at the last round the killed process logged as
#    checkpointed, or one later (killed between the atomic rename and its log line), with exactly
#    one ledger entry per round done; the run must end with 120 entries and RDP epsilon 1 (never a
#    round lost or counted twice). A torn checkpoint would stop the restart (DATA_LOSS).
#  * none: 8 kills during a noise-free seeded 60-round run; its model must score like the same
#    run's without kills (not the same bytes: see the comparison below).
# Kill points: a random delay of 0.1-1.5 s after the restart (before the users are back, mid-
# round, ...) or, every third kill, the moment Admin.Status shows stage=checkpoint (persisting);
# at the latest when the run has checkpointed its share of the remaining rounds, so that no run
# ends before its last kill however fast the machine is.
set -euo pipefail
BUILD="$1"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init crash
RANDOM=7  # the kill schedule is reproducible

DATA="synthetic:users=90,items=60,per_user=12,min_per_user=5,seed=3"
# start LOG FLAGS...: a coordinator; sets COORD_PID and PORT (PORT reused when set).
start() {
  local out="$1"
  shift
  start_coordinator "$out" --listen="127.0.0.1:${PORT:-0}" "$@"
}
clients() {
  CLIENT_PIDS=()
  for i in 0 1 2; do
    "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --shard="$i/3" \
      --insecure_noise_seed=5 --give_up_after_s=60 >"$1/client-$i.log" 2>&1 &
    CLIENT_PIDS+=($!)
    PIDS+=($!)
  done
}
# kill_coordinator KIND CAP LOG: kill -9 the coordinator after a random delay (KIND delay) or when
# Admin.Status says stage=checkpoint (KIND checkpoint), and at the latest once LOG shows CAP
# checkpoints.
kill_coordinator() {
  local kind="$1" cap="$2" log="$3"
  local deadline_us=$((${EPOCHREALTIME/./} + 100000 + 1400000 * RANDOM / 32767))
  while kill -0 "$COORD_PID" 2>/dev/null; do
    (($(grep -c ' event=checkpoint ' "$log" || true) >= cap)) && break
    if [[ "$kind" == checkpoint ]]; then
      "$COORD" status --target="127.0.0.1:$PORT" 2>/dev/null | grep -q 'stage=checkpoint' && break
    else
      ((${EPOCHREALTIME/./} >= deadline_us)) && break
      sleep 0.01
    fi
  done
  kill -9 "$COORD_PID" 2>/dev/null || true
}

# crash_loop NAME KILLS ROUNDS FLAGS...: the run in $WORK/NAME with KILLS kills and restarts;
# LOG is the last coordinator log.
crash_loop() {
  local name="$1" kills="$2" rounds="$3" dir="$WORK/$1" killed=0 saved=0 resume done_now cap last
  shift 3
  mkdir -p "$dir"
  local flags=(--eval_data="$DATA" --rounds="$rounds" --participation=0.2 --min_clients=8
    --set=rank=4 --set=item_model=full --set=compression=2 --seed=5 --wait_for_users=90 --stage_timeout_s=5
    --secagg_signatures=false --state_dir="$dir/state" "$@")
  PORT=""
  for ((run = 0; ; run++)); do
    LOG="$dir/coordinator-$run.log"
    start "$LOG" "${flags[@]}"
    ((run == 0)) && clients "$dir"
    if ((run > 0)); then
      resume="$(grep ' event=resume ' "$LOG" || true)"
      done_now="$(field rounds_done "$resume")"
      if ((saved == 0)) && [[ -z "$resume" ]]; then
        done_now=0  # nothing was checkpointed yet: a fresh start is right
      fi
      [[ -n "$done_now" ]] || fail "$name run $run: no resume line after checkpoint $saved"
      ((done_now == saved || done_now == saved + 1)) ||
        fail "$name run $run: resumed at $done_now, last checkpoint logged $saved"
      if [[ "$name" == pbm && -n "$resume" ]]; then
        [[ "$(field ledger_entries "$resume")" == "$done_now" ]] ||
          fail "$name run $run: ledger does not match the rounds: $resume"
      fi
      saved="$done_now"
    fi
    ((killed == kills)) && break
    # This run's share of the rounds left, less a margin for the rounds done while polling.
    cap=$(((rounds - saved - 5) / (kills - killed)))
    ((cap >= 1)) || fail "$name: $rounds rounds are too few for $kills kills"
    if ((killed % 3 == 2)); then
      kill_coordinator checkpoint "$cap" "$LOG"
    else
      kill_coordinator delay "$cap" "$LOG"
    fi
    wait "$COORD_PID" 2>/dev/null || true
    if grep -q 'event=training_end' "$LOG"; then
      fail "$name: training ended after $killed kills; make the run longer"
    fi
    killed=$((killed + 1))
    last="$(grep ' event=checkpoint ' "$LOG" | tail -n 1 || true)"
    [[ -n "$last" ]] && saved="$(field rounds_done "$last")"
    echo "$name: kill $killed after $(grep -c ' event=round .*applied=yes' "$LOG" || true) rounds" \
      "in run $run (checkpoint logged: $saved)"
  done
  wait "$COORD_PID" || fail "$name: the last run failed"
  for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "$name: a client failed"; done
  grep -q "event=training_end rounds=$rounds " "$LOG" || fail "$name: not $rounds rounds"
}

crash_loop pbm 12 120 --set=mechanism=pbm --epsilon=1
final="$(grep ' event=checkpoint ' "$LOG" | tail -n 1)"
[[ "$(field ledger_entries "$final")" == 120 ]] || fail "pbm: final ledger $final"
eps="$(field epsilon_rdp2 "$(grep ' event=round ' "$LOG" | tail -n 1)")"
awk -v e="$eps" 'BEGIN { exit !(e > 0.999 && e <= 1.000001) }' || fail "pbm: epsilon spent $eps"
echo "pbm: 120 rounds, 120 ledger entries, epsilon_rdp2 $eps"

crash_loop none 8 60 --set=mechanism=none
# The same run without kills.
PORT=""
mkdir -p "$WORK/clean"
start "$WORK/clean/coordinator.log" --eval_data="$DATA" --rounds=60 --participation=0.2 \
  --min_clients=8 --set=rank=4 --set=item_model=full --set=compression=2 --seed=5 --wait_for_users=90 \
  --stage_timeout_s=5 --secagg_signatures=false --state_dir="$WORK/clean/state" --set=mechanism=none
clients "$WORK/clean"
wait "$COORD_PID" || fail "clean run failed"
for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "clean: a client failed"; done
# Not byte for byte: each client's quantization draws from one random stream per user, which a
# round cut short by a kill has advanced, so the resumed rounds see other draws (the checkpoints
# differ). The model must be as good: the final test RMSE within 1 % of the clean run's (measured:
# equal to the 6 digits logged).
rmse() { field test_rmse "$(grep ' event=evaluation ' "$1" | tail -n 1)"; }
r_killed="$(rmse "$LOG")"
r_clean="$(rmse "$WORK/clean/coordinator.log")"
awk -v k="$r_killed" -v c="$r_clean" 'BEGIN { d = k - c; exit !(c > 0 && d < 0.01 * c && -d < 0.01 * c) }' ||
  fail "none: test RMSE $r_killed after 8 kills, $r_clean without"
echo "none: final test RMSE $r_killed after 8 kills, $r_clean without kills"
echo "PASS crash_safety"
