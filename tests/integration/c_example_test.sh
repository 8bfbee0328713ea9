#!/usr/bin/env bash
# Integration tests of the mobile C API: a real fedmf-coordinator, fedmf-c-example processes (pure
# C on libfedmf_mobile.so, over a transport with gRPC's default 4 MiB receive limit, as an app's
# own stack has it) and one fedmf-client process hosting the other users.
#   basic:       participants 1 and 2 with their own ratings among 40 synthetic users; every
#                round samples all 40 (participation 1), so a round applied with 40 contributors
#                and no dropout summed the C users' SecAgg inputs. The second C example is
#                restarted from its saved state after the run and must find training done.
#   large_model: 45,000 items, so each task is over 4 MiB and travels in chunks that must each
#                fit the C examples' default receive limit; the saved state stays under 64 KiB,
#                the model going to its own blob.
#   catalogue_mismatch: one app configured with fewer items than the model is refused clearly
#                and dropped at once.
#   late_device: a coordinator with --serve trains with fedmf-client alone; a C example that
#                first registers after the end downloads the final model (over 4 MiB, chunks of
#                1 MiB) in a call broken off after 2 chunks and resumed; the coordinator killed -9
#                and restarted on its state dir serves the same version to a second late device;
#                a corrupted store file stops the next start with an error naming it.
# Usage: c_example_test.sh BUILD_DIR CASE. Every process started is killed. FEDMF_C_EXAMPLE,
# FEDMF_COORDINATOR and FEDMF_CLIENT name other binaries to run than BUILD_DIR's (an out-of-tree
# build of the example, installed packages).
set -euo pipefail
BUILD="$1"
CASE="$2"
# Installed binaries may stand in for the build's (tools/package-check.sh).
COORD="${FEDMF_COORDINATOR:-$BUILD/server/fedmf-coordinator}"
CLIENT="${FEDMF_CLIENT:-$BUILD/client/fedmf-client}"
EXAMPLE="${FEDMF_C_EXAMPLE:-$BUILD/client/fedmf-c-example}"  # or a build of it out of tree
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init "capi-$CASE"

# start_run DATA USERS ROUNDS ITEMS [ITEMS_2]: a coordinator for DATA (USERS users, ITEMS items)
# running ROUNDS rounds of all users, a fedmf-client hosting users 2..USERS-1 and C examples for
# participants 1 and 2 (EXAMPLE_PIDS), each with five ratings; participant 2's app is configured
# with ITEMS_2 items (default ITEMS).
start_run() {
  local data="$1" users="$2" rounds="$3" items="$4" items_2="${5:-$4}"
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$data" \
    --rounds="$rounds" --participation=1 --min_clients=5 --set=mechanism=none --set=item_model=full \
    --set=compression=2 --wait_for_users="$users" --eval_every=0 --stage_timeout_s=20
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$data" --users="$(seq -s, 2 $((users - 1)))" \
    --give_up_after_s=40 >"$WORK/client.log" 2>&1 &
  CLIENT_PID=$!
  PIDS+=("$CLIENT_PID")
  EXAMPLE_PIDS=()
  for id in 1 2; do
    "$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id="$id" \
      --num_items="$([[ $id == 2 ]] && echo "$items_2" || echo "$items")" \
      --ratings="$((id)):5,$((id + 7)):4,$((id + 20)):2,$((id + 33)):3,$((id + 41)):1" \
      --state="$WORK/state-$id.pb" --give_up_after_s=50 >"$WORK/example-$id.log" 2>&1 &
    EXAMPLE_PIDS+=($!)
    PIDS+=($!)
  done
}

# finish_run USERS ROUNDS: waits for every process; all ROUNDS rounds applied with all USERS
# users, the final model reached fedmf-client, and both C examples ended with training done after
# ROUNDS rounds (their end line in LINE_1, LINE_2).
finish_run() {
  local users="$1" rounds="$2" applied
  wait "$COORD_PID" || fail "coordinator failed"
  wait "$CLIENT_PID" || fail "fedmf-client failed"
  for pid in "${EXAMPLE_PIDS[@]}"; do wait "$pid" || fail "a C example failed"; done
  grep -q "event=training_end rounds=$rounds .*final_model=sent" "$WORK/coordinator.log" ||
    fail "not $rounds rounds, or no final model sent"
  grep -q "event=training_done .*rounds_completed=$rounds .*final_model=yes" "$WORK/client.log" ||
    fail "fedmf-client got no final model"
  applied="$(grep -c " event=round .*applied=yes .*contributors=$users .*dropouts=0 " \
    "$WORK/coordinator.log" || true)"
  [[ "$applied" == "$rounds" ]] || fail "$applied of $rounds rounds applied with all $users users"
  for id in 1 2; do
    local line
    line="$(grep 'event=c_example_end' "$WORK/example-$id.log")" || fail "example $id: no end line"
    grep -q "done=yes rounds_completed=$rounds top5=[0-9]" <<<"$line" || fail "example $id: $line"
    echo "$line"
    printf -v "LINE_$id" '%s' "$line"
  done
}

case_basic() {
  start_run "synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=4" 40 3 60
  finish_run 40 3
  for id in 1 2; do [[ -s "$WORK/state-$id.pb" ]] || fail "example $id saved no state"; done
  # Restarted from its state after the run (the coordinator is gone): the library restores the
  # participant with its ratings, model and progress, which says training is done, and it
  # recommends the same top 5 without connecting.
  "$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id=2 --num_items=60 --state="$WORK/state-2.pb" \
    --give_up_after_s=2 >"$WORK/example-2-restart.log" 2>&1 || fail "restart failed"
  grep -q 'event=c_example_restored participant=2 ratings=5 model=yes' \
    "$WORK/example-2-restart.log" || fail "restart did not restore the state and its model"
  local again
  again="$(grep 'event=c_example_end' "$WORK/example-2-restart.log")"
  [[ "$again" == "$LINE_2" ]] || fail "restart: $again, before: $LINE_2"
}

case_large_model() {
  start_run "synthetic:users=10,items=45000,per_user=12,min_per_user=5,seed=4" 10 2 45000
  finish_run 10 2
  grep ' event=round ' "$WORK/coordinator.log" | grep -qv ' chunks_down=0 ' ||
    fail "no task was chunked: the model is not over the chunk size"
  # The model (45,000 x 14 factors) goes to its own blob; the state stays small.
  local saved state_bytes model_bytes
  saved="$(grep 'event=c_example_saved participant=1 ' "$WORK/example-1.log")" ||
    fail "example 1 saved nothing"
  state_bytes="$(sed -E 's/.* state_bytes=([0-9]+).*/\1/' <<<"$saved")"
  model_bytes="$(sed -E 's/.* model_bytes=([0-9]+).*/\1/' <<<"$saved")"
  ((state_bytes < 65536 && model_bytes > 4194304)) || fail "sizes: $saved"
  echo "$saved"
}

# An app configured with 50 items against a 60-item model: its first task is refused with
# FEDMF_ERR_INCOMPATIBLE_MODEL naming both sizes, it cancels its stream and the coordinator drops
# it from the round at once; the others complete the round.
case_catalogue_mismatch() {
  # One round: the next would wait for a cohort of all 40 users.
  start_run "synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=4" 40 1 60 50
  if wait "${EXAMPLE_PIDS[1]}"; then fail "the mismatched C example exited 0"; fi
  grep -q 'event=c_example_incompatible_model error=".*has 60 items, this client.s catalogue 50' \
    "$WORK/example-2.log" || fail "no clear catalogue error"
  wait_for "$WORK/coordinator.log" 'event=stream_closed client=fedmf-c-example .*dropped_in_round=1' 30
  wait "$COORD_PID" || fail "coordinator failed"
  wait "$CLIENT_PID" || fail "fedmf-client failed"
  wait "${EXAMPLE_PIDS[0]}" || fail "the matching C example failed"
  grep -q " event=round .*applied=yes .*contributors=39 .*dropouts=1 " "$WORK/coordinator.log" ||
    fail "the round did not apply without the mismatched app"
  grep 'event=c_example_incompatible_model' "$WORK/example-2.log"
}

case_late_device() {
  local data="synthetic:users=10,items=45000,per_user=12,min_per_user=5,seed=4"
  local state="$WORK/state"
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$data" --rounds=2 \
    --participation=1 --min_clients=5 --set=mechanism=none --set=item_model=full --set=compression=2 \
    --wait_for_users=10 --eval_every=0 --stage_timeout_s=20 --state_dir="$state" --serve \
    --run_id=late-device-run
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$data" --users="$(seq -s, 0 9)" \
    --give_up_after_s=40 >"$WORK/client.log" 2>&1 || fail "fedmf-client failed"
  wait_for "$WORK/coordinator.log" 'event=serving_models versions=1 latest_version=1' 30
  grep -q 'event=model_published version=1 run_id=late-device-run round=2 final=yes' \
    "$WORK/coordinator.log" || fail "the final model was not published"
  # The late device: registers, learns training is over and downloads version 1 in two calls.
  "$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id=3 --num_items=45000 --ratings=3:5,10:4 \
    --state="$WORK/state-3.pb" --give_up_after_s=30 --break_download_after_chunks=2 \
    >"$WORK/example-3.log" 2>&1 || fail "the late device failed: $(tail -3 "$WORK/example-3.log")"
  grep -q 'event=c_example_download_broken participant=3 chunks=2' "$WORK/example-3.log" ||
    fail "the first download call was not broken off"
  grep -q 'event=c_example_downloaded participant=3 version=1 chunks=[5-9]' "$WORK/example-3.log" ||
    fail "no resumed download of version 1 (over 4 chunks): $(cat "$WORK/example-3.log")"
  grep -q 'event=c_example_end participant=3 done=yes .*top5=[0-9]' "$WORK/example-3.log" ||
    fail "the late device does not recommend"
  # Killed -9 and restarted on its state dir: the run is over, the store serves the same version.
  kill -9 "$COORD_PID"
  wait "$COORD_PID" 2>/dev/null || true
  start_coordinator "$WORK/coordinator-2.log" --listen=127.0.0.1:0 --eval_data="$data" \
    --rounds=2 --participation=1 --min_clients=5 --set=mechanism=none --set=item_model=full \
    --set=compression=2 --eval_every=0 --state_dir="$state" --serve --run_id=late-device-run
  wait_for "$WORK/coordinator-2.log" 'event=serving_models versions=1 latest_version=1' 30
  "$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id=4 --num_items=45000 --ratings=4:5 \
    --give_up_after_s=30 >"$WORK/example-4.log" 2>&1 || fail "the second late device failed"
  grep -q 'event=c_example_downloaded participant=4 version=1 ' "$WORK/example-4.log" ||
    fail "the restarted coordinator did not serve version 1"
  kill "$COORD_PID"
  wait "$COORD_PID" || fail "the serving coordinator did not stop cleanly on SIGTERM"
  # A corrupted store file: the next start fails at once, naming it.
  local file="$state/models/model-000001.pb"
  printf '\x01' | dd of="$file" bs=1 seek=$(($(stat -c %s "$file") - 1)) conv=notrunc 2>/dev/null
  if "$COORD" --listen=127.0.0.1:0 --eval_data="$data" --rounds=2 --set=mechanism=none \
    --set=item_model=full --set=compression=2 --state_dir="$state" >"$WORK/coordinator-3.log" 2>&1; then
    fail "a coordinator started on a corrupted model store"
  fi
  grep -q "model-000001.pb: the model does not match its hash" "$WORK/coordinator-3.log" ||
    fail "no clear error for the corrupted store: $(tail -2 "$WORK/coordinator-3.log")"
  grep 'event=c_example_downloaded' "$WORK/example-3.log" "$WORK/example-4.log"
}

case "$CASE" in
  basic) case_basic ;;
  late_device) case_late_device ;;
  large_model) case_large_model ;;
  catalogue_mismatch) case_catalogue_mismatch ;;
  *) fail "unknown case $CASE" ;;
esac
echo "PASS c_example $CASE"
