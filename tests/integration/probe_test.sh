#!/usr/bin/env bash
# The algorithm contract v2 through real processes: a fedmf-coordinator and fedmf-client processes
# on 127.0.0.1 running the test-only contract probe (common/algorithms/probe/probe.h), whose run
# fails when the runtime breaks a capability. Usage: probe_test.sh BUILD_DIR CASE, CASE one of
#   state_and_budgets  users in 4 processes with --state_dir; one process's users keep their own
#                      pure-epsilon budget and decline once it is spent (dropouts, the run goes
#                      on); another process is killed -9 between two rounds and restarted on its
#                      state: the probe's phase 1 (a SecAgg sum of the participants' state
#                      counters, restricted to phase 0's contributors) passes only if it resumed
#   state_lost         the same kill, restarted WITHOUT its state: the probe must notice
#   parties            3 silo parties (--party=hfl:I/3), fixed population, 3 rounds
#   fixed_loss         fixed population of users; a killed client ends the run cleanly
# Every process started here is killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init probe

DATA="synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=3"
# Every user in every round (participation 1): the coordinator waits for all 40 users before each
# round, so a restarted client is back in the next round. 0.5 per report; the run may spend 10.
RUN=(--algorithm=probe --eval_data="$DATA" --rounds=5 --participation=1 --min_clients=1
  --epsilon=10 --set=report_epsilon=0.5 --wait_for_users=40 --stage_timeout_s=20)

# start_client I N LOG [flags]: client process I of N (users shard I/N); pid in CLIENT_PID.
start_client() {
  local i="$1" n="$2" log="$3"
  shift 3
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --shard="$i/$n" --give_up_after_s=40 \
    "$@" >"$log" 2>&1 &
  CLIENT_PID=$!
  PIDS+=($!)
}

# kill_and_restart_client_2 STATE_DIR: waits until round 1 is applied (both phases), kills client
# process 2 of 4 and restarts it with --state_dir=STATE_DIR.
kill_and_restart_client_2() {
  wait_for "$WORK/coordinator.log" "event=round round=1 phase=1 .*applied=yes" 90
  kill -9 "${CLIENTS[2]}"
  wait "${CLIENTS[2]}" 2>/dev/null || true
  start_client 2 4 "$WORK/client-2-restarted.log" --state_dir="$1"
  CLIENTS[2]=$CLIENT_PID
}

# users_with_a_killed_client RESTART_STATE_DIR: case state_and_budgets' run; client process 2 is
# restarted on RESTART_STATE_DIR. Client process 1's users may spend 1 (two reports).
users_with_a_killed_client() {
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${RUN[@]}"
  CLIENTS=()
  for i in 0 1 2 3; do
    local flags=(--state_dir="$WORK/client-$i")
    ((i == 1)) && flags+=(--participant_budget=pure:1)
    start_client "$i" 4 "$WORK/client-$i.log" "${flags[@]}"
    CLIENTS+=("$CLIENT_PID")
  done
  kill_and_restart_client_2 "$1"
}

# round_field ROUND PHASE KEY: KEY of the coordinator's last event=round line of ROUND/PHASE.
round_field() {
  field "$3" "$(grep -E " event=round round=$1 phase=$2 " "$WORK/coordinator.log" | tail -n 1)"
}

case "$CASE" in
  state_and_budgets)
    users_with_a_killed_client "$WORK/client-2"
    wait "$COORD_PID" || fail "coordinator failed"
    grep -q 'event=training_end rounds=5 ' "$WORK/coordinator.log" || fail "not 5 rounds"
    ! grep -q 'lost its state' "$WORK/coordinator.log" || fail "a restarted client lost its state"
    # Process 1 holds 10 users: two reports each fit their budget of 1, the third does not.
    for r in 0 1; do
      [[ "$(round_field $r 0 dropouts)" == 0 ]] || fail "round $r had dropouts"
    done
    for r in 2 3 4; do
      (($(round_field $r 0 dropouts) >= 10)) || fail "round $r: the spent users did not decline"
      [[ "$(round_field $r 1 applied)" == yes ]] || fail "round $r not applied"
    done
    [[ -s "$WORK/client-2/local_state.pb" ]] || fail "no local state file"
    # Federated evaluation scores with the probe's popularity model: rankings, no rating errors.
    grep -q ' event=evaluation .*rating_errors=absent .*precision10=' "$WORK/coordinator.log" ||
      fail "no federated evaluation of the popularity model"
    echo "resumed on its state; declines after 2 rounds: $(round_field 4 0 dropouts) dropouts"
    ;;

  state_lost)
    users_with_a_killed_client "$WORK/client-2-fresh"
    wait_for "$WORK/coordinator.log" "lost its state" 90
    echo "detected: $(grep -o "participant [0-9]*'s state counter.*lost its state" "$WORK/coordinator.log" |
      head -n 1)"
    ;;

  parties)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${RUN[@]}" --rounds=3 \
      --set=fixed_population=true --wait_for_users=3
    for i in 0 1 2; do
      "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --party="hfl:$i/3" \
        --give_up_after_s=40 >"$WORK/party-$i.log" 2>&1 &
      PIDS+=($!)
    done
    wait "$COORD_PID" || fail "coordinator failed"
    grep -q 'event=training_end rounds=3 ' "$WORK/coordinator.log" || fail "not 3 rounds"
    for r in 0 1 2; do
      for p in 0 1; do
        [[ "$(round_field $r $p contributors)" == 3 ]] || fail "round $r phase $p: not 3 parties"
      done
    done
    echo "3 parties, 3 rounds of 2 phases"
    ;;

  fixed_loss)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${RUN[@]}" \
      --set=fixed_population=true
    CLIENTS=()
    for i in 0 1 2 3; do
      start_client "$i" 4 "$WORK/client-$i.log"
      CLIENTS+=("$CLIENT_PID")
    done
    wait_for "$WORK/coordinator.log" "event=round round=1 phase=1 .*applied=yes" 90
    kill -9 "${CLIENTS[3]}"
    rc=0
    wait "$COORD_PID" || rc=$?
    ((rc != 0)) || fail "the coordinator went on without a member of its fixed population"
    grep -qi 'fixed population' "$WORK/coordinator.log" || fail "no fixed-population reason"
    ! grep -q 'event=training_end rounds=5 ' "$WORK/coordinator.log" || fail "the run completed"
    echo "ended: $(grep -i 'fixed population' "$WORK/coordinator.log" | tail -n 1 | cut -c1-200)"
    ;;

  *)
    echo "unknown case $CASE" >&2
    exit 2
    ;;
esac
echo "PASS $CASE"
