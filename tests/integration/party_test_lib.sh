# shellcheck shell=bash
# Shared by the cross-silo FMF integration tests (vfl_sgdmf_test.sh, hfl_sgdmf_test.sh): party
# processes, the coordinator's applied rounds, the kill-and-restart cases and fedmf-sim's equal run.
# Source it after tools/lib/processes.sh, with CLIENT, DATA, SPLIT (array), SEED and KIND (vfl or
# hfl) set, and SIM for sim_equals.

# start_party I S LOG [flags]: fedmf-client --party=KIND:I/S; pid in PARTY_PID.
start_party() {
  local i="$1" s="$2" log="$3"
  shift 3
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" "${SPLIT[@]}" --party="$KIND:$i/$s" \
    --top_n=0 --give_up_after_s=60 "$@" >"$log" 2>&1 &
  PARTY_PID=$!
  PIDS+=($!)
}

# applied ROUND: the coordinator's event=round lines of ROUND that were applied.
applied() { grep -cE " event=round round=$1 phase=0 .*applied=yes" "$WORK/coordinator.log" || true; }

# finished ROUNDS: waits for the coordinator's exit and checks its training_end line.
finished() {
  wait "$COORD_PID" || fail "coordinator failed"
  grep -q "event=training_end rounds=$1 .*test_mse=" "$WORK/coordinator.log" ||
    fail "no training_end after $1 rounds with a test_mse"
  for ((r = 0; r < $1; r++)); do
    [[ "$(applied $r)" == 1 ]] || fail "round $r applied $(applied $r) times"
  done
}

# kill_party_1 STATE_DIR COORDINATOR_FLAGS...: a coordinator of 2 parties for 300 rounds (a few
# seconds: the kill, once round 2 is applied, lands long before the end); party 1 is killed -9
# and restarted on STATE_DIR.
kill_party_1() {
  local state_dir="$1"
  shift
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "$@" --rounds=300 \
    --wait_for_users=2
  start_party 0 2 "$WORK/party-0.log" --state_dir="$WORK/party-0"
  start_party 1 2 "$WORK/party-1.log" --state_dir="$WORK/party-1"
  wait_for "$WORK/coordinator.log" " event=round round=2 phase=0 .*applied=yes" 120
  kill -9 "$PARTY_PID"
  wait "$PARTY_PID" 2>/dev/null || true
  start_party 1 2 "$WORK/party-1-restarted.log" --state_dir="$state_dir"
}

# kill_resume COORDINATOR_FLAGS...: party 1 restarted on its own state takes part in the later
# rounds and the run completes, every round applied once.
kill_resume() {
  kill_party_1 "$WORK/party-1" "$@"
  finished 300
  # Every round needs both parties: the rounds after the restart are the restarted party's.
  local joined
  joined="$(field coordinator_round "$(grep ' event=registered ' "$WORK/party-1-restarted.log")")"
  ((joined < 299)) || fail "the restarted party joined at round $joined, after the training"
  ! grep -qE "lost rounds|has no state" "$WORK"/party-*.log || fail "a party lost its state"
  echo "resumed at round $joined;" \
    "$(grep -c ' event=round .*applied=no' "$WORK/coordinator.log" || true) retried"
}

# state_lost COORDINATOR_FLAGS...: party 1 restarted without its state refuses to contribute.
state_lost() {
  kill_party_1 "$WORK/party-1-fresh" "$@"
  wait_for "$WORK/party-1-restarted.log" "has no state for round" 120
  echo "refused: $(grep -o 'has no state for round [0-9]*' "$WORK/party-1-restarted.log" | head -n 1)"
}

# sim_equals S ROUNDS COORDINATOR_FLAGS...: the same seeded run (a) through fedmf-coordinator and S
# fedmf-client --party=KIND:I/S processes keyed by --insecure_noise_seed=SEED and (b) in fedmf-sim
# --parties=KIND:S (SIM, the binary; its parties keyed by --seed=SEED) must end with
# byte-identical checkpoints (model, ledger, rounds). fedmf-sim reads --data for the
# coordinator's --eval_data.
sim_equals() {
  local s="$1" rounds="$2"
  shift 2
  local sim_flags=() flag
  for flag in "$@"; do [[ "$flag" == --eval_data=* ]] || sim_flags+=("$flag"); done
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "$@" --seed="$SEED" \
    --rounds="$rounds" --wait_for_users="$s" --state_dir="$WORK/net"
  local i
  for ((i = 0; i < s; i++)); do
    start_party "$i" "$s" "$WORK/party-$i.log" --insecure_noise_seed="$SEED"
  done
  finished "$rounds"
  "$SIM" --data="$DATA" "${sim_flags[@]}" --seed="$SEED" --rounds="$rounds" --parties="$KIND:$s" \
    --state_dir="$WORK/sim" >"$WORK/sim.log" 2>&1 || fail "fedmf-sim failed"
  grep -q " event=sim_start .* parties=$KIND:$s " "$WORK/sim.log" || fail "sim: not $s parties"
  grep -q "event=training_end rounds=$rounds " "$WORK/sim.log" || fail "sim: not $rounds rounds"
  cmp "$WORK/sim/checkpoint.pb" "$WORK/net/checkpoint.pb" || fail "checkpoints differ"
  echo "checkpoints identical ($(stat -c %s "$WORK/sim/checkpoint.pb") bytes);" \
    "sim $(field wall_s "$(grep ' event=sim_summary ' "$WORK/sim.log")") s"
}
