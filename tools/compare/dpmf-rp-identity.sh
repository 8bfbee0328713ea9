#!/usr/bin/env bash
# Does DPMF-RP still compute exactly what an older build computed? Runs the same seeded DPMF-RP
# training with two builds and compares the coordinators' checkpoints (the model and Adam state,
# byte for byte; the privacy ledger's values, whose text format may have gained fields) and their
# evaluation lines:
#   sim      fedmf-sim, Table 2 seed 1 of tools/experiments/run.py dpmf-rp (MovieLens 100K; skipped with
#            a message when absent)
#   network  fedmf-coordinator + 2 fedmf-client processes on loopback, seeded noise, the coordinator
#            waiting for all 60 synthetic users (runtime_test.sh sim_equivalence's run)
# Usage: tools/compare/dpmf-rp-identity.sh OLD_BUILD NEW_BUILD [--data=PATH/u.data]
# e.g. OLD_BUILD from `git worktree add /work/old 093a66d` (before the algorithm contract v2) built
# with `cmake --preset release && cmake --build build --target fedmf-sim fedmf-coordinator
# fedmf-client`. Prints IDENTICAL or DIFFERS per comparison; exits 1 if anything differs.
set -euo pipefail
OLD="$1"
NEW="$2"
DATA="$(dirname "$0")/../../../shared/data/ml-100k/u.data"
for arg in "${@:3}"; do
  case "$arg" in
    --data=*) DATA="${arg#--data=}" ;;
    *) echo "unknown argument $arg" >&2; exit 2 ;;
  esac
done
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
COORD="$NEW/server/fedmf-coordinator"  # processes.sh's start_coordinator needs one
source "$ROOT/tools/lib/processes.sh"
processes_init identity
STATUS=0

# same WHAT A B: prints WHAT IDENTICAL if files A and B are equal, else DIFFERS.
same() {
  if cmp -s "$2" "$3"; then echo "$1 IDENTICAL"; else echo "$1 DIFFERS"; STATUS=1; fi
}

# dpmf_flags BINARY --NAME=VALUE...: DPMF-RP's options as BINARY takes them, in the configuration
# compared here: the one before the fedmf preset (--epsilon as RDP at order 2), PBM charged
# coordinate by coordinate. A build with typed options gets --config=$DPMF_RP_PAPER and
# --set=NAME=VALUE; an older one the flags as given, with --preset=paper and
# --pbm_accounting=coordinate where it has them.
dpmf_flags() {
  local help
  help="$({ "$1" --helpfull 2>&1 || true; })"
  shift
  if grep -qE -- '--set \(' <<<"$help"; then
    echo "--config=$DPMF_RP_PAPER"
    echo --set=pbm_accounting=coordinate
    printf -- '--set=%s\n' "${@#--}"
    return
  fi
  if grep -q -- '-pbm_accounting' <<<"$help"; then echo --pbm_accounting=coordinate; fi
  if grep -q -- '-preset' <<<"$help"; then echo --preset=paper; fi
  printf '%s\n' "$@"
}

# compare NAME: the checkpoints and evaluation lines of runs NAME-old and NAME-new.
compare() {
  local v
  for v in old new; do
    protoc -I"$ROOT/proto" --decode=fedmf.v1.CoordinatorCheckpoint \
      "$ROOT/proto/fedmf/v1/federation.proto" <"$WORK/$1-$v/checkpoint.pb" >"$WORK/$1-$v.txt"
    grep '^updater_state' "$WORK/$1-$v.txt" >"$WORK/$1-$v.state"
    # Ledger text v1 -> v2 added unit= and heterogeneous= fields; compare the values.
    grep '^ledger' "$WORK/$1-$v.txt" | sed 's/ledger v1/ledger v2/; s/ unit=user//g;
      s/ heterogeneous=no//g; s/ fnv1a64=[0-9a-f]*//' >"$WORK/$1-$v.ledger"
    grep ' event=evaluation ' "$WORK/$1-$v.log" | sed 's/^ts=[^ ]* //' >"$WORK/$1-$v.eval"
  done
  same "$1: model and optimizer state" "$WORK/$1-old.state" "$WORK/$1-new.state"
  same "$1: privacy ledger values" "$WORK/$1-old.ledger" "$WORK/$1-new.ledger"
  same "$1: evaluations ($(wc -l <"$WORK/$1-new.eval") lines)" "$WORK/$1-old.eval" \
    "$WORK/$1-new.eval"
}

if [[ -f "$DATA" ]]; then
  TUNED=(--mechanism=pbm --pbm_geometry=rotated_l2 --pbm_clip_multiplier=1.25 --item_model=full
    --compression=3 --mu=0.01 --learning_rate=0.2 --ranking_kappa=5)
  RUN=(--participation=1 --rounds=100 --epsilon=100 --plain_sum --eval_every=0 --evaluate_every=100)
  for v in old new; do
    build="$OLD"
    [[ "$v" == new ]] && build="$NEW"
    echo "sim $v: 100 rounds of 943 users..." >&2
    "$build/tools/sim/fedmf-sim" --data="ml-100k:$DATA" --seed=1 --split_seed=1 \
      --client_processes=2 "${RUN[@]}" $(dpmf_flags "$build/tools/sim/fedmf-sim" "${TUNED[@]}") \
      --state_dir="$WORK/sim-$v" >"$WORK/sim-$v.log" 2>&1 ||
      fail "fedmf-sim ($v) failed"
  done
  compare sim
else
  echo "sim: $DATA not found (MovieLens 100K; pass --data=PATH/u.data): skipped"
fi

data="synthetic:users=60,items=80,per_user=12,min_per_user=5,seed=3"
run=(--split=holdout:0.2 --rounds=3 --participation=0.25 --min_clients=10 --seed=5)
options=(--rank=4 --item_model=full --compression=2 --mechanism=pbm)
for v in old new; do
  build="$OLD"
  [[ "$v" == new ]] && build="$NEW"
  COORD="$build/server/fedmf-coordinator"
  start_coordinator "$WORK/network-$v.log" --listen=127.0.0.1:0 --eval_data="$data" "${run[@]}" \
    $(dpmf_flags "$COORD" "${options[@]}") --wait_for_users=60 --state_dir="$WORK/network-$v"
  clients=()
  for i in 0 1; do
    "$build/client/fedmf-client" --coordinator="127.0.0.1:$PORT" --data="$data" \
      --split=holdout:0.2 --shard="$i/2" --insecure_noise_seed=5 >"$WORK/network-$v-client-$i.log" 2>&1 &
    clients+=($!)
    PIDS+=($!)
  done
  wait "$COORD_PID" || fail "coordinator ($v) failed"
  for pid in "${clients[@]}"; do wait "$pid" || fail "a client ($v) failed"; done
  [[ "$(grep -c ' event=round .*applied=yes .*dropouts=0 ' "$WORK/network-$v.log")" == 3 ]] ||
    fail "network ($v): a round had dropouts, the runs cannot match"
done
compare network
exit "$STATUS"
