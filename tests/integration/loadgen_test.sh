#!/usr/bin/env bash
# fedmf-loadgen against a real fedmf-coordinator (tools/load/run-load.sh): 200 simulated users
# over 8 channels, cohort 100 on the complete graph, 3 rounds, d = 16384.
#   tests/integration/loadgen_test.sh BUILD_DIR [CASE]
# CASE 200 (default): 10% of the cohort dropping (5% at AdvertiseKeys, 5% at MaskedInput;
#   dropping users cut their stream, so no stage waits for its deadline), every message 0-20 ms
#   late, 2% slow users (+300 ms). Checks: no round aborted, the 3 rounds applied as the
#   coordinator's Admin.Status and event log report, and the coordinator's dropouts are exactly
#   the injected ones.
# CASE reconnect: 10% of the users cut their stream once from round 1 on (--reconnect_fraction)
#   and re-register 0.2 s later, no other faults. Checks: reconnects happened (some in the middle
#   of a round they were in), no round aborted, the 3 rounds applied; every coordinator dropout is
#   a reconnecting user (at least those cut mid-round, at most all of them: one cut between rounds
#   drops out of the next round when its cohort was drawn before the cut was seen).
# CASE checkin: the coordinator checks devices in (--check_in_period_s=1, window 0.5 s, cohort
#   20 of 200, the first round waiting for its cohort only), 5 rounds, every message 100-200 ms
#   late so that rounds outlast the coordinator's 1 s sweep, no other faults. Checks: streams were
#   ended by check-in and their users came back (the loadgen received CheckInLater messages and
#   the later cohorts filled), the 3 rounds applied, and no cohort member was ever dismissed:
#   the coordinator counted no dropout at all.
set -euo pipefail
BUILD="${1:?BUILD_DIR}"
CASE="${2:-200}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
case "$CASE" in
  200) FAULTS=(--drop_advertise=0.05 --drop_masked=0.05 --drop_mode=disconnect
    --extra_latency_ms=0:20 --slow_fraction=0.02 --slow_latency_ms=300) ;;
  reconnect) FAULTS=(--reconnect_fraction=0.1 --reconnect_after=1) ;;
  checkin) FAULTS=(--extra_latency_ms=100:200) ;;
  *) echo "unknown case $CASE"; exit 2 ;;
esac
PARTICIPATION=0.5 COORD_FLAGS="--secagg_signatures=false" WAIT=200 ROUNDS=3
if [[ "$CASE" == checkin ]]; then
  PARTICIPATION=0.1 WAIT=20 ROUNDS=5
  COORD_FLAGS+=" --check_in_period_s=1 --check_in_window_s=0.5"
fi
out="$(CHANNELS=8 STAGE_TIMEOUT=30 COORD_FLAGS="$COORD_FLAGS" WAIT_FOR_USERS="$WAIT" \
  "$ROOT/tools/load/run-load.sh" "$BUILD" 200 "$PARTICIPATION" "$ROUNDS" complete "${FAULTS[@]}" \
  --seed=3 --give_up_after_s=60)"
echo "$out"
line="$(grep '^loadgen_result ' <<<"$out")" || { echo "FAIL: no loadgen_result line"; exit 1; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
fail() { echo "FAIL: $*"; exit 1; }
[[ "$(field status)" == OK ]] || fail "loadgen status $(field status)"
[[ "$(field rounds_applied)" == "$ROUNDS" ]] || fail "rounds_applied=$(field rounds_applied)"
[[ "$(field coord_rounds)" == "$ROUNDS" ]] || fail "Admin.Status rounds=$(field coord_rounds)"
[[ "$(field log_applied)" == "$ROUNDS" ]] || fail "log_applied=$(field log_applied)"
[[ "$(field log_aborted)" == 0 ]] || fail "log_aborted=$(field log_aborted)"
[[ "$(field failed_attempts)" == 0 ]] || fail "failed_attempts=$(field failed_attempts)"
[[ -n "$(field round_p99_s)" && -n "$(field coord_peak_rss_mib)" ]] || fail "missing figures"
if [[ "$CASE" == reconnect ]]; then
  reconnects="$(field reconnects)" mid_round="$(field reconnects_in_round)"
  dropouts="$(field log_dropouts)"
  ((reconnects > 0 && mid_round > 0)) || fail "reconnects=$reconnects (mid-round $mid_round)"
  [[ "$(field drops_total)" == 0 ]] || fail "drops injected in the reconnect case"
  ((dropouts >= mid_round && dropouts <= reconnects)) ||
    fail "coordinator dropouts $dropouts not within [$mid_round, $reconnects]"
  echo "PASS loadgen_reconnect ($reconnects reconnects, $mid_round mid-round, $dropouts dropouts)"
  exit 0
fi
if [[ "$CASE" == checkin ]]; then
  check_ins="$(field check_ins)"
  ((check_ins > 0)) || fail "no CheckInLater reached the loadgen"
  [[ "$(field tasks)" == 100 ]] || fail "tasks=$(field tasks) (5 cohorts of 20)"
  [[ "$(field log_dropouts)" == 0 ]] || fail "coordinator dropouts $(field log_dropouts): a" \
    "cohort member was dismissed"
  echo "PASS loadgen_checkin ($check_ins check-ins)"
  exit 0
fi
[[ "$(field tasks)" == 300 ]] || fail "tasks=$(field tasks) (3 cohorts of 100)"
drops="$(field drops_total)"
((drops > 0)) || fail "no dropout injected"
[[ "$(field drops_before_unmask)" == "$drops" ]] || fail "no drop may be at Unmasking here"
[[ "$(field log_dropouts)" == "$drops" ]] ||
  fail "coordinator dropouts $(field log_dropouts) != injected $drops"
[[ "$(field log_contributors)" == $((300 - drops)) ]] || fail "contributors"
echo "PASS loadgen_200"
