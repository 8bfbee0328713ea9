#!/usr/bin/env bash
# A token credential holds at most --max_streams_per_identity live streams, as a TLS identity does
# (issue 48 item 4): the coordinator (--max_streams=16) runs with a credentials file of three
# tokens, mallory's two (ids 1-20 and 21-40) and the honest client's (41-48). Mallory runs two
# --one_stream_per_user clients, one per token, 40 one-id streams: one stream per token binds, the
# other 38 are refused at open (ALREADY_EXISTS naming the credential) and keep retrying; the
# coordinator's status shows 2 connected clients, and the honest client still gets in. Before,
# the 40 streams took the --max_streams places (13 of 16 in the report) and nothing capped a token.
# Usage: token_streams_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init token-streams

DATA="synthetic:users=48,items=60,per_user=12,min_per_user=5,seed=3"
CREDS="$WORK/credentials.txt"
mallory_a="$("$COORD" issue-token --credentials_file="$CREDS" --ids=1-20)"
mallory_b="$("$COORD" issue-token --credentials_file="$CREDS" --ids=21-40)"
honest="$("$COORD" issue-token --credentials_file="$CREDS" --ids=41-48)"
# The coordinator waits for users that never all come: only the streams matter here.
start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --num_users=48 --num_items=60 \
  --rounds=1 --wait_for_users=48 --max_streams=16 --credentials_file="$CREDS"

# status KEY: the value of KEY in `fedmf-coordinator status`.
status() {
  "$COORD" status --target="127.0.0.1:$PORT" >"$WORK/status.out" || fail "status failed"
  field "$1" "$(cat "$WORK/status.out")"
}

"$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$(seq -s, 0 19)" \
  --one_stream_per_user --enrollment_token="$mallory_a" >"$WORK/mallory-a.log" 2>&1 &
PIDS+=($!)
"$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$(seq -s, 20 39)" \
  --one_stream_per_user --enrollment_token="$mallory_b" >"$WORK/mallory-b.log" 2>&1 &
PIDS+=($!)
# Every one of the 40 streams has tried: 2 bound, 38 refused (retries add more refusals).
wait_for "$WORK/coordinator.log" ' event=stream_open .*status=OK' 60 2
wait_for "$WORK/coordinator.log" \
  " event=stream_open .*ALREADY_EXISTS: credential 'token-sha256:[0-9a-f]*' already has 1 live stream" \
  60 38
mallory_streams="$(status connected_clients)"
[[ "$mallory_streams" == 2 ]] ||
  fail "mallory holds more than one stream per token: $(cat "$WORK/status.out")"
[[ "$(status registered_users)" == 2 ]] || fail "status: $(cat "$WORK/status.out")"

"$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$(seq -s, 40 47)" \
  --enrollment_token="$honest" >"$WORK/honest.log" 2>&1 &
PIDS+=($!)
wait_for "$WORK/coordinator.log" ' event=stream_open .*status=OK' 30 3
[[ "$(status connected_clients)" == 3 && "$(status registered_users)" == 10 ]] ||
  fail "the honest client did not get in beside mallory's streams: $(cat "$WORK/status.out")"
kill -0 "$COORD_PID" || fail "coordinator died"
echo "40 one-id streams on two tokens: $mallory_streams of the 16 --max_streams places;" \
  "$(grep -c " event=stream_open .*ALREADY_EXISTS: credential" "$WORK/coordinator.log") opens" \
  "refused; the honest client's stream beside them"
echo "PASS token_streams"
