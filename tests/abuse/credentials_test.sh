#!/usr/bin/env bash
# Participant ids bound to credentials (issue 21, item 2): the coordinator runs with a credentials
# file holding two tokens made by `fedmf-coordinator issue-token`, the honest client's (ids 1-36)
# and mallory's (ids 37-40). Mallory cannot register an honest id with her own token, nor any id
# with the shared demo token; the honest client, frozen (SIGSTOP) with its stream still open, is
# replaced by its restart with the same token, which takes its ids over at once; every round then
# applies with all 36 honest users. Before, any token holder could register any free id.
# Usage: credentials_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
ATTACKER="$BUILD/tests/abuse/fedmf-attacker"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init credentials

DATA="synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=3"
CREDS="$WORK/credentials.txt"
honest="$("$COORD" issue-token --credentials_file="$CREDS" --ids=1-36)"
mallory="$("$COORD" issue-token --credentials_file="$CREDS" --ids=37-40)"
if "$COORD" issue-token --credentials_file="$CREDS" --ids=30-38 >"$WORK/overlap.log" 2>&1; then
  fail "a token for ids of other credentials was issued"
fi
grep -q "participant id 30 also belongs" "$WORK/overlap.log" || fail "$(cat "$WORK/overlap.log")"
grep -q "$honest" "$CREDS" && fail "the credentials file holds a token, not its hash"

start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$DATA" --rounds=3 \
  --participation=0.5 --min_clients=10 --set=mechanism=none --set=item_model=full --set=compression=2 \
  --wait_for_users=36 --eval_every=0 --stage_timeout_s=20 --credentials_file="$CREDS"
HONEST_USERS="$(seq -s, 0 35)"  # dense indices 0-35: participant ids 1-36

# Mallory's token does not hold id 1; the shared token holds nothing.
"$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users=0,36 \
  --enrollment_token="$mallory" >"$WORK/squat.log" 2>&1 || true
grep -q "participant id 1 does not belong to this client's credential" "$WORK/squat.log" ||
  fail "mallory registered an honest id: $(tail -2 "$WORK/squat.log")"
"$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users=36 >"$WORK/shared.log" 2>&1 ||
  true
grep -q "neither the enrollment token nor the TLS identity" "$WORK/shared.log" ||
  fail "the shared token was accepted: $(tail -2 "$WORK/shared.log")"

"$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$HONEST_USERS" \
  --enrollment_token="$honest" >"$WORK/frozen.log" 2>&1 &
frozen=$!
PIDS+=("$frozen")
wait_for "$WORK/coordinator.log" ' event=stream_open .*status=OK' 30
kill -STOP "$frozen"
"$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$HONEST_USERS" \
  --enrollment_token="$honest" --give_up_after_s=60 >"$WORK/client.log" 2>&1 &
restarted=$!
PIDS+=("$restarted")
wait "$restarted" || fail "the restarted honest client failed"
wait "$COORD_PID" || fail "coordinator failed"
grep -q ' event=stream_open .*status=OK replaced_streams=1' "$WORK/coordinator.log" ||
  fail "the restart did not take over the frozen client's stream"
[[ "$(grep -c ' event=round .*applied=yes ' "$WORK/coordinator.log")" == 3 ]] ||
  fail "not every round applied"
grep -q 'event=training_end rounds=3 ' "$WORK/coordinator.log" || fail "training did not end"
echo "PASS credentials"
