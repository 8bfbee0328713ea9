#!/usr/bin/env bash
# A misbehaving cohort member must not stop training: a real fedmf-coordinator on 127.0.0.1, two
# honest fedmf-client processes (users 4-63) and one fedmf-attacker (users 0-3) that misbehaves in
# every round of 4 (--attack_every_round). Usage: misbehaving_member_test.sh BUILD_DIR ATTACK.
#  * garbage_shares: its Shamir share ciphertexts are random bytes. The honest members report
#    them as unusable, the coordinator identifies each culprit, logs event=participant_excluded
#    (a reason naming the shares) and never samples it again; a round it failed is retried
#    without it. No honest participant is ever excluded.
#  * false_shares: the shares it reveals at Unmasking are wrong but valid field elements. Each
#    fails its dealer's commitment: it is discarded, its revealer excluded (a reason naming the
#    false reveal), and the round applies from the other shares at its first attempt. No honest
#    participant is ever excluded.
# Both: the coordinator ends normally with 4 rounds applied, the honest clients exit 0, and each
# applied round sums the input of every honest member of its cohort (round line: contributors =
# participants less the attacker's users in the cohort for garbage_shares, all for false_shares).
# The coordinator logs cohort sizes, not members: which attacker users each attempt's cohort held
# comes from the attacker's event=task lines (the SecAgg context names round and attempt).
set -euo pipefail
BUILD="$1"
ATTACK="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
ATTACKER="$BUILD/tests/abuse/fedmf-attacker"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init misbehaving-member
[[ "$ATTACK" == garbage_shares || "$ATTACK" == false_shares ]] || fail "unknown attack $ATTACK"

DATA="synthetic:users=64,items=80,per_user=12,min_per_user=5,seed=3"
ROUNDS=4
# Cohort 16 of 64, t = 16 - floor(0.5 * 16) = 8. The attacker hosts the lowest ids: the
# coordinator sends each stage's requests in ascending id, so its revealed shares tend to arrive
# first (reconstruction uses the first t kept). With seed 38 the first cohort of every round holds
# 1 or 2 of its users (rounds 0-3: ids 1,3 / 1 / 3 / 2,4; server/cohort.cc draws them), until an
# exclusion changes who is sampled. The stage timeout only matters for someone silent; nobody is.
RUN=(--eval_data="$DATA" --rounds="$ROUNDS" --participation=0.25 --min_clients=8 --set=rank=4
  --set=item_model=full --set=compression=2 --set=mechanism=none --seed=38 --wait_for_users=64
  --dropout_fraction=0.5 --stage_timeout_s=10 --secagg_graph=complete)
ATTACKER_USERS=0,1,2,3
ATTACKER_IDS=" 1 2 3 4 "  # participant id = user + 1
EVEN="$(seq -s, 4 2 63)"
ODD="$(seq -s, 5 2 63)"

C="$WORK/coordinator.log"
A="$WORK/attacker.log"
start_coordinator "$C" --listen=127.0.0.1:0 "${RUN[@]}" --state_dir="$WORK/state"
coord="$COORD_PID"
clients=()
for users in "$EVEN" "$ODD"; do
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$users" --give_up_after_s=40 \
    >"$WORK/client-${#clients[@]}.log" 2>&1 &
  clients+=($!)
  PIDS+=($!)
done
"$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$DATA" --users="$ATTACKER_USERS" \
  --attack="$ATTACK" --attack_every_round >"$A" 2>&1 &
attacker=$!
PIDS+=("$attacker")

coord_ok=yes
wait "$coord" || coord_ok=no
# The setup first, so that a failure below is the protocol's: the attacker's users were in the
# first round's (round 0) first cohort and it struck there.
grep -q ' event=task round=0 context=[^ ]*/round-0/attempt-0 participants=[0-9]' "$A" ||
  fail "setup: round 0's first cohort holds none of the attacker's users (change the seed)"
grep -q " event=attack attack=$ATTACK round=0 " "$A" || fail "the attacker never struck in round 0"
[[ "$coord_ok" == yes ]] ||
  fail "the coordinator failed: $(grep -v ' event=' "$C" | tail -n 1) (its rounds:" \
    "$(grep -c ' event=round .*applied=no ' "$C" || true) failed," \
    "$(grep -c ' event=round .*applied=yes ' "$C" || true) applied)"
for c in "${clients[@]}"; do wait "$c" || fail "an honest client failed"; done
wait "$attacker" || fail "the attacker failed to run"
grep -q "event=training_end rounds=$ROUNDS " "$C" || fail "not $ROUNDS rounds"
[[ "$(grep -c ' event=round .*applied=yes ' "$C" || true)" == "$ROUNDS" ]] ||
  fail "not $ROUNDS rounds applied"

# COHORT[round/attempt]: the attacker's users in that attempt's cohort, space-separated.
declare -A COHORT
while read -r line; do
  context="$(field context "$line")"
  key="$(field round "$line")/$(sed -n 's/.*\/attempt-\([0-9]*\).*/\1/p' <<<"$context")"
  COHORT[$key]="$(field participants "$line" | tr -d '"' | tr , ' ')"
done < <(grep ' event=task .*context=[^ ]*/round-' "$A")
is_attacker() { [[ "$ATTACKER_IDS" == *" $1 "* ]]; }
# The first failed attempt: "round/attempt: reason" (a quoted value, which field cannot read).
first_failure() {
  grep ' event=round .*applied=no ' "$C" | head -n 1 |
    sed -n 's/.* round=\([0-9]*\) .* attempt=\([0-9]*\) .* reason=\(.*\)/\1\/\2: \3/p'
}

# Every applied round: all honest members of its cohort contributed.
while read -r line; do
  key="$(field round "$line")/$(field attempt "$line")"
  read -ra in_cohort <<<"${COHORT[$key]:-}"
  expected="$(field participants "$line")"
  # garbage_shares: the attacker's users in a cohort cannot be in its sum; false_shares: they are.
  [[ "$ATTACK" == garbage_shares ]] && expected=$((expected - ${#in_cohort[@]}))
  [[ "$(field contributors "$line")" == "$expected" ]] ||
    fail "round $key: $(field contributors "$line") inputs of $(field participants "$line")" \
      "(attacker users in the cohort: ${in_cohort[*]:-none}), expected $expected: $line"
done < <(grep ' event=round .*applied=yes ' "$C")

excluded="$(grep ' event=participant_excluded ' "$C" || true)"
case "$ATTACK" in
  garbage_shares)
    [[ -n "$excluded" ]] ||
      fail "nobody excluded; $(grep -c ' event=round .*applied=no ' "$C" || true) attempts" \
        "failed, the first $(first_failure)"
    while read -r line; do
      id="$(field participant "$line")"
      is_attacker "$id" || fail "honest participant $id excluded: $line"
      grep -qi 'reason=.*share' <<<"$line" || fail "the reason names no shares: $line"
    done <<<"$excluded"
    excluded_ids=" $(sed -n 's/.* participant=\([0-9]*\).*/\1/p' <<<"$excluded" | tr '\n' ' ')"
    # Each culprit: every attacker user in a training cohort sent garbage shares there (checked
    # for the failed cohorts first, the others next).
    while read -r line; do
      key="$(field round "$line")/$(field attempt "$line")"
      for id in ${COHORT[$key]:-}; do
        [[ "$excluded_ids" == *" $id "* ]] ||
          fail "participant $id was in the failed cohort of round $key and is not excluded"
      done
    done < <(grep ' event=round .*applied=no ' "$C")
    for key in "${!COHORT[@]}"; do
      for id in ${COHORT[$key]}; do
        [[ "$excluded_ids" == *" $id "* ]] ||
          fail "participant $id was in the cohort of round $key and is not excluded"
      done
    done
    # No cohort drawn after an exclusion holds the excluded user: the exclusions logged before
    # each attempt's secagg_session line (the cohort is drawn just before it), matched by round
    # and attempt with the attacker's tasks.
    while read -r key before; do
      for id in ${COHORT[$key]:-}; do
        [[ " $before " != *" $id "* ]] ||
          fail "participant $id, excluded before round $key, is in its cohort"
      done
    done < <(awk '
      / event=participant_excluded / {
        p = $0; sub(/.* participant=/, "", p); sub(/ .*/, "", p); gone = gone " " p
      }
      / event=secagg_session / { drawn = gone; session = 1 }
      / event=round / && session {
        r = $0; sub(/.* round=/, "", r); sub(/ .*/, "", r)
        a = $0; sub(/.* attempt=/, "", a); sub(/ .*/, "", a)
        print r "/" a, drawn
        session = 0
      }' "$C")
    ;;
  false_shares)
    for id in ${COHORT[0/0]}; do
      grep -q " event=participant_excluded participant=$id .*(a false reveal)" "$C" ||
        fail "participant $id revealed false shares in round 0 and was not excluded for it"
    done
    while read -r line; do
      id="$(field participant "$line")"
      is_attacker "$id" || fail "honest participant $id excluded: $line"
    done <<<"$excluded"
    [[ "$(grep -c ' event=round ' "$C")" == "$ROUNDS" &&
      "$(grep -c ' event=round .*attempt=0 applied=yes ' "$C")" == "$ROUNDS" ]] ||
      fail "$(grep -c ' event=round .*applied=no ' "$C" || true) attempts failed, the first" \
        "$(first_failure)"
    ;;
esac

rmse="$(field test_rmse "$(grep " event=evaluation round=$ROUNDS " "$C")")"
awk -v r="$rmse" 'BEGIN { exit !(r > 0 && r < 10) }' || fail "model not finite: RMSE $rmse"
# The run as the coordinator logged it: exclusions and each attempt's outcome.
while read -r line; do
  if [[ "$line" == *" event=round "* ]]; then
    echo "round=$(field round "$line") attempt=$(field attempt "$line")" \
      "applied=$(field applied "$line") participants=$(field participants "$line")" \
      "contributors=$(field contributors "$line")"
  else
    echo "${line#ts=* }"
  fi
done < <(grep ' event=participant_excluded \| event=round ' "$C")
echo "$(grep -c " event=attack attack=$ATTACK " "$A") strikes; test RMSE $rmse"
echo "PASS misbehaving_member_$ATTACK"
