#!/usr/bin/env bash
# A malicious minority revealing false shares of honest users' secrets gets only itself excluded
# and never stops training (issue 48, finding 1). A real fedmf-coordinator on 127.0.0.1, two honest
# fedmf-client processes (users 11-39) and one fedmf-attacker (users 0-10, participant ids 1-11)
# that replaces every share it reveals at Unmasking by another valid one (--attack=false_shares
# --attack_every_round). The cohort is all 40 users with t = 40 - floor(0.5 * 40) = 20, so each
# secret gets 11 false shares: more than the floor((40 - 20) / 2) = 10 that error-correcting
# decoding corrects. Before share commitments the server then named the honest dealers, and
# excluded every honest user within seconds; now each false share fails its dealer's commitment.
# Checks: 10 rounds, each applied at its first attempt; exactly the attacker's 11 ids excluded,
# each for a false reveal; each applied round sums every member of its cohort.
# Usage: false_reveals_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
ATTACKER="$BUILD/tests/abuse/fedmf-attacker"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init false-reveals

DATA="synthetic:users=40,items=60,per_user=12,min_per_user=5,seed=3"
ROUNDS=10
RUN=(--eval_data="$DATA" --rounds="$ROUNDS" --participation=1 --min_clients=20 --set=rank=4
  --set=item_model=full --set=compression=2 --set=mechanism=none --seed=11 --wait_for_users=40
  --dropout_fraction=0.5 --stage_timeout_s=20 --secagg_graph=complete)
ATTACKER_IDS=" $(seq -s ' ' 1 11) "

C="$WORK/coordinator.log"
A="$WORK/attacker.log"
start_coordinator "$C" --listen=127.0.0.1:0 "${RUN[@]}" --state_dir="$WORK/state"
coord="$COORD_PID"
clients=()
for users in "$(seq -s, 11 2 39)" "$(seq -s, 12 2 39)"; do
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$users" --give_up_after_s=60 \
    >"$WORK/client-${#clients[@]}.log" 2>&1 &
  clients+=($!)
  PIDS+=($!)
done
"$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$(seq -s, 0 10)" \
  --attack=false_shares --attack_every_round >"$A" 2>&1 &
attacker=$!
PIDS+=("$attacker")

wait "$coord" ||
  fail "the coordinator failed: $(grep -v ' event=' "$C" | tail -n 1) (rounds:" \
    "$(grep -c ' event=round .*applied=no ' "$C" || true) failed," \
    "$(grep -c ' event=round .*applied=yes ' "$C" || true) applied)"
for c in "${clients[@]}"; do wait "$c" || fail "an honest client failed"; done
wait "$attacker" || fail "the attacker failed to run"
# One strike line per Unmasking response, each naming its participant.
strikers="$(grep ' event=attack attack=false_shares round=0 ' "$A" |
  sed -n 's/.* participants=\([0-9,]*\).*/\1/p' | tr ',' '\n' | sort -n | tr '\n' ' ')"
[[ " $strikers" == "$ATTACKER_IDS" ]] ||
  fail "setup: the attacker ids that revealed in round 0 are '$strikers', not all 11"

[[ "$(grep -c ' event=round ' "$C")" == "$ROUNDS" &&
  "$(grep -c ' event=round .*attempt=0 applied=yes ' "$C")" == "$ROUNDS" ]] ||
  fail "not every round applied at its first attempt: $(grep ' event=round ' "$C" | head -n 3)"
while read -r line; do
  [[ "$(field contributors "$line")" == "$(field participants "$line")" ]] ||
    fail "a round left out inputs of its cohort: $line"
done < <(grep ' event=round ' "$C")
excluded=" $(sed -n 's/.* event=participant_excluded participant=\([0-9]*\) .*/\1/p' "$C" |
  sort -n | tr '\n' ' ')"
[[ "$excluded" == "$ATTACKER_IDS" ]] ||
  fail "excluded:$excluded; expected exactly the attacker's ids:$ATTACKER_IDS"
[[ "$(grep -c ' event=participant_excluded .*(a false reveal)' "$C")" == 11 ]] ||
  fail "an exclusion names no false reveal: $(grep ' event=participant_excluded ' "$C" | head -n 2)"
echo "$(grep -c ' event=round .*applied=yes ' "$C") rounds applied;" \
  "excluded:$excluded; $(grep ' event=round ' "$C" | tail -n 1 | sed 's/^ts=[^ ]* //')"
echo "PASS false_reveals"
