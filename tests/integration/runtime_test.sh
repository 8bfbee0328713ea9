#!/usr/bin/env bash
# Integration tests of the networked runtime: a real fedmf-coordinator and fedmf-client processes
# on 127.0.0.1. Usage: runtime_test.sh BUILD_DIR CASE, CASE one of converge, chunked, client_kill,
# coordinator_restart, coordinator_sigterm, clear_uploads, federated_eval, bad_token, harary, signatures, harary_kill,
# metrics, streams_500, sim_pbm, sim_none, sim_gaussian_clear, sim_ldp_gd, sim_ldp_gd_dr,
# sim_hdpmf, sim_hdpmf_paper_choices, sim_run_file, privirec_secagg, privirec_k_secagg,
# privirec_k_bspm_oversampled_secagg, privirec_dp_secagg, privirec_k_dp_secagg,
# privirec_dp_committee_secagg, privirec_k_dp_committee_secagg, dpals_secagg. Every process started here is
# killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
SIM="$BUILD/tools/sim/fedmf-sim"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init it

# start_clients N DATA [flags]: N client processes, shard i/N each; pids in CLIENT_PIDS.
start_clients() {
  local n="$1" data="$2"
  shift 2
  CLIENT_PIDS=()
  for ((i = 0; i < n; i++)); do
    "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$data" --shard="$i/$n" --give_up_after_s=40 \
      "$@" >"$WORK/client-$i.log" 2>&1 &
    CLIENT_PIDS+=($!)
    PIDS+=($!)
  done
}
# status_while_held: the coordinator's status in $WORK/status.out, queried while every client
# process is stopped (SIGSTOP) so the run cannot move on, or end, under the query; it lasts far
# less than a stage's deadline.
status_while_held() {
  local rc=0
  kill -STOP "${CLIENT_PIDS[@]}"
  "$COORD" status --target="127.0.0.1:$PORT" >"$WORK/status.out" || rc=$?
  kill -CONT "${CLIENT_PIDS[@]}"
  ((rc == 0)) || fail "status failed"
}
# scrape_while_held TAG: the Prometheus scrape (GET /metrics on $METRICS_PORT) in
# $WORK/metrics-TAG.txt and the status in $WORK/status.out, both read while every client process
# is stopped, so they describe the same moment of the run.
scrape_while_held() {
  local rc=0
  kill -STOP "${CLIENT_PIDS[@]}"
  python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode(), end="")' \
    "http://127.0.0.1:$METRICS_PORT/metrics" >"$WORK/metrics-$1.txt" || rc=$?
  "$COORD" status --target="127.0.0.1:$PORT" >"$WORK/status.out" || rc=$?
  kill -CONT "${CLIENT_PIDS[@]}"
  ((rc == 0)) || fail "scrape or status failed"
}
# metric TAG SAMPLE: the value of SAMPLE (name and labels, as exposed) in scrape TAG.
metric() {
  awk -v s="$2" '$1 == s { print $2; found = 1 } END { exit !found }' "$WORK/metrics-$1.txt" ||
    fail "no sample $2 in scrape $1"
}
# converge_check LOG: 5 rounds ran and the test RMSE dropped by 0.04 (see case converge).
converge_check() {
  grep -q 'event=training_end rounds=5 ' "$1" || fail "not 5 rounds"
  local first last r0 r1
  first="$(grep ' event=evaluation ' "$1" | head -n 1)"
  last="$(grep ' event=evaluation ' "$1" | tail -n 1)"
  r0="$(field test_rmse "$first")"
  r1="$(field test_rmse "$last")"
  echo "test RMSE $r0 -> $r1"
  awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b < a - 0.04) }' || fail "RMSE $r0 -> $r1"
}
# kill_during_secagg [PHASE]: kill -9 client process 3 while a round (its phase PHASE, when given)
# is in ShareKeys or MaskedInput.
kill_during_secagg() {
  local killed="" stage="" phase="" want="${1:-}"
  # Bounded by the run itself: a run that ends before such a stage fails the test.
  while kill -0 "$COORD_PID" 2>/dev/null; do
    read -r phase stage < <("$COORD" status --target="127.0.0.1:$PORT" 2>/dev/null |
      sed -n 's/.* phase=\([0-9]*\) stage=\([^ ]*\).*/\1 \2/p') || true
    if [[ ("$stage" == ShareKeys || "$stage" == MaskedInput) && (-z "$want" || "$phase" == "$want") ]]; then
      kill -9 "${CLIENT_PIDS[3]}"
      killed="$stage of phase $phase"
      break
    fi
    sleep 0.01
  done
  [[ -n "$killed" ]] || fail "never saw a round in ShareKeys/MaskedInput${want:+ of phase $want}"
  echo "killed client 3 during $killed"
}

# restart_coordinator SIGNAL: PBM at epsilon = 1 (RDP, order 2) over 6 rounds: each round spends
# 1/6 and is one ledger entry. The coordinator gets SIGNAL after round 2 (KILL: a crash; TERM: a
# container stop or rolling update, which must not tell the clients that training is over: they
# stay and reconnect) and is restarted on the same port and state_dir; the clients finish the run.
restart_coordinator() {
  local flags=(--eval_data="$SMALL" --rounds=6 --participation=0.1 --min_clients=10 --set=mechanism=pbm
    --epsilon=1 --state_dir="$WORK/state" --wait_for_users=300)
  start_coordinator "$WORK/coordinator-1.log" --listen=127.0.0.1:0 "${flags[@]}"
  start_clients 3 "$SMALL"
  wait_for "$WORK/coordinator-1.log" "event=round round=2 " 60
  kill -"$1" "$COORD_PID"
  if [[ "$1" == TERM ]]; then
    wait "$COORD_PID" || fail "the stopped coordinator exited with an error"
    grep -q ' event=coordinator_stopped ' "$WORK/coordinator-1.log" || fail "no coordinator_stopped"
    ! grep -q ' event=training_end ' "$WORK/coordinator-1.log" || fail "a stop ended the training"
    for pid in "${CLIENT_PIDS[@]}"; do
      kill -0 "$pid" 2>/dev/null || fail "a client left when the coordinator stopped"
    done
  else
    wait "$COORD_PID" 2>/dev/null || true
  fi
  local saved done_before resume final eps
  saved="$(grep ' event=checkpoint ' "$WORK/coordinator-1.log" | tail -n 1)"
  done_before="$(field rounds_done "$saved")"
  start_coordinator "$WORK/coordinator-2.log" --listen="127.0.0.1:$PORT" "${flags[@]}"
  wait "$COORD_PID" || fail "restarted coordinator failed"
  for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
  resume="$(grep ' event=resume ' "$WORK/coordinator-2.log")" || fail "no resume line"
  [[ "$(field rounds_done "$resume")" == "$done_before" ]] || fail "resumed at $resume, saved $saved"
  [[ "$(field ledger_entries "$resume")" == "$done_before" ]] || fail "ledger: $resume"
  grep -q 'event=training_end rounds=6 ' "$WORK/coordinator-2.log" || fail "not 6 rounds"
  final="$(grep ' event=checkpoint ' "$WORK/coordinator-2.log" | tail -n 1)"
  [[ "$(field ledger_entries "$final")" == 6 ]] || fail "final ledger: $final"
  # The whole budget is spent across both runs: RDP epsilon at order 2 composes to 1.
  eps="$(field epsilon_rdp2 "$(grep ' event=round ' "$WORK/coordinator-2.log" | tail -n 1)")"
  awk -v e="$eps" 'BEGIN { exit !(e > 0.999 && e <= 1.000001) }' || fail "epsilon spent $eps"
  echo "resumed at round $done_before after SIG$1; epsilon_rdp2 spent after 6 rounds: $eps"
}

SMALL="synthetic:users=300,items=200,per_user=30,min_per_user=10"
# DPMF-RP's options of the small runs that compare fedmf-sim with the network.
DPMF_SMALL=(--set=rank=4 --set=item_model=full --set=compression=2)

# sim_equivalence FLAGS...: the same small run (a) in fedmf-sim and (b) through fedmf-coordinator
# and 2 fedmf-client processes with --insecure_noise_seed = the run's --seed, the coordinator
# waiting for all 60 users so the cohorts (sampled from the live users) are the same; both must end
# with byte-identical checkpoints (model, Adam moments, privacy ledger) and the same evaluations.
# The sim also saves its factor model, unless SIM_FACTOR_MODEL=0 (a model that is not a plain
# factor model, e.g. hdpmf's rescaled predictions, has none to save).
sim_equivalence() {
  local data="synthetic:users=60,items=80,per_user=12,min_per_user=5,seed=3" seed=5
  # Cohort 15 of 60 users (participation 0.25), n_min 10, 3 rounds, DPMF-RP's paper options (as
  # start_coordinator gives the coordinator; other algorithms do not take them); the algorithm's
  # flags and options follow.
  local config
  mapfile -t config < <(paper_config "$@")
  local run=(${config[@]+"${config[@]}"} --split=holdout:0.2 --rounds=3 --participation=0.25 --min_clients=10
    --seed="$seed" "$@")
  local save=()
  [[ "${SIM_FACTOR_MODEL:-1}" == 0 ]] || save=(--save_model="$WORK/sim-model.pb")
  "$SIM" --data="$data" "${run[@]}" --client_processes=3 --state_dir="$WORK/sim" \
    ${save[@]+"${save[@]}"} >"$WORK/sim.log" 2>&1 || fail "fedmf-sim failed"
  grep -q 'event=training_end rounds=3 ' "$WORK/sim.log" || fail "sim: not 3 rounds"
  grep -q ' event=sim_summary .*wall_s=' "$WORK/sim.log" || fail "sim: no summary"
  [[ "${SIM_FACTOR_MODEL:-1}" == 0 || -s "$WORK/sim-model.pb" ]] || fail "sim: no model file"
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$data" "${run[@]}" \
    --wait_for_users=60 --state_dir="$WORK/net"
  start_clients 2 "$data" --insecure_noise_seed="$seed"
  wait "$COORD_PID" || fail "coordinator failed"
  for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
  grep -q 'event=training_end rounds=3 ' "$WORK/coordinator.log" || fail "network: not 3 rounds"
  # Every phase of every round applied without dropouts (one line per phase).
  ! grep ' event=round ' "$WORK/coordinator.log" | grep -qv ' applied=yes .*dropouts=0 ' ||
    fail "network: a round had dropouts, the runs cannot match"
  cmp "$WORK/sim/checkpoint.pb" "$WORK/net/checkpoint.pb" || fail "checkpoints differ"
  "$BUILD/tools/fedmf-privacy" --ledger="$WORK/net/checkpoint.pb" >"$WORK/ledger-report.log" ||
    fail "fedmf-privacy --ledger failed"
  grep -Eq '^spent: .* per (user|rating) \(worst case(; heterogeneous: .*)?\)$' \
    "$WORK/ledger-report.log" || fail "fedmf-privacy --ledger: no worst-case report per user or rating"
  diff <(grep ' event=evaluation ' "$WORK/sim.log" | sed 's/^ts=[^ ]* //') \
    <(grep ' event=evaluation ' "$WORK/coordinator.log" | sed 's/^ts=[^ ]* //') ||
    fail "evaluations differ"
  echo "checkpoints identical ($(stat -c %s "$WORK/sim/checkpoint.pb") bytes)"
}

# secure_sums_equal_sim PHASES ROUNDS RUN_FLAGS...: a fixed-population algorithm (PriviRec,
# PriviRec-k, DP-ALS) on the first 30 users of MovieLens 100K (PriviRec's ranking counts every
# test item relevant), ROUNDS training rounds, (a) in fedmf-sim with in-process SecAgg and (b)
# through fedmf-coordinator and 3 fedmf-client processes with SecAgg; the population is all 30
# users, each of the PHASES phases (over all rounds) is a secure sum of every one of them, and
# both runs must end with
# byte-identical checkpoints and the same evaluation (Recall@20, NDCG@20 of the filter each
# builds). Skipped (77) without ../shared/data/ml-100k/u.data.
secure_sums_equal_sim() {
  local phases="$1" rounds="$2"
  shift 2
  # SUMS_DATA: the 30 users' --data instead of MovieLens's.
  local data="${SUMS_DATA:-}"
  if [[ -z "$data" ]]; then
    local ml="$(dirname "$0")/../../../shared/data/ml-100k/u.data"
    [[ -r "$ml" ]] || { echo "no $ml: skipped"; exit 77; }
    # 30 users and (by default) the first 400 movies: a Gram phase of about 50k coordinates keeps
    # SecAgg to seconds in CI; PRIVIREC_MAX_ITEM=1682 is the run of docs/results/privirec.md.
    awk -v max="${PRIVIREC_MAX_ITEM:-400}" '$1 <= 30 && $2 <= max' "$ml" >"$WORK/u.data"
    data="ml-100k:$WORK/u.data"
  fi
  # SECAGG_FLAGS (e.g. "--secagg_graph=harary --secagg_degree=8"): docs/results/privirec.md's
  # SecAgg+ byte counts; unset, the default graph (complete at 30 users).
  local seed=5
  local run=("$@" ${SECAGG_FLAGS:-} --split=holdout:0.2 --rounds="$rounds" --seed="$seed"
    --eval_every=0)
  "$SIM" --data="$data" "${run[@]}" --client_processes=3 --state_dir="$WORK/sim" \
    >"$WORK/sim.log" 2>&1 || fail "fedmf-sim failed"
  grep -q "event=training_end rounds=$rounds " "$WORK/sim.log" || fail "sim: not $rounds rounds"
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$data" "${run[@]}" \
    --wait_for_users=30 --state_dir="$WORK/net"
  # The sim keys its users' noise (the DP options) by the run's seed: the clients must too.
  start_clients 3 "$data" --insecure_noise_seed="$seed"
  wait "$COORD_PID" || fail "coordinator failed"
  for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
  grep -q "event=training_end rounds=$rounds " "$WORK/coordinator.log" ||
    fail "network: not $rounds rounds"
  grep -q ' event=population_frozen .*users=30' "$WORK/coordinator.log" || fail "no population"
  [[ "$(grep -c ' event=secagg_session ' "$WORK/coordinator.log")" == "$phases" ]] ||
    fail "network: not $phases SecAgg sessions"
  [[ "$(grep -c ' event=round .*applied=yes .*contributors=30 dropouts=0 ' \
    "$WORK/coordinator.log")" == "$phases" ]] || fail "network: not $phases phases of all 30 users"
  cmp "$WORK/sim/checkpoint.pb" "$WORK/net/checkpoint.pb" || fail "checkpoints differ"
  diff <(grep ' event=evaluation ' "$WORK/sim.log" | sed 's/^ts=[^ ]* //') \
    <(grep ' event=evaluation ' "$WORK/coordinator.log" | sed 's/^ts=[^ ]* //') ||
    fail "evaluations differ"
  grep ' event=evaluation ' "$WORK/coordinator.log" | tail -n 1
  # Both phases' traffic (bytes per user up and down, from the serialized messages) and time.
  grep -E ' event=round .*applied=yes ' "$WORK/coordinator.log"
  echo "checkpoints identical ($(stat -c %s "$WORK/sim/checkpoint.pb") bytes)"
}

# spent_by_last phase|round LAST EPSILON: the releases before the last (round 0's phases
# 0..LAST, or phase 0 of rounds 0..LAST) report less than EPSILON spent (whole-run (epsilon,
# delta)), the last exactly EPSILON.
spent_by_last() {
  local unit="$1" last="$2" budget="$3" i spent where
  for ((i = 0; i <= last; i++)); do
    if [[ "$unit" == phase ]]; then where="round=0 phase=$i"; else where="round=$i phase=0"; fi
    spent="$(field epsilon_dp "$(grep " event=round $where .*applied=yes " "$WORK/coordinator.log")")"
    if ((i < last)); then
      awk -v s="$spent" -v b="$budget" 'BEGIN { exit !(s > 0 && s < b) }' ||
        fail "$where: epsilon_dp=$spent, not in (0, $budget)"
    else
      [[ "$spent" == "$budget" ]] || fail "$where: epsilon_dp=$spent, not $budget"
    fi
  done
}

# recover_from_a_killed_client SECAGG_FLAGS...: ML-100K-sized synthetic data, 4 client processes,
# one killed -9 during a round's SecAgg; every round must still be applied, one with dropouts.
recover_from_a_killed_client() {
  start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --num_users=943 --num_items=1682 \
    --rounds=4 --participation=0.1 --min_clients=40 --dropout_fraction=0.5 --set=mechanism=none \
    --set=item_model=full --set=compression=2 --stage_timeout_s=10 --wait_for_users=943 "$@"
  start_clients 4 synthetic
  wait_for "$WORK/coordinator.log" "event=round round=0 " 60
  kill_during_secagg
  wait "$COORD_PID" || fail "coordinator failed"
  grep -q 'event=training_end rounds=4 ' "$WORK/coordinator.log" || fail "not 4 rounds"
  local line
  line="$(grep -E ' event=round .*applied=yes .*dropouts=[1-9]' "$WORK/coordinator.log" | head -n 1)"
  [[ -n "$line" ]] || fail "no applied round with dropouts"
  echo "recovered: $line"
}

case "$CASE" in
  converge)
    # 5 rounds, no noise, 3 client processes. Margin: test RMSE (the rating predictor's: user
    # mean + ridge on the item factors) measured 1.303 -> 1.215 over these 5 rounds on loopback; we
    # require a drop of 0.04, under half of that.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$SMALL" --rounds=5 \
      --participation=0.1 --min_clients=20 --set=mechanism=none --set=item_model=full --set=compression=2 \
      --wait_for_users=300
    start_clients 3 "$SMALL"
    wait_for "$WORK/coordinator.log" "event=round round=1 " 30
    status_while_held
    grep -q "connected_clients=3" "$WORK/status.out" || fail "status: $(cat "$WORK/status.out")"
    wait "$COORD_PID" || fail "coordinator failed"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
    converge_check "$WORK/coordinator.log"
    ;;

  metrics)
    # The Prometheus scrape of a running coordinator (--metrics_listen on a free port), read while
    # the 3 clients are held: it agrees with Admin.Status, its counters move with the rounds, and
    # it has every metric deploy/grafana-dashboard.json plots (a private run: privacy is spent).
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --metrics_listen=127.0.0.1:0 \
      --eval_data="$SMALL" --rounds=1000 --participation=0.1 --min_clients=20 --set=item_model=full \
      --set=compression=2 --wait_for_users=300
    METRICS_PORT="$(field port "$(grep ' event=metrics_listening ' "$WORK/coordinator.log")")"
    [[ -n "$METRICS_PORT" ]] || fail "no event=metrics_listening line"
    start_clients 3 "$SMALL"
    wait_for "$WORK/coordinator.log" "event=round round=1 " 30
    scrape_while_held first
    round="$(field round " $(cat "$WORK/status.out")")"
    applied='fedmf_aggregations_applied_total{kind="training"}'
    [[ "$(metric first fedmf_rounds_completed)" == "$round" ]] || fail "rounds_completed != $round"
    [[ "$(metric first "$applied")" == "$round" ]] || fail "applied != $round"
    [[ "$(metric first fedmf_live_streams)" == 3 ]] || fail "live streams"
    [[ "$(metric first fedmf_registered_participants)" == 300 ]] || fail "registered"
    advertised="$(metric first 'fedmf_stage_duration_seconds_count{kind="training",stage="AdvertiseKeys"}')"
    ((advertised >= round)) || fail "$advertised AdvertiseKeys stages for $round rounds"
    awk '$1 == "process_resident_memory_bytes" && $2 > 1e6 { ok = 1 } END { exit !ok }' \
      "$WORK/metrics-first.txt" || fail "no resident memory figure"
    python3 - "$(dirname "$0")/../../deploy/grafana-dashboard.json" "$WORK/metrics-first.txt" <<'PY' ||
import json, re, sys
exprs = [t["expr"] for p in json.load(open(sys.argv[1]))["panels"] for t in p["targets"]]
plotted = {m for e in exprs for m in re.findall(r"\b(?:fedmf|process)_[a-z0-9_]+", e)}
scraped = {line.split("{")[0].split(" ")[0] for line in open(sys.argv[2]) if line[0] != "#"}
missing = sorted(plotted - scraped)
print("dashboard metrics not scraped:", missing) if missing else None
sys.exit(1 if missing or not plotted else 0)
PY
      fail "the dashboard plots metrics the coordinator does not expose"
    wait_for "$WORK/coordinator.log" "event=round round=$((round + 1)) " 30
    scrape_while_held second
    later="$(field round " $(cat "$WORK/status.out")")"
    ((later > round)) || fail "status did not move: $round -> $later"
    [[ "$(metric second "$applied")" == "$later" ]] || fail "applied != $later"
    echo "scraped rounds $round then $later"
    kill -TERM "$COORD_PID"
    wait "$COORD_PID" || fail "coordinator did not stop cleanly"
    ;;

  chunked)
    # The converge run with 1 KiB chunks both ways: the task (the full item model, 200 x 14
    # doubles = 22 KiB) and every masked input (2800 values) travel in chunks and are reassembled;
    # the model must train as well (same margin as converge). The evaluation round after
    # round 5 sends its tasks (the federated-evaluation plan around the same model) in chunks too
    # and decodes its sum.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$SMALL" --rounds=5 \
      --participation=0.1 --min_clients=20 --set=mechanism=none --set=item_model=full --set=compression=2 \
      --wait_for_users=300 --chunk_bytes=1024 --eval_every=5
    start_clients 3 "$SMALL" --chunk_bytes=1024
    wait_for "$WORK/coordinator.log" "event=round round=1 " 30
    status_while_held
    grep -q "up_bytes_per_user_masked_input=[1-9]" "$WORK/status.out" ||
      fail "status: $(cat "$WORK/status.out")"
    wait "$COORD_PID" || fail "coordinator failed"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
    grep -q 'event=training_end rounds=5 ' "$WORK/coordinator.log" || fail "not 5 rounds"
    ! grep -q 'event=chunks_rejected' "$WORK/coordinator.log" || fail "chunks rejected"
    ! grep -q 'event=client_error' "$WORK"/client-*.log || fail "a client reported an error"
    line="$(grep ' event=round ' "$WORK/coordinator.log" | tail -n 1)"
    # Every cohort member sent its masked input in chunks; tasks went out in chunks.
    (($(field chunks_up "$line") >= 30 && $(field chunks_down "$line") >= 3)) || fail "no chunks: $line"
    eval_line="$(grep ' event=federated_eval ' "$WORK/coordinator.log" | tail -n 1)"
    grep -q 'applied=yes' <<<"$eval_line" || fail "evaluation round not decoded: $eval_line"
    (($(field chunks_down "$eval_line") >= 3)) || fail "evaluation tasks not chunked: $eval_line"
    first="$(grep ' event=evaluation ' "$WORK/coordinator.log" | head -n 1)"
    last="$(grep ' event=evaluation ' "$WORK/coordinator.log" | tail -n 1)"
    r0="$(field test_rmse "$first")"
    r1="$(field test_rmse "$last")"
    echo "test RMSE $r0 -> $r1 with chunks; $(grep -o 'chunks_up=[0-9]* chunks_down=[0-9]*' <<<"$line")"
    awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b < a - 0.04) }' || fail "RMSE $r0 -> $r1"
    ;;

  client_kill)
    # ML-100K-sized synthetic data so a round lasts ~1 s; kill -9 one of 4 client processes while
    # a round is in ShareKeys or MaskedInput. The cohort (94) tolerates 47 dropouts
    # (--dropout_fraction=0.5, n_min 40); a shard holds ~24 of the cohort, so SecAgg recovers.
    # Complete graph without signatures: 94 users in 4 processes verifying 94 signatures each
    # triple the round time on a loaded machine (signed rounds: case signatures; Harary:
    # harary_kill).
    recover_from_a_killed_client --secagg_graph=complete --secagg_signatures=false
    ;;

  coordinator_restart) restart_coordinator KILL ;;
  coordinator_sigterm) restart_coordinator TERM ;;

  clear_uploads)
    # --secure_aggregation=false: every client uploads its (here noise-free) vector in the clear.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --num_users=300 --num_items=200 \
      --rounds=3 --participation=0.1 --set=mechanism=none --secure_aggregation=false --wait_for_users=300
    start_clients 3 "$SMALL"
    wait "$COORD_PID" || fail "coordinator failed"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
    grep -q 'event=training_end rounds=3 ' "$WORK/coordinator.log" || fail "not 3 rounds"
    [[ "$(grep -c ' event=round .*applied=yes .*contributors=30 ' "$WORK/coordinator.log")" == 3 ]] ||
      fail "rounds without all 30 uploads"
    ;;

  federated_eval)
    # Evaluation rounds after rounds 2 and 4 over EVERY user (--eval_participation=1), no dropout:
    # the federated metrics are the central ones of the same model (--eval_data, logged on the
    # same line) up to the fixed-point rounding. Each user's squared-error sum is rounded to
    # 2^-f, so the sum S moves by at most n 2^-(f+1) (n contributors) and RMSE = sqrt(S / N) by at
    # most n 2^-(f+1) / (N (rmse_fed + rmse_central)); 1e-12 relative covers double summation.
    data="synthetic:users=100,items=80,per_user=20,min_per_user=8"
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$data" --rounds=4 \
      --participation=0.2 --min_clients=10 --set=mechanism=none --set=item_model=full --set=compression=2 \
      --wait_for_users=100 --eval_every=2 --eval_participation=1
    start_clients 3 "$data"
    wait_for "$WORK/coordinator.log" "event=federated_eval round=2 " 40
    status_while_held
    grep -q "^federated_eval round=2 contributors=100 " "$WORK/status.out" ||
      fail "status: $(cat "$WORK/status.out")"
    wait "$COORD_PID" || fail "coordinator failed"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
    grep -q 'event=training_end rounds=4 ' "$WORK/coordinator.log" || fail "not 4 rounds"
    [[ "$(grep -c ' event=federated_eval .*applied=yes .*contributors=100 ' "$WORK/coordinator.log")" == 2 ]] ||
      fail "not two complete evaluation rounds"
    while IFS= read -r line; do
      fed="$(field test_rmse "$line")"
      central="$(field central_test_rmse "$line")"
      n="$(field contributors "$line")"
      f="$(field fraction_bits "$line")"
      ratings="$(field test_ratings "$line")"
      echo "round $(field round "$line"): federated RMSE $fed, central $central"
      awk -v n="$n" -v f="$f" -v N="$ratings" -v a="$fed" -v b="$central" 'BEGIN {
        t = n * 2^(-(f + 1)) / (N * (a + b)) + 1e-12 * a
        d = a - b
        printf "  |difference| %.3g, tolerance %.3g\n", (d < 0 ? -d : d), t
        exit !(d <= t && -d <= t) }' ||
        fail "federated RMSE $fed differs from central $central by more than the rounding bound"
    done < <(grep ' event=federated_eval ' "$WORK/coordinator.log")
    grep -q 'event=round_result .*kind=evaluation applied=yes' "$WORK/client-0.log" ||
      fail "client saw no evaluation result"
    ;;

  bad_token)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --num_users=300 --num_items=200 \
      --rounds=1 --enrollment_token=right-token
    if "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$SMALL" --enrollment_token=wrong \
      >"$WORK/client.log" 2>&1; then
      fail "client with a wrong token was accepted"
    fi
    grep -q 'UNAUTHENTICATED: enrollment token refused' "$WORK/client.log" || fail "no refusal"
    grep -q 'event=register .*status="UNAUTHENTICATED' "$WORK/coordinator.log" || fail "not logged"
    kill -0 "$COORD_PID" || fail "coordinator died"
    ;;

  harary)
    # The converge setup on SecAgg+'s Harary graph, forced on a cohort of 30 (the finder would pick
    # the complete graph there): degree 8, t = 9 - floor(0.3 * 9) = 7 per neighborhood.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$SMALL" --rounds=5 \
      --participation=0.1 --min_clients=20 --set=mechanism=none --set=item_model=full --set=compression=2 \
      --wait_for_users=300 --secagg_graph=harary --secagg_degree=8
    start_clients 3 "$SMALL"
    wait "$COORD_PID" || fail "coordinator failed"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
    [[ "$(grep -c 'event=secagg_session .*graph=harary degree=8 threshold=7 ' \
      "$WORK/coordinator.log")" == 5 ]] || fail "not 5 Harary sessions"
    converge_check "$WORK/coordinator.log"
    ;;

  signatures)
    # The converge setup with signed advertisements and the consistency round (5 SecAgg stages).
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$SMALL" --rounds=5 \
      --participation=0.1 --min_clients=20 --set=mechanism=none --set=item_model=full --set=compression=2 \
      --wait_for_users=300 --secagg_graph=complete --secagg_signatures=true \
      --secagg_consistency_check=true
    start_clients 3 "$SMALL"
    wait "$COORD_PID" || fail "coordinator failed"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
    [[ "$(grep -c 'event=secagg_session .*signatures=on consistency_check=on' \
      "$WORK/coordinator.log")" == 5 ]] || fail "not 5 signed sessions"
    [[ "$(grep -c ' event=round .*applied=yes .*consistency_s=' "$WORK/coordinator.log")" == 5 ]] ||
      fail "not 5 rounds through the consistency check"
    converge_check "$WORK/coordinator.log"
    ;;

  harary_kill)
    # client_kill on a Harary graph of degree 40 (41 holders, t = 41 - floor(0.5 * 41) = 21): the
    # killed process holds ~24 of the cohort of 94, about 10 of each neighborhood.
    recover_from_a_killed_client --secagg_graph=harary --secagg_degree=40
    grep -q 'event=secagg_session .*graph=harary degree=40 ' "$WORK/coordinator.log" ||
      fail "not a Harary session"
    ;;

  streams_500)
    # 500 single-user clients, each registered with its own key on its own stream, from one
    # process over 50 channels (TCP connections); 2 rounds with a cohort of 50.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --num_users=500 --num_items=100 \
      --rounds=2 --participation=0.1 --min_clients=20 --set=mechanism=none --set=item_model=full \
      --set=compression=2 --set=rank=4 --wait_for_users=500
    data="synthetic:users=500,items=100,per_user=20,min_per_user=5"
    "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$data" --one_stream_per_user --channels=50 \
      --give_up_after_s=40 >"$WORK/client-0.log" 2>&1 &
    CLIENT_PIDS=($!)
    PIDS+=($!)
    wait_for "$WORK/coordinator.log" "event=round round=0 " 40
    status_while_held
    grep -q "connected_clients=500 " "$WORK/status.out" || fail "status: $(cat "$WORK/status.out")"
    wait "$COORD_PID" || fail "coordinator failed"
    wait "${CLIENT_PIDS[0]}" || fail "the client failed"
    [[ "$(grep -c ' event=round .*applied=yes .*contributors=50 ' "$WORK/coordinator.log")" == 2 ]] ||
      fail "not 2 full rounds"
    [[ "$(grep -c ' event=register .*status=OK' "$WORK/coordinator.log")" -ge 500 ]] ||
      fail "fewer than 500 registrations"
    ;;

  # PriviRec: the degree and Gram sums, GF-CF.
  privirec_secagg) secure_sums_equal_sim 2 1 --algorithm=privirec --set=filter=gf-cf ;;
  # PriviRec-k: the degree sum and L = 2 power sums at k = 16, GF-CF from the basis.
  privirec_k_secagg)
    secure_sums_equal_sim 3 1 --algorithm=privirec-k --set=rank=16 --set=power_sums=2
    ;;
  # PriviRec-k's options beyond the paper: an iterate of k + p = 24 columns of which the basis
  # keeps 16 after L = 3 power sums, and BSPM-EM built from it (its low-pass of 8 columns), on
  # synthetic data (needs no download).
  privirec_k_bspm_oversampled_secagg)
    SUMS_DATA="synthetic:users=30,items=200,per_user=20,min_per_user=8,seed=5" \
      secure_sums_equal_sim 4 1 --algorithm=privirec-k --set=rank=16 --set=oversample=8 \
      --set=power_sums=3 --set=filter=bspm-em --set=low_pass_rank=8
    grep -q ' event=new_run .*rank=16 oversample=8 .*filter=bspm-em low_pass_rank=8 ' \
      "$WORK/coordinator.log" || fail "the run's options are not logged"
    ;;
  # The DP options: each user's distributed discrete Gaussian share inside its masked input; the
  # ledger (in the compared checkpoints) spends the whole budget by the last sum, not before.
  privirec_dp_secagg)
    secure_sums_equal_sim 2 1 --algorithm=privirec --set=filter=gf-cf --set=epsilon=5
    spent_by_last phase 1 5
    ;;
  privirec_k_dp_secagg)
    secure_sums_equal_sim 3 1 --algorithm=privirec-k --set=rank=16 --set=power_sums=2 \
      --set=epsilon=5
    spent_by_last phase 2 5
    ;;
  # With a noise committee of 5 of the 30 users: the others' sparse rounded vectors inside SecAgg.
  privirec_dp_committee_secagg)
    secure_sums_equal_sim 2 1 --algorithm=privirec --set=filter=gf-cf --set=epsilon=5 \
      --set=noise_parties=5
    spent_by_last phase 1 5
    ;;
  privirec_k_dp_committee_secagg)
    secure_sums_equal_sim 3 1 --algorithm=privirec-k --set=rank=16 --set=power_sums=2 \
      --set=epsilon=5 --set=noise_parties=5
    spent_by_last phase 2 5
    ;;
  # DP-ALS: 3 rounds, each a secure sum of every user's statistics with its distributed discrete
  # Gaussian share; the ledger spends the whole budget by the last round, not before.
  dpals_secagg)
    secure_sums_equal_sim 3 3 --algorithm=dp-als --epsilon=5 --set=rank=4 --set=item_cap=20
    spent_by_last round 2 5
    ;;
  sim_pbm) sim_equivalence "${DPMF_SMALL[@]}" --set=mechanism=pbm --epsilon=10 ;;
  sim_none) sim_equivalence "${DPMF_SMALL[@]}" --set=mechanism=none ;;
  sim_gaussian_clear)
    sim_equivalence "${DPMF_SMALL[@]}" --set=mechanism=gaussian --epsilon=10 --delta=1e-5 \
      --secure_aggregation=false
    ;;
  sim_ldp_gd)
    # Private GD: clear one-coordinate reports, each user's factor in the clients' state; the
    # ledger holds exactly the run's epsilon after its k = 3 rounds.
    sim_equivalence --algorithm=ldp-gd --epsilon=0.9 --set=rank=4
    grep -q 'pure epsilon 0.9,' "$WORK/ledger-report.log" ||
      fail "ledger: not pure epsilon 0.9: $(cat "$WORK/ledger-report.log")"
    grep -q ' event=new_run .*epsilon_per_round=0.3 ' "$WORK/coordinator.log" ||
      fail "no per-round epsilon in the new_run line"
    ;;
  sim_ldp_gd_dr)
    # Private GD-DR, unbiased projection, reports through SecAgg (defence in depth).
    sim_equivalence --algorithm=ldp-gd-dr --epsilon=1 --set=rank=4 --set=projection_dim=8 \
      --set=projection_mode=unbiased --set=secure_sum=true
    grep -q ' event=secagg_session ' "$WORK/coordinator.log" || fail "no SecAgg session"
    ;;
  sim_lfl_sgdmf)
    # LFL-SGDMF, two-phase noise: phase 0's noisy item gradients through SecAgg, then phase 1
    # (the replacement noise) for phase 0's contributors only, each user's u_i and noise key in
    # the clients' state; n_min = ceil(0.7 * 15) = 11 from omega. Both phases are charged:
    # three rounds stay within (4, 1e-5).
    sim_equivalence --algorithm=lfl-sgdmf --epsilon=4 --delta=1e-5 --set=rank=4 --min_clients=0
    [[ "$(grep -c ' event=round .* phase=1 .*applied=yes .*threshold=11 ' "$WORK/coordinator.log")" == 3 ]] ||
      fail "network: not 3 applied phase-1 sums with threshold 11"
    eps="$(grep ' event=round ' "$WORK/coordinator.log" | tail -1 | sed -E 's/.* epsilon_dp=([^ ]*) .*/\1/')"
    awk -v e="$eps" 'BEGIN { exit !(e > 0 && e <= 4) }' || fail "epsilon spent $eps, budget 4"
    ;;
  lfl_killed_in_phase_1)
    # lfl-sgdmf, omega 0.5 (n_min 47 of a cohort of 94): client process 3 (a quarter of the users)
    # is killed -9 while phase 1 (the noise replacement, for phase 0's contributors only) runs its
    # SecAgg. That phase is applied without them (their phase-0 noise stays in the estimate) and
    # every round of the run completes.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --algorithm=lfl-sgdmf \
      --num_users=943 --num_items=1682 --set=rank=8 --rounds=2 --participation=0.1 --set=omega=0.5 \
      --dropout_fraction=0.5 --epsilon=8 --delta=1e-5 --stage_timeout_s=10 --wait_for_users=943
    start_clients 4 synthetic
    kill_during_secagg 1
    wait "$COORD_PID" || fail "coordinator failed"
    grep -q 'event=training_end rounds=2 ' "$WORK/coordinator.log" || fail "not 2 rounds"
    line="$(grep -E ' event=round .* phase=1 .*applied=yes .*dropouts=[1-9]' "$WORK/coordinator.log" |
      head -n 1)"
    [[ -n "$line" ]] || fail "no applied phase 1 with dropouts"
    echo "phase 1 applied with dropouts: $line"
    ;;
  sim_hdpmf)
    # HDPMF, sound mode: each user's u_i and private beta_i in the clients' state, Laplace noise
    # shares for n_min = 10 through SecAgg; the ledger holds the worst case, eps = 3, after T = 3.
    SIM_FACTOR_MODEL=0 sim_equivalence --algorithm=hdpmf --epsilon=3 --set=rank=4
    grep -q 'pure epsilon 3, .* per user (worst case; heterogeneous' "$WORK/ledger-report.log" ||
      fail "ledger: not a heterogeneous pure epsilon 3: $(cat "$WORK/ledger-report.log")"
    grep -q ' event=new_run .*mode=sound .*epsilon_per_round=1 ' "$WORK/coordinator.log" ||
      fail "no sound-mode new_run line with epsilon_per_round=1"
    ;;

  sim_hdpmf_paper_choices)
    # HDPMF and PDPMF in paper mode with every choice of the paper where ours differs (the
    # ablation of docs/results/hdpmf.md): u_i off the unit ball, unclamped predictions, zero-mean
    # factors, PDPMF's t from a given mean weight, and devices scoring with their trained u_i in a
    # federated evaluation after the last round, in fedmf-sim and through real processes alike.
    for variant in hdpmf pdpmf; do
      rm -rf "$WORK/sim" "$WORK/net"  # a fresh run each, not a resumed one
      weight=()
      [[ "$variant" == pdpmf ]] && weight=(--set=pdpmf_mean_weight=0.3)
      SIM_FACTOR_MODEL=0 sim_equivalence --algorithm=hdpmf --epsilon=3 --set=rank=4 \
        --set=mode=paper --set=variant="$variant" --set=skip_user_projection=true \
        --set=skip_prediction_clamp=true --set=init_center=0 --set=score_with_trained_factor=true \
        ${weight[@]+"${weight[@]}"} --eval_every=3 --eval_participation=1
      for log in sim.log coordinator.log; do
        grep -q " event=federated_eval round=3 applied=yes " "$WORK/$log" ||
          fail "$variant: no applied federated evaluation after round 3 in $log"
      done
      diff <(grep -o ' event=federated_eval .*' "$WORK/sim.log" | grep -o ' test_rmse=[^ ]*') \
        <(grep -o ' event=federated_eval .*' "$WORK/coordinator.log" | grep -o ' test_rmse=[^ ]*') ||
        fail "$variant: the federated evaluations differ"
      grep -q 'per rating (worst case; heterogeneous' "$WORK/ledger-report.log" ||
        fail "$variant: the ledger is not per rating: $(cat "$WORK/ledger-report.log")"
    done
    grep -q ' event=new_run .*variant=pdpmf .*pdpmf_threshold=0.3\b' "$WORK/coordinator.log" ||
      fail "pdpmf: not t = 0.3 x 3 / 3 rounds: $(grep ' event=new_run ' "$WORK/coordinator.log")"
    ;;

  sim_default_budget)
    # The defaults (DPMF-RP's fedmf options) with only --epsilon=5: the ledger holds whole-run,
    # user-level (5, 1e-5)-DP (calibrated to spend the budget: 4.95 <= epsilon <= 5).
    "$SIM" --data="synthetic:users=60,items=80,per_user=12,min_per_user=5,seed=3" --rounds=3 \
      --epsilon=5 --client_processes=2 --state_dir="$WORK/sim" >"$WORK/sim.log" 2>&1 ||
      fail "fedmf-sim failed: $(tail -n 3 "$WORK/sim.log")"
    grep -q ' event=new_run mechanism=gaussian .*epsilon=5 delta=1e-05 participation=1 ' \
      "$WORK/sim.log" || fail "not the fedmf options at (5, 1e-5): $(grep ' event=new_run ' "$WORK/sim.log")"
    grep -q 'event=training_end rounds=3 ' "$WORK/sim.log" || fail "sim: not 3 rounds"
    "$BUILD/tools/fedmf-privacy" --ledger="$WORK/sim/checkpoint.pb" >"$WORK/ledger-report.log" ||
      fail "fedmf-privacy --ledger failed"
    eps="$(sed -n 's/^spent: .*, (\([0-9.e+-]*\), 1e-05)-DP per user (worst case)$/\1/p' \
      "$WORK/ledger-report.log")"
    [[ -n "$eps" ]] && awk -v e="$eps" 'BEGIN { exit !(e >= 4.95 && e <= 5) }' ||
      fail "ledger: not (5, 1e-5)-DP per user: $(cat "$WORK/ledger-report.log")"
    echo "ledger: ($eps, 1e-05)-DP per user after 3 rounds"
    ;;
  sim_config_files)
    # configs/dpmf-rp/fedmf.textproto is the run without --config, and paper.textproto the run of
    # its options given by --set: byte-identical checkpoints (which record the options) and
    # evaluations. An option DPMF-RP does not have is refused before any round.
    data="synthetic:users=60,items=80,per_user=12,min_per_user=5,seed=3"
    configs="$(dirname "$DPMF_RP_PAPER")"
    same_run() {  # same_run NAME_A NAME_B: their checkpoints and evaluations are the same
      cmp "$WORK/$1/checkpoint.pb" "$WORK/$2/checkpoint.pb" || fail "$1 and $2: checkpoints differ"
      diff <(grep ' event=evaluation ' "$WORK/$1.log" | sed 's/^ts=[^ ]* //') \
        <(grep ' event=evaluation ' "$WORK/$2.log" | sed 's/^ts=[^ ]* //') ||
        fail "$1 and $2: evaluations differ"
    }
    sim() {  # sim NAME FLAGS...
      local name="$1"
      shift
      "$SIM" --data="$data" --rounds=3 --epsilon=1 --client_processes=2 \
        --state_dir="$WORK/$name" "$@" >"$WORK/$name.log" 2>&1 ||
        fail "fedmf-sim $* failed: $(tail -n 3 "$WORK/$name.log")"
    }
    sim default
    sim fedmf --config="$configs/fedmf.textproto"
    same_run default fedmf
    sim paper --config="$configs/paper.textproto"
    sim paper-set --set mechanism=pbm --set item_model=compressed --set=pbm_geometry=column_l1 \
      --set=mu=0.9 --set=learning_rate=0.05 --set=ranking_kappa=-1 --set=contribution_clip=0 \
      --set participation=0.1 --set=delta=0
    grep -q ' event=new_run mechanism=pbm .* options="mechanism: MECHANISM_PBM ' "$WORK/paper.log" ||
      fail "no paper options in the new_run line"
    same_run paper paper-set
    if "$SIM" --data="$data" --rounds=3 --set=no_such_option=3 >"$WORK/refused.log" 2>&1; then
      fail "fedmf-sim took an option dpmf-rp does not have"
    fi
    grep -q "no_such_option" "$WORK/refused.log" || fail "$(cat "$WORK/refused.log")"
    ! grep -q ' event=round ' "$WORK/refused.log" || fail "refused only after a round"
    ;;

  sim_fronts)
    # The scale-out roles in one process (fedmf-sim --fronts, docs/scale-out.md): 3 fronts that sum
    # their members' masked inputs and a combiner give the single coordinator's run, byte for byte.
    data="synthetic:users=60,items=80,per_user=12,min_per_user=5,seed=3"
    run=(--data="$data" --split=holdout:0.2 --rounds=3 --participation=0.25 --min_clients=10
      --seed=5 --set=mechanism=pbm --epsilon=10 "${DPMF_SMALL[@]}" --client_processes=6)
    for fronts in 0 3; do
      "$SIM" "${run[@]}" --fronts="$fronts" --state_dir="$WORK/fronts-$fronts" \
        >"$WORK/fronts-$fronts.log" 2>&1 || fail "fedmf-sim --fronts=$fronts failed"
      grep -q " event=sim_start .* fronts=$fronts " "$WORK/fronts-$fronts.log" ||
        fail "--fronts=$fronts: no sim_start line saying so"
      grep -q 'event=training_end rounds=3 ' "$WORK/fronts-$fronts.log" ||
        fail "--fronts=$fronts: not 3 rounds"
    done
    cmp "$WORK/fronts-0/checkpoint.pb" "$WORK/fronts-3/checkpoint.pb" || fail "checkpoints differ"
    diff <(grep ' event=evaluation ' "$WORK/fronts-0.log" | sed 's/^ts=[^ ]* //') \
      <(grep ' event=evaluation ' "$WORK/fronts-3.log" | sed 's/^ts=[^ ]* //') ||
      fail "evaluations differ"
    echo "checkpoints identical ($(stat -c %s "$WORK/fronts-3/checkpoint.pb") bytes)"
    ;;

  sim_run_file)
    # A run is one RunSpec: `fedmf-coordinator describe-run` turns a command line into a file, and
    # fedmf-sim --run=FILE is the run of those flags byte for byte (the checkpoint, which records
    # the run, and the evaluations); so is fedmf-coordinator --run=FILE with 2 fedmf-client
    # processes, the file's start condition waiting for all 60 users (as sim_equivalence: the same
    # cohorts; a start condition is not recorded). A run flag beside --run is refused naming it,
    # before any round.
    data="synthetic:users=60,items=80,per_user=12,min_per_user=5,seed=3"
    run=(--config="$DPMF_RP_PAPER" "${DPMF_SMALL[@]}" --set=mechanism=pbm --epsilon=10 --rounds=3
      --participation=0.25 --min_clients=10 --dropout_fraction=0.4 --seed=5 --run_id=spec-test)
    "$COORD" describe-run "${run[@]}" >"$WORK/run.textproto" 2>"$WORK/describe.err" ||
      fail "describe-run failed: $(cat "$WORK/describe.err")"
    grep -qx 'algorithm: "dpmf-rp"' "$WORK/run.textproto" &&
      grep -q '^options: "mechanism: MECHANISM_PBM .*rank: 4 ' "$WORK/run.textproto" &&
      grep -qx 'run_id: "spec-test"' "$WORK/run.textproto" ||
      fail "describe-run: not the run of the flags: $(cat "$WORK/run.textproto")"
    sim_run() {  # sim_run NAME FLAGS...
      local name="$1"
      shift
      "$SIM" --data="$data" --split=holdout:0.2 --client_processes=2 --state_dir="$WORK/$name" \
        "$@" >"$WORK/$name.log" 2>&1 || fail "fedmf-sim $* failed: $(tail -n 3 "$WORK/$name.log")"
      grep -q 'event=training_end rounds=3 ' "$WORK/$name.log" || fail "$name: not 3 rounds"
    }
    sim_run flags "${run[@]}"
    sim_run file --run="$WORK/run.textproto"
    cmp "$WORK/flags/checkpoint.pb" "$WORK/file/checkpoint.pb" || fail "checkpoints differ"
    diff <(grep ' event=evaluation ' "$WORK/flags.log" | sed 's/^ts=[^ ]* //') \
      <(grep ' event=evaluation ' "$WORK/file.log" | sed 's/^ts=[^ ]* //') ||
      fail "evaluations differ"
    id="$(grep -o ' run=flags run_spec=[0-9a-f]*$' "$WORK/flags.log" | sed 's/.*run_spec=//')"
    [[ -n "$id" ]] || fail "no run_spec in the flags' new_run: $(grep ' event=new_run ' "$WORK/flags.log")"
    grep -q " event=new_run .* run=$WORK/run.textproto run_spec=$id\$" "$WORK/file.log" ||
      fail "the file's new_run does not name the same run $id: $(grep ' event=new_run ' "$WORK/file.log")"
    if "$SIM" --data="$data" --run="$WORK/run.textproto" --rounds=4 >"$WORK/refused.log" 2>&1; then
      fail "fedmf-sim took --rounds beside --run"
    fi
    grep -q "fedmf-sim: INVALID_ARGUMENT: --run=$WORK/run.textproto is the whole run: drop --rounds=4" \
      "$WORK/refused.log" || fail "$(cat "$WORK/refused.log")"
    ! grep -q ' event=round ' "$WORK/refused.log" || fail "refused only after a round"
    { cat "$WORK/run.textproto"; echo "wait_for_users: 60"; } >"$WORK/run-net.textproto"
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 --eval_data="$data" \
      --split=holdout:0.2 --run="$WORK/run-net.textproto" --state_dir="$WORK/net"
    start_clients 2 "$data" --insecure_noise_seed=5
    wait "$COORD_PID" || fail "coordinator failed: $(tail -n 3 "$WORK/coordinator.log")"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
    grep -q 'event=training_end rounds=3 ' "$WORK/coordinator.log" || fail "network: not 3 rounds"
    ! grep ' event=round ' "$WORK/coordinator.log" | grep -qv ' applied=yes .*dropouts=0 ' ||
      fail "network: a round had dropouts, the runs cannot match"
    cmp "$WORK/flags/checkpoint.pb" "$WORK/net/checkpoint.pb" || fail "network: checkpoints differ"
    grep -q " event=new_run .* run=$WORK/run-net.textproto run_spec=$id\$" "$WORK/coordinator.log" ||
      fail "network: not the run $id: $(grep ' event=new_run ' "$WORK/coordinator.log")"
    echo "checkpoints identical ($(stat -c %s "$WORK/file/checkpoint.pb") bytes), run_spec=$id"
    ;;

  *)
    echo "unknown case $CASE"
    exit 2
    ;;
esac
echo "PASS $CASE"
