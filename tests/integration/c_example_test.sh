#!/usr/bin/env bash
# Integration test of the mobile C API: a real fedmf-coordinator, two fedmf-c-example processes
# (pure C on libfedmf_mobile.so, participants 1 and 2, their own ratings) and one fedmf-client
# process hosting the other 38 users of a 40-user synthetic dataset. Every round samples all 40
# users (participation 1), so a round applied with 40 contributors and no dropout summed the C
# users' SecAgg inputs. The second C example is restarted from its saved state after the run and
# must find training done. Usage: c_example_test.sh BUILD_DIR. Every process started is killed.
set -euo pipefail
BUILD="$1"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
EXAMPLE="$BUILD/client/fedmf-c-example"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init capi

DATA="synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=4"
start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$DATA" --rounds=3 \
  --participation=1 --min_clients=10 --mechanism=none --item_model=full --compression=2 \
  --wait_for_users=40 --eval_every=0 --stage_timeout_s=20

users="$(seq -s, 2 39)"
"$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$users" --give_up_after_s=40 \
  >"$WORK/client.log" 2>&1 &
CLIENT_PID=$!
PIDS+=("$CLIENT_PID")
EXAMPLE_PIDS=()
for id in 1 2; do
  "$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id="$id" --num_items=60 \
    --ratings="$((id)):5,$((id + 7)):4,$((id + 20)):2,$((id + 33)):3,$((id + 41)):1" \
    --state="$WORK/state-$id.pb" --give_up_after_s=50 >"$WORK/example-$id.log" 2>&1 &
  EXAMPLE_PIDS+=($!)
  PIDS+=($!)
done
wait "$COORD_PID" || fail "coordinator failed"
wait "$CLIENT_PID" || fail "fedmf-client failed"
for pid in "${EXAMPLE_PIDS[@]}"; do wait "$pid" || fail "a C example failed"; done

grep -q 'event=training_end rounds=3 ' "$WORK/coordinator.log" || fail "not 3 rounds"
rounds="$(grep -c ' event=round .*applied=yes .*contributors=40 .*dropouts=0 ' "$WORK/coordinator.log" || true)"
[[ "$rounds" == 3 ]] || fail "$rounds of 3 rounds applied with all 40 users"
for id in 1 2; do
  line="$(grep 'event=c_example_end' "$WORK/example-$id.log")" || fail "example $id: no end line"
  grep -q "done=yes rounds_completed=3 top5=[0-9]" <<<"$line" || fail "example $id: $line"
  echo "$line"
  [[ -s "$WORK/state-$id.pb" ]] || fail "example $id saved no state"
done
# Restarted from its state after the run (the coordinator is gone): the library restores the
# participant with its ratings, model and progress, which says training is done, and it
# recommends the same top 5 without connecting.
"$EXAMPLE" --coordinator="127.0.0.1:$PORT" --id=2 --num_items=60 --state="$WORK/state-2.pb" \
  --give_up_after_s=2 >"$WORK/example-2-restart.log" 2>&1 || fail "restart failed"
grep -q 'event=c_example_restored participant=2 ratings=5' "$WORK/example-2-restart.log" ||
  fail "restart did not restore the state"
[[ "$(grep 'event=c_example_end' "$WORK/example-2-restart.log")" == "$line" ]] ||
  fail "restart: $(grep 'event=c_example_end' "$WORK/example-2-restart.log"), before: $line"
echo "PASS c_example"
