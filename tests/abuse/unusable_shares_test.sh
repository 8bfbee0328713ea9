#!/usr/bin/env bash
# Tolerated misbehaviour is counted, not logged per event (issue 48 item 4): a fedmf-attacker
# (user 0, participant 1) in every cohort of 6 rounds (participation 1, 20 users, complete graph)
# reports the shares of all 19 other members unusable in every MaskedInput. The coordinator
# tolerates it (each secret keeps enough holders): every round applies at its first attempt and
# nobody is excluded. With --misbehaviour_log_period_s=3600 each named participant gets exactly two
# event=secagg_misbehaviour lines, its first event at once and the count of the rest when the
# coordinator stops, and the lines' `events` add up to every complaint (19 per strike). Before,
# each event was a line (about 100 a second in the report) and no line carried a count.
# Usage: unusable_shares_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
ATTACKER="$BUILD/tests/abuse/fedmf-attacker"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init unusable-shares

DATA="synthetic:users=20,items=60,per_user=12,min_per_user=5,seed=3"
ROUNDS=6
C="$WORK/coordinator.log"
A="$WORK/attacker.log"
start_coordinator "$C" --listen=127.0.0.1:0 --eval_data="$DATA" --rounds="$ROUNDS" \
  --participation=1 --min_clients=10 --set=rank=4 --set=item_model=full --set=compression=2 \
  --set=mechanism=none --wait_for_users=20 --dropout_fraction=0.5 --stage_timeout_s=10 \
  --secagg_graph=complete --eval_every=0 --misbehaviour_log_period_s=3600
"$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$(seq -s, 1 19)" \
  --give_up_after_s=40 >"$WORK/client.log" 2>&1 &
client=$!
PIDS+=("$client")
"$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users=0 --attack=unusable_shares \
  --attack_every_round >"$A" 2>&1 &
attacker=$!
PIDS+=("$attacker")
wait "$COORD_PID" || fail "the coordinator failed"
wait "$client" || fail "the honest client failed"
wait "$attacker" || fail "the attacker failed to run"

strikes="$(grep -c ' event=attack attack=unusable_shares ' "$A" || true)"
((strikes >= ROUNDS)) || fail "the attacker struck $strikes times in $ROUNDS rounds"
[[ "$(grep -c ' event=round .*attempt=0 applied=yes ' "$C" || true)" == "$ROUNDS" ]] ||
  fail "not every round applied at its first attempt"
grep -q ' event=participant_excluded ' "$C" && fail "a participant was excluded"

lines="$(grep ' event=secagg_misbehaviour ' "$C" || true)"
[[ -n "$lines" ]] || fail "no tolerated misbehaviour logged"
grep -qv ' tolerated=yes ' <<<"$lines" && fail "misbehaviour not tolerated: $lines"
total=0
declare -A per_participant
while read -r line; do
  events="$(field events "$line")"
  [[ "$events" =~ ^[1-9][0-9]*$ ]] || fail "a line without a count of events: $line"
  total=$((total + events))
  id="$(field participant "$line")"
  per_participant[$id]=$((${per_participant[$id]:-0} + 1))
done <<<"$lines"
# The attacker's participant sent shares to nobody it complains about: the 19 others are named.
((${#per_participant[@]} == 19)) || fail "${#per_participant[@]} participants named, not 19"
for id in "${!per_participant[@]}"; do
  ((id != 1)) || fail "the attacker's own participant was named"
  ((per_participant[$id] == 2)) || fail "participant $id: ${per_participant[$id]} lines, not 2"
done
((total == 19 * strikes)) || fail "the counts add up to $total, not 19 x $strikes strikes"
echo "$strikes strikes, $total tolerated events in $(wc -l <<<"$lines") lines"
echo "PASS unusable_shares"
