#!/usr/bin/env bash
# Integration tests of the scale-out roles (docs/scale-out.md, section 11 item 4): a
# fedmf-coordinator --role=combiner, fronts (--role=front) attached to it, and fedmf-client
# processes spread over the fronts, all on 127.0.0.1. Usage: scaleout_test.sh BUILD_DIR CASE, CASE
# one of loopback, same_checkpoint, kill_front_<Stage> (Stage: AdvertiseKeys, ShareKeys,
# MaskedInput, Unmasking), kill_combiner_<Stage> (ShareKeys, Unmasking), service, late_device,
# wire, frozen_front, check_in.
# Every process started here is killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
source "$(dirname "$0")/../../tools/lib/processes.sh"
processes_init scaleout
CLIENT_PIDS=()

# start_fronts N: N fronts attached to the combiner listening on $PORT (PORT is kept); their ports
# in FRONT_PORTS, pids in FRONT_PIDS, logs front-F.log. Returns once the combiner attached all N.
start_fronts() {
  local n="$1" combiner="$PORT" f
  FRONT_PORTS=()
  FRONT_PIDS=()
  for ((f = 0; f < n; f++)); do
    start_front "$f" 127.0.0.1:0 "$combiner"
    FRONT_PORTS+=("$PORT")
  done
  PORT="$combiner"
  wait_for "$WORK/combiner.log" ' event=front_attached ' 30 "$n"
}
# start_front F LISTEN COMBINER_PORT: front F on LISTEN (its pid replaces FRONT_PIDS[F]); sets PORT.
start_front() {
  "$COORD" --role=front --listen="$2" --combiner="127.0.0.1:$3" --front_name="front-$1" \
    >>"$WORK/front-$1.log" 2>&1 &
  FRONT_PIDS[$1]=$!
  PIDS+=($!)
  wait_listening "$WORK/front-$1.log" "$!"
}
# start_clients N DATA PORT... [-- FLAGS]: N client processes, shard i/N each. Client i is given
# every PORT, starting from the (i mod #PORTs)-th, as one gRPC target (ipv4:A,B,C): it connects to
# the first that answers and, when that one is gone, to the next (pick_first), as devices behind a
# DNS name with several fronts do. Pids in CLIENT_PIDS, logs client-I.log. CLIENTS="I J ...":
# only those of the N (the others are started by a later call).
start_clients() {
  local n="$1" data="$2" i j
  shift 2
  local ports=()
  while (($#)) && [[ "$1" != -- ]]; do
    ports+=("$1")
    shift
  done
  (($#)) && shift
  for i in ${CLIENTS:-$(seq 0 $((n - 1)))}; do
    local target="ipv4:"
    for ((j = 0; j < ${#ports[@]}; j++)); do
      target+="127.0.0.1:${ports[(i + j) % ${#ports[@]}]},"
    done
    "$CLIENT" --coordinator="${target%,}" --data="$data" --shard="$i/$n" --give_up_after_s=60 \
      "$@" >"$WORK/client-$i.log" 2>&1 &
    CLIENT_PIDS[i]=$!
    PIDS+=($!)
  done
}
wait_run() {
  wait "$COORD_PID" || fail "$1 failed"
  for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client of the $1 failed"; done
  CLIENT_PIDS=()
}
# Every phase of every round applied without dropouts (one line per phase).
all_applied() {
  ! grep ' event=round ' "$1" | grep -qv ' applied=yes .*dropouts=0 ' || fail "$1: a dropout"
}

DATA="synthetic:users=120,items=100,per_user=12,min_per_user=5,seed=3"
SEED=5
# A cohort of 30 of the 120 users (n_min 10); DPMF-RP's paper options come from start_coordinator.
RUN=(--eval_data="$DATA" --split=holdout:0.2 --participation=0.25 --min_clients=10 --seed="$SEED")

# loopback: 3 fronts, 6 client processes spread over them; every round applies with the whole
# cohort, the combiner attached the 3 fronts and received no device stream.
loopback() {
  start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 "${RUN[@]}" \
    --rounds=3 --wait_for_users=120 --state_dir="$WORK/state"
  start_fronts 3
  start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
  wait_run combiner
  grep -q 'event=training_end rounds=3 ' "$WORK/combiner.log" || fail "not 3 rounds"
  all_applied "$WORK/combiner.log"
  local f
  for f in 0 1 2; do
    grep -q ' event=stream_open ' "$WORK/front-$f.log" || fail "front $f opened no stream"
  done
  ! grep -q ' event=stream_open ' "$WORK/combiner.log" || fail "the combiner opened a stream"
  grep ' event=round ' "$WORK/combiner.log" | tail -n 1
}

# same_checkpoint: the same seeded run (every user live, --insecure_noise_seed) through a single
# coordinator and through a combiner with 3 fronts ends with byte-identical checkpoints (model,
# optimizer state, ledger) and the same evaluations.
same_checkpoint() {
  start_coordinator "$WORK/single.log" --listen=127.0.0.1:0 "${RUN[@]}" --rounds=3 \
    --wait_for_users=120 --state_dir="$WORK/single"
  start_clients 4 "$DATA" "$PORT" -- --insecure_noise_seed="$SEED"
  wait_run "single coordinator"
  start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 "${RUN[@]}" \
    --rounds=3 --wait_for_users=120 --state_dir="$WORK/combiner"
  start_fronts 3
  start_clients 4 "$DATA" "${FRONT_PORTS[@]}" -- --insecure_noise_seed="$SEED"
  wait_run combiner
  local log
  for log in single combiner; do
    grep -q 'event=training_end rounds=3 ' "$WORK/$log.log" || fail "$log: not 3 rounds"
    all_applied "$WORK/$log.log"
  done
  cmp "$WORK/single/checkpoint.pb" "$WORK/combiner/checkpoint.pb" || fail "checkpoints differ"
  diff <(grep ' event=evaluation ' "$WORK/single.log" | sed 's/^ts=[^ ]* //') \
    <(grep ' event=evaluation ' "$WORK/combiner.log" | sed 's/^ts=[^ ]* //') ||
    fail "evaluations differ"
  echo "checkpoints identical ($(stat -c %s "$WORK/single/checkpoint.pb") bytes)"
}

# stage_now: the combiner's current SecAgg stage, from its Admin.Status ("" when none).
stage_now() {
  "$COORD" status --target="127.0.0.1:$PORT" 2>/dev/null | sed -n 's/.* stage=\([^ ]*\).*/\1/p' ||
    true
}

# wait_for_status REGEX: until the combiner's status matches (bounded by the combiner's life).
wait_for_status() {
  while ! "$COORD" status --target="127.0.0.1:$PORT" 2>/dev/null | grep -qE "$1"; do
    kill -0 "$COORD_PID" 2>/dev/null || fail "the combiner exited before its status matched $1"
    sleep 0.05
  done
}

# kill_front STAGE: kill -9 front 0 of 3 while the combiner's aggregation is in STAGE (found by
# its status, asked again with every client process held by SIGSTOP, so that the stage cannot
# move on between the look and the kill). Front 0's users drop out of the round, which completes
# or aborts and is retried; its clients reconnect to the next front of their target. The run
# completes its 20 rounds, all applied, and the ledger has 20 entries: none applied twice.
kill_front() {
  local want="$1" killed="" pid
  start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 "${RUN[@]}" \
    --rounds=20 --wait_for_users=120 --state_dir="$WORK/state"
  start_fronts 3
  CLIENT_PIDS=()
  if [[ "$want" == AdvertiseKeys ]]; then
    # Too short a stage to be seen by polling: the clients of fronts 1 and 2 register and are held,
    # and those of front 0 complete the population, so that round 0's AdvertiseKeys waits for the
    # held ones.
    CLIENTS="1 2 4 5" start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
    wait_for_status 'registered_users=80 '
    for pid in "${CLIENT_PIDS[@]}"; do kill -STOP "$pid"; done
    CLIENTS="0 3" start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
  else
    start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
  fi
  # Bounded by the run itself: a run that ends before such a stage fails the test (20 rounds of
  # about 0.5 s each, a stage of at least 50 ms, the status asked about every 20 ms).
  while [[ -z "$killed" ]] && kill -0 "$COORD_PID" 2>/dev/null; do
    [[ "$(stage_now)" == "$want" ]] || continue
    for pid in "${CLIENT_PIDS[@]}"; do kill -STOP "$pid" 2>/dev/null || true; done
    if [[ "$(stage_now)" == "$want" ]]; then
      kill -9 "${FRONT_PIDS[0]}"
      killed="$(grep -c ' event=round ' "$WORK/combiner.log" || true)"
    fi
    for pid in "${CLIENT_PIDS[@]}"; do kill -CONT "$pid" 2>/dev/null || true; done
  done
  [[ -n "$killed" ]] || fail "never saw the combiner in $want"
  wait_run combiner
  grep -q 'event=training_end rounds=20 ' "$WORK/combiner.log" || fail "not 20 rounds"
  local applied final i
  applied="$(grep -c ' event=round .* applied=yes ' "$WORK/combiner.log")"
  [[ "$applied" == 20 ]] || fail "$applied rounds applied, not 20"
  final="$(grep ' event=checkpoint ' "$WORK/combiner.log" | tail -n 1)"
  [[ "$(field ledger_entries "$final")" == 20 ]] || fail "ledger: $final"
  grep ' event=front_lost front=[0-9]* users=40 ' "$WORK/combiner.log" ||
    fail "the combiner did not lose front 0's 40 users"
  for i in 0 3; do
    grep -q ' event=reconnect ' "$WORK/client-$i.log" || fail "client $i did not reconnect"
  done
  grep -q ' event=stream_open client=shard-0/6 .*status=OK' "$WORK/front-1.log" ||
    fail "client 0 did not move to front 1"
  echo "killed front 0 in $want after $killed round lines; $(grep -c ' event=round ' \
    "$WORK/combiner.log") round lines, 20 applied"
}

# kill_combiner STAGE: kill -9 the combiner while its aggregation is in STAGE (found as in
# kill_front), and restart it on its port and state directory. The fronts lose it (their device
# streams end, so devices register again), attach to the new one, and the run resumes from the
# last checkpoint: the resumed rounds and ledger are the checkpoint's, and the run ends with 6
# rounds and 6 ledger entries, none applied twice.
kill_combiner() {
  local want="$1" killed="" pid
  local flags=("${RUN[@]}" --rounds=6 --wait_for_users=120 --state_dir="$WORK/state")
  start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 "${flags[@]}"
  start_fronts 3
  start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
  wait_for "$WORK/combiner.log" ' event=round round=1 ' 60
  while [[ -z "$killed" ]] && kill -0 "$COORD_PID" 2>/dev/null; do
    [[ "$(stage_now)" == "$want" ]] || continue
    for pid in "${CLIENT_PIDS[@]}"; do kill -STOP "$pid" 2>/dev/null || true; done
    if [[ "$(stage_now)" == "$want" ]]; then
      kill -9 "$COORD_PID"
      killed=yes
    fi
    for pid in "${CLIENT_PIDS[@]}"; do kill -CONT "$pid" 2>/dev/null || true; done
  done
  [[ -n "$killed" ]] || fail "never saw the combiner in $want"
  wait "$COORD_PID" 2>/dev/null || true
  local saved resume final
  saved="$(grep ' event=checkpoint ' "$WORK/combiner.log" | tail -n 1)"
  mv "$WORK/combiner.log" "$WORK/combiner-1.log"
  start_coordinator "$WORK/combiner.log" --role=combiner --listen="127.0.0.1:$PORT" "${flags[@]}"
  wait_run "restarted combiner"
  resume="$(grep ' event=resume ' "$WORK/combiner.log")" || fail "no resume line"
  [[ "$(field rounds_done "$resume")" == "$(field rounds_done "$saved")" ]] ||
    fail "resumed at $resume, saved $saved"
  [[ "$(field ledger_entries "$resume")" == "$(field rounds_done "$saved")" ]] ||
    fail "ledger: $resume"
  grep -q 'event=training_end rounds=6 ' "$WORK/combiner.log" || fail "not 6 rounds"
  final="$(grep ' event=checkpoint ' "$WORK/combiner.log" | tail -n 1)"
  [[ "$(field ledger_entries "$final")" == 6 ]] || fail "final ledger: $final"
  [[ "$(grep -c ' event=front_attached ' "$WORK/combiner.log")" -ge 3 ]] ||
    fail "the fronts did not attach to the restarted combiner"
  echo "killed the combiner in $want after round $(field rounds_done "$saved"); resumed, 6 rounds"
}

# service: a combiner that is a service (--role=combiner --service) with 3 fronts; two runs
# submitted back to back (PBM at epsilon 1, 2 and 3 rounds) are trained by the same 6 client
# processes, which stay across the runs (run_done reaches them through their fronts): both done,
# with 2 and 3 ledger entries.
service() {
  head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$WORK/admin-token"
  start_coordinator "$WORK/combiner.log" --role=combiner --service --listen=127.0.0.1:0 \
    --state_dir="$WORK/state" --admin_token_file="$WORK/admin-token"
  start_fronts 3
  start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
  local n rounds
  for n in 1 2; do
    rounds=$((n + 1))
    cat >"$WORK/run-$n.textproto" <<SPEC
algorithm: "dpmf-rp"
set: ["mechanism=pbm", "rank=4", "item_model=full", "compression=2"]
rounds: $rounds
epsilon: 1
participation: 0.25
min_clients: 10
wait_for_users: 120
num_users: 120
num_items: 100
SPEC
    "$COORD" submit "$WORK/run-$n.textproto" --target="127.0.0.1:$PORT" \
      --admin_token_file="$WORK/admin-token" >/dev/null || fail "submit of run $n refused"
  done
  wait_for "$WORK/combiner.log" ' event=run_end .*state=done' 120 2
  local i
  for ((i = 0; i < 6; i++)); do
    wait_for "$WORK/client-$i.log" ' event=run_done ' 30 2
    kill -0 "${CLIENT_PIDS[i]}" 2>/dev/null || fail "client $i left between the runs"
  done
  [[ "$(grep -c ' event=round .* applied=yes ' "$WORK/combiner.log")" == 5 ]] ||
    fail "not 2 + 3 rounds applied"
  grep ' event=run_end ' "$WORK/combiner.log" | sed 's/^ts=[^ ]* //'
  # Admin.Status lists the 3 fronts, whose reports (every second) account for all 120 users.
  local users=0
  while ((users != 120)); do
    kill -0 "$COORD_PID" 2>/dev/null || fail "the combiner exited"
    users="$("$COORD" status --target="127.0.0.1:$PORT" --admin_token_file="$WORK/admin-token" |
      awk '/^front / { n++; for (i = 1; i <= NF; i++) if ($i ~ /^users=/) { sub("users=", "", $i); u += $i } }
           END { print (n == 3 ? u : -1) }')"
    sleep 0.2
  done
  "$COORD" status --target="127.0.0.1:$PORT" --admin_token_file="$WORK/admin-token" | grep '^front '
}

# late_device: the fronts' model cache. A combiner with --serve publishes the model after every
# round (--publish_every=1) and serves on when the run is over; its 2 fronts received each version
# as it was published, and a third front that attaches after the run is welcomed with every
# version kept and word that training is over. A C example (the mobile library) that first
# registers after the end, at an old front and at the new one, downloads the final model (the
# library checks its SHA-256) in chunks of 1 MiB.
late_device() {
  local example="$BUILD/client/fedmf-c-example"
  local data="synthetic:users=120,items=40000,per_user=12,min_per_user=5,seed=3"
  [[ -x "$example" ]] || fail "no $example (the mobile library's C example)"
  start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 --eval_data="$data" \
    --participation=0.25 --min_clients=10 --seed="$SEED" --rounds=3 --wait_for_users=120 \
    --eval_every=0 --set=item_model=full --state_dir="$WORK/state" --serve --publish_every=1
  start_fronts 2
  start_clients 4 "$data" "${FRONT_PORTS[@]}"
  local pid
  for pid in "${CLIENT_PIDS[@]}"; do wait "$pid" || fail "a client failed"; done
  wait_for "$WORK/combiner.log" ' event=serving_models versions=3 latest_version=3 ' 30
  grep -q ' event=model_published version=3 .*round=3 final=yes ' "$WORK/combiner.log" ||
    fail "the final model is not version 3"
  local combiner="$PORT" late id=1 port
  start_front 2 127.0.0.1:0 "$combiner"
  late="$PORT"
  PORT="$combiner"
  wait_for "$WORK/combiner.log" ' event=front_attached ' 30 3
  for port in "${FRONT_PORTS[0]}" "$late"; do
    "$example" --coordinator="127.0.0.1:$port" --id="$id" --num_items=40000 --ratings=3:5,10:4 \
      --give_up_after_s=30 >"$WORK/example-$id.log" 2>&1 ||
      fail "the late device at port $port failed: $(tail -3 "$WORK/example-$id.log")"
    grep -q "event=c_example_downloaded participant=$id version=3 chunks=[2-9]" \
      "$WORK/example-$id.log" || fail "no download of version 3: $(cat "$WORK/example-$id.log")"
    grep -q "event=c_example_end participant=$id done=yes .*top5=[0-9]" "$WORK/example-$id.log" ||
      fail "the late device does not recommend"
    id=$((id + 1))
  done
  ! grep -q ' event=model_refused ' "$WORK"/front-*.log || fail "a front refused a model"
  grep 'event=c_example_downloaded' "$WORK"/example-*.log
}

# wire: what the combiner receives, checked on the wire (issue 44's test). The combiner records
# every message of its replica links (--insecure_replica_trace), in a run on the complete graph
# (with signatures and the consistency check, the defaults), then in one on a Harary graph;
# replica_trace_check finds, in every aggregation, no individual masked input, at most one
# partial sum per front and no front's group sum the combiner could unmask, while the cohort's sum
# unmasks (the control).
wire() {
  local graph flags
  for graph in complete harary; do
    flags=()
    [[ "$graph" == harary ]] &&
      flags=(--secagg_graph=harary --secagg_degree=8 --secagg_consistency_check=false)
    start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 "${RUN[@]}" \
      --rounds=2 --wait_for_users=120 --state_dir="$WORK/state-$graph" ${flags[@]+"${flags[@]}"} \
      --insecure_replica_trace="$WORK/trace-$graph.pb"
    start_fronts 3
    start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
    wait_run "combiner ($graph graph)"
    all_applied "$WORK/combiner.log"
    "$BUILD/tests/integration/replica_trace_check" "$WORK/trace-$graph.pb" ||
      fail "the $graph graph's trace"
    kill "${FRONT_PIDS[@]}"
    wait "${FRONT_PIDS[@]}" 2>/dev/null || true
    local log
    for log in "$WORK"/combiner.log "$WORK"/front-?.log; do mv "$log" "${log%.log}-$graph.log"; done
  done
}

# frozen_front: front 0 stops answering without closing its connections (SIGSTOP: what a network
# partition looks like to the combiner, whose TCP connection stays up). The combiner's keepalive
# (--replica_keepalive_s=1) loses it once a ping goes unanswered, and its 40 users leave the
# rounds instead of timing out in each. Front 0 is then let go on: its link is gone, so it ends
# its devices' streams; they register again (through it, once it has reattached as a new front,
# or another), and the run completes its 20 rounds, all applied, with 20 ledger entries.
frozen_front() {
  start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 "${RUN[@]}" \
    --rounds=20 --wait_for_users=120 --state_dir="$WORK/state" --replica_keepalive_s=1
  start_fronts 3
  start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
  wait_for "$WORK/combiner.log" ' event=round round=1 ' 60
  kill -STOP "${FRONT_PIDS[0]}"
  wait_for "$WORK/combiner.log" ' event=front_lost front=0 users=40 ' 60
  local lost_after
  lost_after="$(grep -c ' event=round ' "$WORK/combiner.log" || true)"
  kill -CONT "${FRONT_PIDS[0]}"
  wait_run combiner
  grep -q 'event=training_end rounds=20 ' "$WORK/combiner.log" || fail "not 20 rounds"
  local applied final
  applied="$(grep -c ' event=round .* applied=yes ' "$WORK/combiner.log")"
  [[ "$applied" == 20 ]] || fail "$applied rounds applied, not 20"
  final="$(grep ' event=checkpoint ' "$WORK/combiner.log" | tail -n 1)"
  [[ "$(field ledger_entries "$final")" == 20 ]] || fail "ledger: $final"
  grep -q ' event=combiner_lost ' "$WORK/front-0.log" || fail "front 0 never saw its link end"
  echo "front 0 frozen after round 1, lost by keepalive after $lost_after round lines;" \
    "$(grep -c ' event=round ' "$WORK/combiner.log") round lines, 20 applied"
}

# check_in: check-in through fronts. Only the combiner has --check_in_period_s=1 and
# --check_in_window_s=0.5; its Welcome gives them to the 3 fronts, which send the streams of each
# finished round and idle streams away with CheckInLater. The clients come back when told, and
# the run completes its 6 rounds, all applied with the whole cohort.
check_in() {
  start_coordinator "$WORK/combiner.log" --role=combiner --listen=127.0.0.1:0 "${RUN[@]}" \
    --rounds=6 --wait_for_users=120 --state_dir="$WORK/state" --check_in_period_s=1 \
    --check_in_window_s=0.5
  start_fronts 3
  start_clients 6 "$DATA" "${FRONT_PORTS[@]}"
  wait_run combiner
  grep -q 'event=training_end rounds=6 ' "$WORK/combiner.log" || fail "not 6 rounds"
  all_applied "$WORK/combiner.log"
  local f dismissed=0 told
  for f in 0 1 2; do
    dismissed=$((dismissed + $(grep -c ' event=check_in_dismissed ' "$WORK/front-$f.log" || true)))
  done
  ((dismissed > 0)) || fail "no front sent a stream away"
  told="$(cat "$WORK"/client-*.log | grep -c ' event=check_in_later ' || true)"
  ((told > 0)) || fail "no client was told to check in later"
  echo "check-in through 3 fronts: $dismissed dismissals, $told CheckInLater at the clients"
}

case "$CASE" in
  loopback | same_checkpoint | service | late_device | wire | frozen_front | check_in) "$CASE" ;;
  kill_front_*) kill_front "${CASE#kill_front_}" ;;
  kill_combiner_*) kill_combiner "${CASE#kill_combiner_}" ;;
  *) fail "unknown case $CASE" ;;
esac
echo "PASS scaleout $CASE"
