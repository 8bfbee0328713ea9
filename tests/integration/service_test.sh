#!/usr/bin/env bash
# fedmf-coordinator --service (issue 43): a long-running coordinator that starts with no run and
# trains the runs submitted to it (`submit FILE`) one at a time, each with its own directory,
# checkpoint and ledger, with real fedmf-client processes on 127.0.0.1. Usage:
#   service_test.sh BUILD_DIR CASE
# Cases:
#   two_runs:    two runs submitted back to back (each PBM at epsilon 1, 2 and 3 rounds) with the
#                same client processes, which stay across runs (run_done): both done, each with its
#                own checkpoint and ledger (2 and 3 entries), each publishing its final model; the
#                second, and only it, starts from the first's final model (start_from_version: 0),
#                and a third naming a version the store lacks is refused at submit, naming it;
#                submit/runs without the admin token, or with a wrong one, refused. A device that
#                checks in after run 2 (the C example, --model_only) downloads run 2's final model;
#                a corrupted store or queue file stops the next start, naming it.
#   kill_resume: killed -9 during run 1 (6 rounds) with run 2 queued, restarted on the same state
#                directory: run 1 resumes from its checkpoint with its clients reconnecting (no
#                client restart), ends with its 6 ledger entries, and run 2 follows with them.
#   cancel:      a running run (waiting for users) and a queued one cancelled; the next submission
#                runs; run flags with --service are refused, naming them.
#   budget:      two runs of the test-only contract probe with the same 4 client processes; one
#                process's users keep their own budget, which run 1 spends: they decline run 2's
#                tasks (dropouts, the run goes on) and still receive its final model; the end of
#                run 1 drops its algorithm states, on disk too, and keeps the ledgers.
# Every process started here is killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
EXAMPLE="$BUILD/client/fedmf-c-example"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init service

DATA="synthetic:users=300,items=200,per_user=30,min_per_user=10"
TOKEN_FILE="$WORK/admin-token"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TOKEN_FILE"

# run_file NAME ROUNDS [WAIT_FOR_USERS [MORE]]: a RunSpec of a small PBM run at epsilon 1 (each
# round one ledger entry), with the text-format fields MORE, in $WORK/NAME.textproto.
run_file() {
  cat >"$WORK/$1.textproto" <<SPEC
algorithm: "dpmf-rp"
set: ["mechanism=pbm", "rank=4", "item_model=full", "compression=2"]
rounds: $2
epsilon: 1
participation: 0.1
min_clients: 10
wait_for_users: ${3:-300}
num_users: 300
num_items: 200
${4:-}
SPEC
}
# admin SUBCOMMAND ARGS...: the subcommand against the service, with the admin token.
admin() { "$COORD" "$@" --target="127.0.0.1:$PORT" --admin_token_file="$TOKEN_FILE"; }
# run_state ID: the state of run ID in `runs`.
run_state() { admin runs | sed -n "s/^run id=$1 state=\([a-z]*\) .*/\1/p"; }
# wait_state ID STATE: until run ID is in STATE; bounded by the service staying up.
wait_state() {
  while [[ "$(run_state "$1")" != "$2" ]]; do
    kill -0 "$COORD_PID" 2>/dev/null || fail "the service exited before run $1 was $2"
    sleep 0.1
  done
}
# start_clients TAG: 3 client processes hosting the 300 users; pids in CLIENT_PIDS.
start_clients() {
  CLIENT_PIDS=()
  for i in 0 1 2; do
    "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --shard="$i/3" --give_up_after_s=40 \
      >"$WORK/client-$1-$i.log" 2>&1 &
    CLIENT_PIDS+=($!)
    PIDS+=($!)
  done
}
# clients_stayed TAG RUNS: every client of start_clients TAG logged RUNS run ends (the service may
# record a run done before a client reads its end), without an error, and is still running.
clients_stayed() {
  for i in 0 1 2; do
    wait_for "$WORK/client-$1-$i.log" ' event=run_done ' 30 "$2"
    ! grep -q ' event=client_error ' "$WORK/client-$1-$i.log" || fail "client $i: errors"
    kill -0 "${CLIENT_PIDS[$i]}" 2>/dev/null || fail "client $i left: $(tail -2 "$WORK/client-$1-$i.log")"
  done
}
start_service() {
  start_coordinator "$1" --service --listen="127.0.0.1:${2:-0}" --state_dir="$WORK/state" \
    --admin_token_file="$TOKEN_FILE"
}
# last_checkpoint_entries LOG ID: the ledger entries of run ID's last event=checkpoint in LOG (the
# checkpoints logged after its event=run_start).
last_checkpoint_entries() {
  awk -v id="$2" '/ event=run_start / { inside = ($0 ~ " id=" id " ") } inside && / event=checkpoint / { line = $0 }
    END { print line }' "$1" | sed -n 's/.* ledger_entries=\([0-9]*\).*/\1/p'
}

case "$CASE" in
  two_runs)
    start_service "$WORK/service.log"
    run_file first 2
    run_file second 3 300 'start_from_version: 0'
    # Without the token, or with a wrong one: refused, nothing queued.
    if "$COORD" submit "$WORK/first.textproto" --target="127.0.0.1:$PORT" >"$WORK/no-token.out" 2>&1; then
      fail "a submit without the admin token was accepted"
    fi
    grep -q UNAUTHENTICATED "$WORK/no-token.out" || fail "no-token: $(cat "$WORK/no-token.out")"
    echo wrong >"$WORK/wrong-token"
    if "$COORD" runs --target="127.0.0.1:$PORT" --admin_token_file="$WORK/wrong-token" \
      >"$WORK/wrong-token.out" 2>&1; then
      fail "runs with a wrong admin token was answered"
    fi
    grep -q UNAUTHENTICATED "$WORK/wrong-token.out" || fail "wrong token: $(cat "$WORK/wrong-token.out")"
    grep -q ' event=admin_refused method=SubmitRun .*code=UNAUTHENTICATED' "$WORK/service.log" ||
      fail "the refusal is not logged"
    admin submit "$WORK/first.textproto" | grep -q '^run id=1 state=queued run_id=run-1 ' ||
      fail "run 1 not queued"
    admin submit "$WORK/second.textproto" | grep -q '^run id=2 state=queued run_id=run-2 ' ||
      fail "run 2 not queued"
    start_clients a
    wait_state 2 done
    clients_stayed a 2  # one set of clients served both runs and is still connected
    [[ -f "$WORK/state/runs/1/checkpoint.pb" && -f "$WORK/state/runs/2/checkpoint.pb" ]] ||
      fail "no checkpoint per run: $(find "$WORK/state")"
    [[ "$(last_checkpoint_entries "$WORK/service.log" 1)" == 2 ]] || fail "run 1's ledger"
    [[ "$(last_checkpoint_entries "$WORK/service.log" 2)" == 3 ]] || fail "run 2's ledger"
    grep -q 'event=model_published version=1 run_id=run-1 round=2 final=yes' "$WORK/service.log" ||
      fail "run 1's final model not published"
    grep -q 'event=model_published version=2 run_id=run-2 round=3 final=yes' "$WORK/service.log" ||
      fail "run 2's final model not published"
    # Only run 2 asked to start from the newest final model: run 1's.
    [[ "$(grep -c ' event=new_run .* start_model_' "$WORK/service.log")" == 1 ]] &&
      grep -q ' event=new_run .* start_model_version=1 start_model_run_id=run-1 start_model_algorithm=dpmf-rp .* run="queued run 2" ' \
        "$WORK/service.log" || fail "run 2 did not start from run 1's model (alone)"
    admin status >"$WORK/status.out"
    grep -q '^run_id=run-2 round=3 total_rounds=3 .* stage=idle ' "$WORK/status.out" ||
      fail "not idle after the runs: $(cat "$WORK/status.out")"
    grep -q '^runs queued=0 running=0 done=2 failed=0 cancelled=0 running_id=0$' "$WORK/status.out" ||
      fail "status: $(cat "$WORK/status.out")"
    # A device that checks in after the runs gets run 2's final model (hash checked).
    "$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id=7 --num_items=200 --ratings=3:5,10:4 \
      --model_only --give_up_after_s=30 >"$WORK/late.log" 2>&1 ||
      fail "the late device failed: $(tail -3 "$WORK/late.log")"
    grep -q 'event=c_example_downloaded participant=7 version=2 ' "$WORK/late.log" ||
      fail "the late device did not download version 2: $(cat "$WORK/late.log")"
    grep -q 'event=c_example_end participant=7 done=yes .*top5=[0-9]' "$WORK/late.log" ||
      fail "the late device does not recommend"
    # Nothing is ahead of a third run, so the model it names is checked at submit.
    run_file third 2 300 'start_from_version: 9'
    if admin submit "$WORK/third.textproto" >"$WORK/third.out" 2>&1; then
      fail "a run starting from a version the store lacks was queued"
    fi
    grep -q 'start_from_version=9: the model store holds no such version (it keeps versions 1, 2)' \
      "$WORK/third.out" || fail "run 3's missing start model is not named: $(cat "$WORK/third.out")"
    kill "$COORD_PID"
    wait "$COORD_PID" || fail "the service did not stop cleanly on SIGTERM"
    # Damaged files stop the next start at once, each named.
    cp -a "$WORK/state" "$WORK/state-copy"
    printf 'garbage' >"$WORK/state/runs/queue.pb"
    if "$COORD" --service --listen=127.0.0.1:0 --state_dir="$WORK/state" >"$WORK/bad-queue.log" 2>&1; then
      fail "a service started on a damaged queue"
    fi
    grep -q "DATA_LOSS: .*runs/queue.pb" "$WORK/bad-queue.log" || fail "queue: $(cat "$WORK/bad-queue.log")"
    model="$WORK/state-copy/models/model-000002.pb"
    printf '\x01' | dd of="$model" bs=1 seek=$(($(stat -c %s "$model") - 1)) conv=notrunc 2>/dev/null
    if "$COORD" --service --listen=127.0.0.1:0 --state_dir="$WORK/state-copy" >"$WORK/bad-model.log" 2>&1; then
      fail "a service started on a corrupted model store"
    fi
    grep -q "model-000002.pb: the model does not match its hash" "$WORK/bad-model.log" ||
      fail "model store: $(cat "$WORK/bad-model.log")"
    ;;

  kill_resume)
    start_service "$WORK/service-1.log"
    run_file long 6
    run_file next 2
    admin submit "$WORK/long.textproto" >/dev/null
    admin submit "$WORK/next.textproto" >/dev/null
    start_clients a
    wait_for "$WORK/service-1.log" "event=round round=2 " 60
    kill -9 "$COORD_PID"
    wait "$COORD_PID" 2>/dev/null || true
    saved="$(last_checkpoint_entries "$WORK/service-1.log" 1)"
    start_service "$WORK/service-2.log" "$PORT"
    # The clients of run 1 reconnect to the restart (they were not restarted) and finish it.
    wait_for "$WORK/service-2.log" " event=resume " 30
    resume="$(grep ' event=resume ' "$WORK/service-2.log")" || fail "no resume line"
    [[ "$(field state_dir "$resume")" == "$WORK/state/runs/1" ]] || fail "resumed $resume"
    [[ "$(field ledger_entries "$resume")" == "$saved" ]] || fail "resumed $resume, saved $saved"
    wait_state 1 done
    [[ "$(last_checkpoint_entries "$WORK/service-2.log" 1)" == 6 ]] || fail "run 1's final ledger"
    grep -q 'event=training_end rounds=6 ' "$WORK/service-2.log" || fail "run 1 not 6 rounds"
    wait_state 2 done
    clients_stayed a 2
    echo "run 1 resumed with $saved ledger entries after kill -9; run 2 followed"
    ;;

  cancel)
    if "$COORD" --service --rounds=3 --state_dir="$WORK/refused" >"$WORK/refused.log" 2>&1; then
      fail "--service took run flags"
    fi
    grep -q -- '--service takes its runs from `fedmf-coordinator submit FILE`: drop --rounds=3' \
      "$WORK/refused.log" || fail "run flags not named: $(cat "$WORK/refused.log")"
    start_service "$WORK/service.log"
    run_file waits 2
    run_file queued 2
    run_file after 2
    admin submit "$WORK/waits.textproto" >/dev/null
    admin submit "$WORK/queued.textproto" >/dev/null
    wait_state 1 running
    admin cancel 2 | grep -q '^run id=2 state=cancelled ' || fail "queued run 2 not cancelled"
    admin cancel 1 >/dev/null
    wait_state 1 cancelled
    grep -q 'event=training_end rounds=0 reason="run cancelled"' "$WORK/service.log" ||
      fail "run 1 did not end as cancelled"
    admin submit "$WORK/after.textproto" >/dev/null
    start_clients a
    wait_state 3 done
    [[ ! -e "$WORK/state/runs/2/checkpoint.pb" ]] || fail "the cancelled queued run ran"
    ;;

  budget)
    # Every user reports in every round, 0.5 of pure epsilon each (the probe, as in probe_test.sh),
    # and keeps a counter of its reports as its algorithm state.
    probe="synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=3"
    for name in first second; do
      cat >"$WORK/$name.textproto" <<SPEC
algorithm: "probe"
set: ["report_epsilon=0.5"]
rounds: 2
epsilon: 10
participation: 1
min_clients: 1
wait_for_users: 40
num_users: 40
num_items: 60
SPEC
    done
    start_service "$WORK/service.log"
    admin submit "$WORK/first.textproto" >/dev/null
    admin submit "$WORK/second.textproto" >/dev/null
    CLIENT_PIDS=()
    for i in 0 1 2 3; do
      flags=()
      # Process 1's 10 users may spend 1: run 1's two reports.
      ((i == 1)) && flags=(--participant_budget=pure:1 --state_dir="$WORK/client-1")
      "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$probe" --shard="$i/4" --give_up_after_s=40 \
        "${flags[@]}" >"$WORK/client-$i.log" 2>&1 &
      CLIENT_PIDS+=($!)
      PIDS+=($!)
    done
    wait_state 2 done
    ! grep -q 'lost its state' "$WORK/service.log" || fail "run 2 saw run 1's state"
    # Run 2's rounds: applied without the 10 spent users, who declined phase 0.
    awk '/ event=run_start id=2 / { second = 1 } second && / event=round / { print }' \
      "$WORK/service.log" >"$WORK/run-2-rounds.log"
    for r in 0 1; do
      line="$(grep -E " event=round round=$r phase=0 " "$WORK/run-2-rounds.log" | tail -n 1)"
      [[ "$(field applied "$line")" == yes ]] || fail "run 2 round $r not applied: $line"
      (($(field dropouts "$line") >= 10)) || fail "run 2 round $r: the spent users did not decline"
    done
    wait_for "$WORK/client-1.log" ' event=run_done .*final_model=yes' 30 2
    # Process 1's state file after run 2, in which its users made no report: ledgers, no probe state.
    protoc --decode=fedmf.v1.HostLocalState -I "$(dirname "$0")/../../proto" \
      fedmf/v1/local_state.proto <"$WORK/client-1/local_state.pb" >"$WORK/client-1-state.txt" ||
      fail "cannot read the client's state file"
    (($(grep -c 'ledger: ' "$WORK/client-1-state.txt") == 10)) || fail "ledgers: $(head "$WORK/client-1-state.txt")"
    ! grep -q 'algorithm_states' "$WORK/client-1-state.txt" ||
      fail "run 1's algorithm state outlived it: $(grep -A3 -m1 algorithm_states "$WORK/client-1-state.txt")"
    echo "run 2 applied without the spent users: $(field dropouts "$line") dropouts in its last round"
    ;;

  *) fail "unknown case $CASE" ;;
esac
echo "PASS service $CASE"
