#!/usr/bin/env bash
# The main job: installs missing dependencies, builds, then shows fedmf doing its job on the
# built-in synthetic data (synthetic:ml-100k: 943 users x 1682 items shaped like MovieLens 100K,
# users rating what suits their taste). Two federated DPMF-RP trainings with fedmf's recommended
# settings, each 40 rounds:
#   1. over the network: one fedmf-coordinator and 4 fedmf-client processes (each hosting a
#      quarter of the users) talk gRPC over loopback, with Bonawitz secure aggregation in every
#      round; no DP noise, a cohort of 94 users a round;
#   2. private: whole-run, user-level (5, 1e-5)-DP (Gaussian noise, every user in every round) in
#      fedmf-sim, the same coordinator and clients in one process, secure sums added in the clear
#      (the same sums);
# then the item-popularity ranking as the yardstick, and a table of the three on the same held-out
# ratings. Prints per-round progress; every process is stopped on exit. Extra arguments go to the
# networked run's fedmf-coordinator (e.g. --rounds=10); DEMO_PRIVATE=0 skips the private run,
# DEMO_EPSILON=E changes its budget.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target fedmf-coordinator fedmf-client fedmf-sim \
  fedmf-central

CLIENTS=4
DATA=synthetic
COORD=build/server/fedmf-coordinator
source tools/lib/processes.sh
processes_init demo
trap 'exit 130' INT TERM  # Ctrl-C still runs the EXIT cleanup

EPSILON="${DEMO_EPSILON:-5}"
cat <<NOTE

==> Federated DPMF-RP on 943 synthetic users (MovieLens-100K-shaped), 40 rounds, two runs:
    1. over gRPC on loopback: 1 coordinator + 4 client processes, a cohort of 94 users per round,
       secure aggregation hides each user's vector from the coordinator; mechanism=none: NO
       differential-privacy noise, so the released sums carry no DP guarantee.
    2. private, in fedmf-sim (the same coordinator and clients in one process; the secure sums are
       added in the clear, the same sums): --epsilon=${EPSILON}, i.e. whole-run, user-level
       (${EPSILON}, 1e-5)-differential privacy, Gaussian noise, every user in every round (a cohort
       of 943 through loopback SecAgg takes over a minute a round on 2 cores).
    Both with fedmf's recommended settings (DPMF-RP's defaults). The models are scored on a
    held-out 20% of the synthetic ratings (simulation only: a real coordinator has no ratings),
    next to ranking every user's unseen items by popularity.

NOTE
# run_federated NAME FLAGS...: one training run (coordinator + CLIENTS client processes) with the
# coordinator's FLAGS; progress to stdout, the log in $WORK/NAME/coordinator.log.
run_federated() {
  local name="$1"
  shift
  mkdir -p "$WORK/$name"
  local log="$WORK/$name/coordinator.log"
  # Port 0: the coordinator binds a free port and logs it.
  start_coordinator "$log" --listen=127.0.0.1:0 --eval_data="$DATA" --state_dir="$WORK/$name/state" \
    --rounds=40 --wait_for_users=943 "$@"
  echo "==> [$name] coordinator on 127.0.0.1:$PORT; starting $CLIENTS client processes"
  local clients=()
  for ((i = 0; i < CLIENTS; i++)); do
    build/client/fedmf-client --coordinator="127.0.0.1:$PORT" --data="$DATA" --shard="$i/$CLIENTS" \
      >"$WORK/$name/client-$i.log" 2>&1 &
    clients+=($!)
    PIDS+=($!)
  done

  # Progress: one line per round from the coordinator's key=value log.
  tail --pid="$COORD_PID" -n +1 -f "$log" | while IFS= read -r line; do
    case "$line" in
      *" event=evaluation "*)
        printf '    model after %3s rounds: test RMSE %-8s precision@10 %-9s recall@10 %s\n' \
          "$(field round "$line")" "$(field test_rmse "$line")" "$(field precision10 "$line")" \
          "$(field recall10 "$line")" ;;
      *" event=federated_eval "*)
        printf '    federated evaluation after %3s rounds (%s users, SecAgg): test RMSE %.6s precision@10 %.6s\n' \
          "$(field round "$line")" "$(field contributors "$line")" "$(field test_rmse "$line")" \
          "$(field precision10 "$line")" ;;
      *" event=round "*)
        printf 'round %3s applied=%s contributors=%s/%s dropouts=%s secagg=%ss+%ss+%ss+%ss up=%sB down=%sB %s\n' \
          "$(field round "$line")" "$(field applied "$line")" "$(field contributors "$line")" \
          "$(field participants "$line")" "$(field dropouts "$line")" "$(field advertise_s "$line")" \
          "$(field share_keys_s "$line")" "$(field masked_input_s "$line")" \
          "$(field unmasking_s "$line")" "$(field bytes_in "$line")" "$(field bytes_out "$line")" \
          "$(grep -o 'epsilon_dp=[^ ]*\|delta=[^ ]*' <<<"$line" | tr '\n' ' ')" ;;
      *" event=training_end "*) echo "==> [$name] $line"; break ;;
    esac
  done &
  local progress=$!
  PIDS+=($progress)

  local status=0
  wait "$COORD_PID" || status=$?
  for pid in "${clients[@]}"; do wait "$pid" || status=$?; done
  wait "$progress" 2>/dev/null || true
  if [[ $status -ne 0 ]]; then
    echo "==> [$name] a process failed (exit $status); logs:"
    tail -n 20 "$WORK/$name"/*.log
    exit "$status"
  fi
}

SECONDS=0
# start_coordinator defaults to DPMF-RP's paper options (the runtime tests' settings); the demo
# runs the configuration fedmf recommends, with a cohort loopback SecAgg carries on 2 cores.
run_federated non-private --config=configs/dpmf-rp/fedmf.textproto --participation=0.1 --min_clients=66 \
  --dropout_fraction=0.3 --set=mechanism=none "$@"
nonprivate_s=$SECONDS
first="$(grep -m 1 ' event=evaluation ' "$WORK/non-private/coordinator.log")"
last="$(grep ' event=evaluation ' "$WORK/non-private/coordinator.log" | tail -n 1)"

private_last=""
spent="(not run)"
private_s=0
if [[ "${DEMO_PRIVATE:-1}" != 0 ]]; then
  echo
  echo "==> [private] fedmf-sim --epsilon=$EPSILON --rounds=40 (DPMF-RP's defaults), about 2 s a round"
  SECONDS=0
  build/tools/sim/fedmf-sim --data="$DATA" --epsilon="$EPSILON" --rounds=40 --plain_sum \
    --client_processes=2 --evaluate_every=10 >"$WORK/private.log" 2>&1 ||
    { echo "==> [private] fedmf-sim failed:"; tail -n 5 "$WORK/private.log"; exit 1; }
  private_s=$SECONDS
  grep ' event=evaluation ' "$WORK/private.log" | while IFS= read -r line; do
    printf '    model after %3s rounds: test RMSE %-8s precision@10 %-9s recall@10 %s\n' \
      "$(field round "$line")" "$(field test_rmse "$line")" "$(field precision10 "$line")" \
      "$(field recall10 "$line")"
  done
  private_last="$(grep ' event=evaluation ' "$WORK/private.log" | tail -n 1)"
  summary="$(grep ' event=sim_summary ' "$WORK/private.log")"
  spent="($(field epsilon_dp "$summary"), 1e-5)-DP"
fi
# The yardstick: every user's unseen items ranked by their number of training ratings.
build/tools/fedmf-central --data="$DATA" --model=popularity --split=holdout:0.2 --seed=1 \
  >"$WORK/popularity.log" 2>&1 || true
popularity="$(grep ' event=fold_done ' "$WORK/popularity.log" || true)"

echo
echo "==> held-out 20% of the synthetic ratings (N = 10, relevant: rating >= 4)"
printf '    %-12s %9s %12s %16s %11s\n' metric initial non-private "private $spent" popularity
for m in test_rmse precision10 recall10 f1_10; do
  pm="${m%10}"
  pm="${pm#test_}"
  [[ "$pm" == f1_ ]] && pm=f1
  printf '    %-12s %9.5s %12.5s %16.5s %11.5s\n' "$m" "$(field "$m" "$first")" "$(field "$m" "$last")" \
    "$(field "$m" "$private_last")" "$(field "$pm" "$popularity")"
done
echo "    wall time: non-private ${nonprivate_s} s (networked), private ${private_s} s (fedmf-sim)"
# verdict NAME EVENT_LINE: the model's F1@10 against popularity's, said plainly.
verdict() {
  [[ -n "$2" && -n "$popularity" ]] || return 0
  awk -v name="$1" -v f1="$(field f1_10 "$2")" -v pop="$(field f1 "$popularity")" 'BEGIN {
    r = f1 / pop
    says = "does NOT beat popularity"
    if (r > 1) says = "beats popularity only narrowly"
    if (r >= 1.1) says = "beats popularity"
    printf "    %s model: F1@10 %.3f, %.2fx popularity'"'"'s %.3f: %s\n", name, f1, r, pop, says }'
}
verdict non-private "$last"
verdict "private $spent" "$private_last"
grep -h ' event=local_top_n ' "$WORK"/non-private/client-0.log | sed 's/^/    client 0 local recommendation (non-private run): /' || true
