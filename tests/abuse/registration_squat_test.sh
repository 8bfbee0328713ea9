#!/usr/bin/env bash
# Registrations that never open their stream must not lock honest clients out (issue 21, item 5):
# a fedmf-attacker fills the coordinator's waiting room (--max_pending_registrations=8) with 12
# Register calls and never binds; the honest fedmf-client processes that start right after are
# refused (RESOURCE_EXHAUSTED) until the squatted registrations expire (--registration_ttl_s=2),
# then register and train. Before registrations expired, the honest clients waited forever.
# Usage: registration_squat_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
ATTACKER="$BUILD/tests/abuse/fedmf-attacker"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init registration-squat

DATA="synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=3"
start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$DATA" --rounds=1 \
  --participation=1 --min_clients=20 --set=mechanism=none --set=item_model=full --set=compression=2 \
  --wait_for_users=40 --eval_every=0 --stage_timeout_s=20 \
  --max_pending_registrations=8 --registration_ttl_s=2
"$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users=0 \
  --attack=squat_registrations --registrations=12 >"$WORK/attacker.log" 2>&1 ||
  fail "the attacker failed: $(tail -3 "$WORK/attacker.log")"
grep -q 'event=attack attack=squat_registrations accepted=8 refused=4' "$WORK/attacker.log" ||
  fail "the waiting room was not capped at 8: $(grep event=attack "$WORK/attacker.log")"
clients=()
for users in "$(seq -s, 0 2 39)" "$(seq -s, 1 2 39)"; do
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$users" \
    --give_up_after_s=40 >"$WORK/client-${#clients[@]}.log" 2>&1 &
  clients+=($!)
  PIDS+=($!)
done
# The clients first: one that gave up (locked out) fails the test at once.
for c in "${clients[@]}"; do wait "$c" || fail "an honest client failed (locked out?)"; done
wait "$COORD_PID" || fail "coordinator failed"
grep -q ' event=round .*applied=yes .*contributors=40 ' "$WORK/coordinator.log" ||
  fail "the round did not apply with all 40 honest users"
refused="$(grep -c 'event=register client=shard-.*RESOURCE_EXHAUSTED' \
  "$WORK/coordinator.log" || true)"
((refused >= 1)) || fail "no honest registration met the full waiting room: the test tested nothing"
echo "honest registrations refused while the squatters' waited: $refused"
echo "PASS registration_squat"
