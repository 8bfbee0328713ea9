#!/usr/bin/env bash
# Integration tests of the JVM binding (client/java): a real fedmf-coordinator, two
# fedmf-java-example processes (fedmf-java over libfedmf_mobile.so, grpc-java's netty transport)
# as participants 1 and 2, and one fedmf-client process hosting the other 38 of 40 synthetic users;
# every round samples all 40 (participation 1).
#   kill_restart: three rounds. Participant 2 is killed (-9) in round 1 once it has stored its
#     answer to that round's ConsistencyCheckRequest, which the coordinator sends only to the
#     clients whose masked input it holds, so the killed participant's input is in the round's
#     sum; the round then still needs its unmasking stage, so the coordinator sees the stream
#     close mid-round (stream_closed ... dropped_in_round=1 before round 1's line). It is
#     restarted from the state it stored write-ahead; the next round waits for it. Passes when all
#     three rounds applied with 40 contributors and no dropout, the restarted process restored its
#     ratings and model, and both Java participants ended with training done, the final model, a
#     top 5 and the model's predicted ratings for it (on the 1-5 scale).
#   catalogue_mismatch: participant 2 configured with 50 of the model's 60 items gets
#     IncompatibleModelException (FEDMF_ERR_INCOMPATIBLE_MODEL through JNI) naming both sizes,
#     cancels its stream and exits 1; the coordinator drops it at once and the round applies
#     without it.
#   late_device: a coordinator with --serve trains 2 rounds with fedmf-client alone (all 40
#     users); a Java participant that first registers after the end downloads the published final
#     model over Models.Download (grpc-java), stores it and recommends from it.
# Waits are bounded by progress lines, with generous timeouts; a case takes a few seconds.
# Usage: java_example_test.sh BUILD_DIR CASE. Every process started is killed.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
EXAMPLE="$BUILD/client/java/example/fedmf-java-example"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init "java-$CASE"

DATA="synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=4"
USERS=40

# start_java ID ITEMS LOG: participant ID (dense user ID-1) configured with ITEMS items, five
# ratings and its state in $WORK/state-ID; its pid in JAVA_PID.
start_java() {
  local id="$1"
  "$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id="$id" --num_items="$2" \
    --ratings="$id:5,$((id + 7)):4,$((id + 20)):2,$((id + 33)):3,$((id + 41)):1" \
    --state_dir="$WORK/state-$id" --give_up_after_s=100 >"$3" 2>&1 &
  JAVA_PID=$!
  PIDS+=("$JAVA_PID")
}

# start_run ROUNDS ITEMS_2: the coordinator (ROUNDS rounds), fedmf-client for users 3..40 and the
# Java participants 1 (pid JAVA_1) and 2 (pid JAVA_2, configured with ITEMS_2 items).
start_run() {
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$DATA" \
    --rounds="$1" --participation=1 --min_clients=5 --set=mechanism=none --set=item_model=full \
    --set=compression=2 --wait_for_users="$USERS" --eval_every=0 --stage_timeout_s=20
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$(seq -s, 2 $((USERS - 1)))" \
    --give_up_after_s=100 >"$WORK/client.log" 2>&1 &
  CLIENT_PID=$!
  PIDS+=("$CLIENT_PID")
  start_java 1 60 "$WORK/java-1.log"
  JAVA_1=$JAVA_PID
  start_java 2 "$2" "$WORK/java-2.log"
  JAVA_2=$JAVA_PID
}

case_kill_restart() {
  local rounds=3
  start_run "$rounds" 60
  # Round 0 applied with everyone, then the kill inside round 1, after participant 2 stored the
  # state of its answer to the ConsistencyCheckRequest. Polled every 10 ms (wait_for's 50 ms is a
  # good part of the ~0.2 s the round's unmasking stage leaves); bounded at 90 s.
  for ((i = 0; ; i++)); do
    grep -q 'event=java_example_handled participant=2 kind=consistency_check round=1 ' \
      "$WORK/java-2.log" && break
    ((i < 9000)) || fail "participant 2 did not reach round 1's consistency check within 90 s"
    sleep 0.01
  done
  kill -9 "$JAVA_2"
  wait "$JAVA_2" 2>/dev/null || true
  [[ -s "$WORK/state-2/state.pb" ]] || fail "participant 2 stored no state before the kill"
  start_java 2 60 "$WORK/java-2-restart.log"
  JAVA_2=$JAVA_PID

  wait "$COORD_PID" || fail "coordinator failed"
  wait "$CLIENT_PID" || fail "fedmf-client failed"
  wait "$JAVA_1" || fail "Java participant 1 failed"
  wait "$JAVA_2" || fail "restarted Java participant 2 failed"

  grep -q 'event=java_example_restored participant=2 ratings=5 model=yes ' \
    "$WORK/java-2-restart.log" || fail "the restart did not restore the state and its model"
  grep -q 'event=java_example_handled participant=2 kind=task round=2 ' \
    "$WORK/java-2-restart.log" || fail "the restarted participant 2 got no task of round 2"
  local closed round_1 applied line log
  closed="$(grep -nE 'event=stream_closed client=fedmf-java-example .*dropped_in_round=1$' \
    "$WORK/coordinator.log" | cut -d: -f1)" || fail "no Java stream closed mid-round"
  round_1="$(grep -n ' event=round round=1 ' "$WORK/coordinator.log" | cut -d: -f1)"
  ((closed < round_1)) || fail "the Java stream closed after round 1 ended, not mid-round"
  grep -q "event=training_end rounds=$rounds .*final_model=sent" "$WORK/coordinator.log" ||
    fail "not $rounds rounds, or no final model sent"
  grep -q "event=training_done .*rounds_completed=$rounds .*final_model=yes" "$WORK/client.log" ||
    fail "fedmf-client got no final model"
  applied="$(grep -c " event=round .*applied=yes .*contributors=$USERS .*dropouts=0 " \
    "$WORK/coordinator.log" || true)"
  [[ "$applied" == "$rounds" ]] || fail "$applied of $rounds rounds applied with all $USERS users"
  for log in java-1.log java-2-restart.log; do
    line="$(grep 'event=java_example_end' "$WORK/$log")" || fail "$log: no end line"
    grep -qE "done=yes rounds_completed=$rounds top5=[0-9].* predicted=[0-9]+:[1-5]\." \
      <<<"$line" || fail "$log: $line"
    grep -q "kind=result round=$rounds " "$WORK/$log" || fail "$log: no final result"
    echo "$line"
  done
}

case_catalogue_mismatch() {
  # One round: the next would wait for a cohort of all 40 users.
  start_run 1 50
  if wait "$JAVA_2"; then fail "the mismatched Java participant exited 0"; fi
  grep -q 'java_example_incompatible_model error=".*has 60 items, this client.s catalogue 50' \
    "$WORK/java-2.log" || fail "no clear catalogue error"
  wait_for "$WORK/coordinator.log" \
    'event=stream_closed client=fedmf-java-example .*dropped_in_round=1$' 30
  wait "$COORD_PID" || fail "coordinator failed"
  wait "$CLIENT_PID" || fail "fedmf-client failed"
  wait "$JAVA_1" || fail "the matching Java participant failed"
  grep -q " event=round .*applied=yes .*contributors=39 .*dropouts=1 " "$WORK/coordinator.log" ||
    fail "the round did not apply without the mismatched participant"
  grep 'event=java_example_incompatible_model' "$WORK/java-2.log"
}

case_late_device() {
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$DATA" --rounds=2 \
    --participation=1 --min_clients=5 --set=mechanism=none --set=item_model=full --set=compression=2 \
    --wait_for_users="$USERS" --eval_every=0 --stage_timeout_s=20 --state_dir="$WORK/state" \
    --serve
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$(seq -s, 0 $((USERS - 1)))" \
    --give_up_after_s=100 >"$WORK/client.log" 2>&1 || fail "fedmf-client failed"
  wait_for "$WORK/coordinator.log" 'event=serving_models versions=1 latest_version=1' 30
  start_java 1 60 "$WORK/java-1.log"
  wait "$JAVA_PID" || fail "the late Java participant failed: $(tail -3 "$WORK/java-1.log")"
  grep -q 'event=java_example_downloaded participant=1 .*version=1' "$WORK/java-1.log" ||
    fail "no download of version 1: $(cat "$WORK/java-1.log")"
  grep -qE 'event=java_example_end participant=1 .*done=yes .*top5=[0-9]' "$WORK/java-1.log" ||
    fail "the late Java participant does not recommend"
  grep 'event=java_example_downloaded' "$WORK/java-1.log"
}

case "$CASE" in
  kill_restart) case_kill_restart ;;
  late_device) case_late_device ;;
  catalogue_mismatch) case_catalogue_mismatch ;;
  *) fail "unknown case $CASE" ;;
esac
echo "PASS java_example $CASE"
