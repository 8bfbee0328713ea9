#!/usr/bin/env bash
# The privacy-utility frontier of docs/results/privacy-utility.md on MovieLens 100K: DPMF-RP with
# --set=mechanism=pbm, gaussian and ddg, and the dp-popularity baseline, at whole-run user-level
# (epsilon, 1e-5)-DP, next to the non-private baselines (global mean, user mean, popularity).
# Every run appends one CSV line to OUT/runs.csv; privacy-utility.py turns it into the tables and
# the .dat file of privacy-utility.gp.
#
#   tools/experiments/privacy-utility.sh [--data=PATH] [--out=DIR] [--build=DIR]
#       [--epsilons="1 2 5 10 20"] [--mechanisms="pbm gaussian ddg"] [--seeds="1"]
#       [--caps="8 16 32 64 128 256"] [--rounds="20 50 100"] [--clips="0.008 0.016 0.032"]
#       [--steps="0.2 0.5"] [--dpals-grid="eps5-k8-T2-C20 ..."] [--subsample=N] [--reuse-logs]
#       [--synthetic=SPEC] [GROUP...]
#
# GROUPs (default: baselines popularity-tune popularity dpmf): baselines (fedmf-central
# global-mean, user-mean, popularity and dp-popularity without noise), popularity-tune (the cap c
# of dp-popularity at every epsilon, seed 1 only: the hyper-parameter choice), popularity
# (dp-popularity at the chosen cap, --seeds), dpmf (DPMF-RP per mechanism and epsilon, --seeds),
# gaussian-tune (issue 19's "fewer and larger rounds" and "better clipping" routes: the Gaussian
# at each epsilon over --rounds x --clips x --steps, seed 1 only), gaussian-best (the best
# gaussian-tune configuration per epsilon by F1@10 on seed 1, on --seeds), dpals-tune (DP-ALS over
# --dpals-grid on seed 1: each name is eps<E> then settings k<rank> T<rounds> C<item cap>
# U<factor bound> R<rating clip> s<Gram share> mu<item ridge> l<user ridge> kap<kappa> m<mechanism>
# g<item Gram: full, count or none> j<shrinkage t> i<constant first column of V_0: true, false>
# f<scale to the cap: true, false> v<init scale of V_0>,
# joined by '-'; unset settings keep dp-als's default options), dpals (the best dpals-tune name per
# epsilon by F1@10 on seed 1, on --seeds), noise-schedule (the dpmf group's Gaussian with
# --set=noise_schedule=prefix_sum, issue 50 item 2, on --seeds; compare with dpmf's gaussian rows),
# outlook (the noise outlook of DPMF-RP's Gaussian and of the chosen DP-ALS setting at each
# epsilon: fedmf-sim --setup_only's event=noise_outlook, into OUT/outlook.csv; no training).
# --subsample=N: the data is a uniform random N-user subsample of u.data (seed 600, written to
# ${TMPDIR:-/tmp}, never to the repository) and the results go to OUT/subsample-N; the groups that
# pick the best setting (popularity, gaussian-best, dpals) still pick it from OUT/runs.csv.
# --synthetic=SPEC: the built-in generator's data (e.g. ml-100k,users=400: fedmf-sim's
# --data=synthetic:SPEC) instead of u.data, results in OUT/synthetic-SPEC; the groups that pick
# the best setting still pick it from OUT/runs.csv (ML-100K's).
# --reuse-logs: a run whose log in OUT/logs is complete is not run again, only read into the CSV.
# Split: 20% of each user's ratings held out (fedmf-sim's default holdout:0.2), split seed = run
# seed; metrics at N = 10, relevance >= 4. Needs the binaries of --build (default build/); without
# the data file the script says so and exits 0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${ROOT}/../shared/data/ml-100k/u.data"
OUT="${ROOT}/docs/results/privacy-utility"
BUILD="${ROOT}/build"
EPSILONS="1 2 5 10 20"
MECHANISMS="pbm gaussian ddg"
SEEDS="1"
CAPS="8 16 32 64 128 256"
ROUNDS="20 50 100"
CLIPS="0.008 0.016 0.032"
STEPS="0.2 0.5"
DPALS_GRID=""
SUBSAMPLE=0
SYNTHETIC=""
REUSE=0
SELECTED=()
for arg in "$@"; do
  case "${arg}" in
    --data=*) DATA="${arg#--data=}" ;;
    --out=*) OUT="${arg#--out=}" ;;
    --build=*) BUILD="${arg#--build=}" ;;
    --epsilons=*) EPSILONS="${arg#--epsilons=}" ;;
    --mechanisms=*) MECHANISMS="${arg#--mechanisms=}" ;;
    --seeds=*) SEEDS="${arg#--seeds=}" ;;
    --caps=*) CAPS="${arg#--caps=}" ;;
    --rounds=*) ROUNDS="${arg#--rounds=}" ;;
    --clips=*) CLIPS="${arg#--clips=}" ;;
    --steps=*) STEPS="${arg#--steps=}" ;;
    --dpals-grid=*) DPALS_GRID="${arg#--dpals-grid=}" ;;
    --subsample=*) SUBSAMPLE="${arg#--subsample=}" ;;
    --reuse-logs) REUSE=1 ;;
    --synthetic=*) SYNTHETIC="${arg#--synthetic=}" ;;
    --help|-h) sed -n '2,39p' "$0"; exit 0 ;;
    -*) echo "privacy-utility.sh: unknown option ${arg}" >&2; exit 2 ;;
    *) SELECTED+=("${arg}") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=(baselines popularity-tune popularity dpmf)
DATA_SPEC="ml-100k:${DATA}"
if [[ -n "${SYNTHETIC}" ]]; then
  DATA_SPEC="synthetic:${SYNTHETIC}"
elif [[ ! -f "${DATA}" ]]; then
  echo "privacy-utility.sh: ${DATA} not found: MovieLens 100K is needed (--data=PATH/u.data); skipping"
  exit 0
fi
# Hyper-parameters are chosen on the full data's seed-1 runs, also for the subsample (whose own
# splits are data the choice never saw).
TUNED="${OUT}/runs.csv"
if [[ "${SUBSAMPLE}" != 0 ]]; then
  SUB="${TMPDIR:-/tmp}/ml100k-sub${SUBSAMPLE}.data"
  python3 - "${DATA}" "${SUBSAMPLE}" "${SUB}" <<'PY'
import random, sys
src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(src).read().splitlines()
users = sorted({l.split()[0] for l in lines}, key=int)
keep = set(random.Random(600).sample(users, n))
open(dst, "w").write("".join(l + "\n" for l in lines if l.split()[0] in keep))
PY
  DATA_SPEC="ml-100k:${SUB}"
  OUT="${OUT}/subsample-${SUBSAMPLE}"
fi
[[ -z "${SYNTHETIC}" ]] || OUT="${OUT}/synthetic-${SYNTHETIC//[,=]/-}"
SIM="${BUILD}/tools/sim/fedmf-sim"
CENTRAL="${BUILD}/tools/fedmf-central"
for bin in "${SIM}" "${CENTRAL}"; do
  [[ -x "${bin}" ]] || { echo "privacy-utility.sh: ${bin} missing: build first" >&2; exit 1; }
done
mkdir -p "${OUT}/logs"
CSV="${OUT}/runs.csv"
[[ -f "${CSV}" ]] || echo "group,name,mechanism,epsilon,seed,epsilon_dp,rmse,precision,recall,f1,upload_length,client_bits,sum_bits,wall_s,up_bytes_per_user,ndcg" > "${CSV}"

# DPMF-RP: fedmf's settings of docs/results/dpmf-rp.md (chosen there on seed 1's split, for PBM)
# for every mechanism; Gaussian and DDG get the same L2 clip C = e (1 + kappa) B1 = 0.016 as PBM's
# rotated_l2. Whole-run (epsilon, 1e-5)-DP per user, T = 100 rounds, every user every round.
# PBM is charged by coordinates, as when these rows were measured; its L2-shift accounting (the
# default since) is measured by tools/experiments/run.py dpmf-rp --only l2,l2-shift,l2seeds,l2eps.
# The Gaussian rows are DPMF-RP's default options (configs/dpmf-rp/fedmf.textproto: the options
# below that it does not set are PBM's, unused by the Gaussian), so `fedmf-sim --epsilon=E` alone is that run.
# Every user takes part in every round: on a busy machine the in-process clients may need more
# than the default 20 s per stage, and a late one would be dropped (5 failed rounds abort a run).
PATIENT=(--stage_timeout_s=600)
DPMF=(--algorithm=dpmf-rp --set=pbm_geometry=rotated_l2 --set=pbm_clip_multiplier=1.25 --participation=1
      --set=pbm_accounting=coordinate
      --set=item_model=full --set=compression=3 --set=mu=0.01 --set=learning_rate=0.2 --rounds=100
      --set=ranking_kappa=5 --set=contribution_clip=0.016 --delta=1e-5
      --plain_sum --eval_every=0 --evaluate_every=100 "${PATIENT[@]}")
# DP-ALS (common/algorithms/dp_als/): every user every round; --rounds is the number of releases.
DPALS=(--algorithm=dp-als --delta=1e-5 --plain_sum --eval_every=0 "${PATIENT[@]}")
POPULARITY=(--algorithm=dp-popularity --participation=1 --rounds=1 --plain_sum --eval_every=0
            --evaluate_every=1 "${PATIENT[@]}")

# run GROUP NAME MECHANISM EPSILON SEED FLAGS...: one fedmf-sim run into the CSV.
run() {
  local group="$1" name="$2" mechanism="$3" eps="$4" seed="$5"
  shift 5
  local log="${OUT}/logs/${group}-${name}-seed${seed}.log"
  echo "== ${group} ${name} seed ${seed}" >&2
  if [[ "${REUSE}" == 0 ]] || ! grep -q "event=sim_summary" "${log}" 2>/dev/null; then
    nice -n 10 "${SIM}" --data="${DATA_SPEC}" --seed="${seed}" --split_seed="${seed}" \
      --client_processes=2 "$@" > "${log}" 2>&1
  fi
  awk -v group="${group}" -v name="${name}" -v mech="${mechanism}" -v eps="${eps}" -v seed="${seed}" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    /event=new_run/ { len = val("upload_length"); cb = val("client_bits"); sb = val("sum_bits") }
    /event=evaluation/ { rmse = val("test_rmse"); p = val("precision10"); r = val("recall10"); f1 = val("f1_10"); ndcg = val("ndcg10") }
    /event=round / { edp = val("epsilon_dp"); up = val("up_bytes_per_user") }
    /event=sim_summary/ { wall = val("wall_s") }
    END { if (edp == "") edp = 0
          print group "," name "," mech "," eps "," seed "," edp "," rmse "," p "," r "," f1 "," len "," cb "," sb "," wall "," up "," ndcg }
  ' "${log}" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# outlook ALGORITHM EPSILON FLAGS...: the first release's noise_to_signal of a run set up with
# FLAGS (fedmf-sim --setup_only), one line of OUT/outlook.csv.
outlook() {
  local algorithm="$1" eps="$2" line
  shift 2
  [[ -f "${OUT}/outlook.csv" ]] ||
    echo "algorithm,epsilon,noise_to_signal,noise_multiplier,dimension,cohort" > "${OUT}/outlook.csv"
  line="$("${SIM}" --data="${DATA_SPEC}" --seed=1 --split_seed=1 --setup_only "$@" 2>&1 |
          grep "event=noise_outlook")"
  awk -v algorithm="${algorithm}" -v eps="${eps}" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    { print algorithm "," eps "," val("noise_to_signal") "," val("noise_multiplier") "," val("dimension") "," val("cohort") }
  ' <<< "${line}" >> "${OUT}/outlook.csv"
  tail -n 1 "${OUT}/outlook.csv" >&2
}

# central MODEL SEED: a fedmf-central baseline on the same holdout split.
central() {
  local model="$1" seed="$2" log="${OUT}/logs/baselines-${1}-seed${2}.log"
  echo "== baselines ${model} seed ${seed}" >&2
  nice -n 10 "${CENTRAL}" --data="${DATA_SPEC}" --model="${model}" --split=holdout:0.2 \
    --seed="${seed}" --long_top_n=10 > "${log}" 2>&1
  awk -v model="${model}" -v seed="${seed}" '
    function val(key,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] } return "" }
    /event=fold_done/ { print "baselines," model ",none,inf," seed ",0," val("rmse") "," val("precision") "," val("recall") "," val("f1") ",,,,0,," val("ndcg_long") }
  ' "${log}" >> "${CSV}"
  tail -n 1 "${CSV}" >&2
}

# best GROUP EPSILON: the name of GROUP's run at EPSILON with the best F1@10 on seed 1 (of the
# full data: TUNED).
best() {
  awk -F, -v group="$1" -v eps="$2" '$1 == group && $4 == eps && $5 == 1 && $10 > best { best = $10; name = $2 }
                                     END { print name }' "${TUNED}"
}

# The cap of dp-popularity chosen per epsilon by popularity-tune.
best_cap() {
  local name
  name="$(best popularity-tune "$1")"
  echo "${name##*-c}"
}

# gaussian-tune's run names carry their settings: eps<E>-T<rounds>-C<clip>-s<step>.
gaussian_flags() {
  local name="$1" rounds clip step
  rounds="${name#*-T}"; rounds="${rounds%%-*}"
  clip="${name#*-C}"; clip="${clip%%-*}"
  step="${name#*-s}"
  echo "--rounds=${rounds} --evaluate_every=${rounds} --set=contribution_clip=${clip} --set=learning_rate=${step}"
}

# dpals_flags NAME: the fedmf-sim flags of a dpals-tune name (see the header).
dpals_flags() {
  local part flags=()
  for part in ${1//-/ }; do
    case "${part}" in
      eps*) ;;
      kap*) flags+=(--set=kappa="${part#kap}") ;;
      k*) flags+=(--set=rank="${part#k}") ;;
      T*) flags+=(--rounds="${part#T}" --evaluate_every="${part#T}") ;;
      C*) flags+=(--set=item_cap="${part#C}") ;;
      U*) flags+=(--set=factor_bound="${part#U}") ;;
      R*) flags+=(--set=rating_clip="${part#R}") ;;
      s*) flags+=(--set=gram_share="${part#s}") ;;
      mu*) flags+=(--set=mu="${part#mu}") ;;
      m*) flags+=(--set=mechanism="${part#m}") ;;
      g*) flags+=(--set=item_gram="${part#g}") ;;
      j*) flags+=(--set=shrinkage="${part#j}") ;;
      i*) flags+=(--set=init_constant_column="${part#i}") ;;
      f*) flags+=(--set=scale_to_cap="${part#f}") ;;
      v*) flags+=(--set=init_scale="${part#v}") ;;
      l*) flags+=(--set=lambda="${part#l}") ;;
      *) echo "privacy-utility.sh: unknown DP-ALS setting ${part} in $1" >&2; exit 2 ;;
    esac
  done
  echo "${flags[@]}"
}

for group in "${SELECTED[@]}"; do
  case "${group}" in
    baselines)
      for seed in ${SEEDS}; do
        for model in global-mean user-mean popularity; do central "${model}" "${seed}"; done
        run baselines popularity-count none inf "${seed}" "${POPULARITY[@]}" --set=noise=false \
          --set=max_items=0
      done ;;
    popularity-tune)
      for eps in ${EPSILONS}; do
        for cap in ${CAPS}; do
          run popularity-tune "eps${eps}-c${cap}" ddg "${eps}" 1 "${POPULARITY[@]}" --epsilon="${eps}" \
            --delta=1e-5 --set=max_items="${cap}"
        done
      done ;;
    popularity)
      for eps in ${EPSILONS}; do
        cap="$(best_cap "${eps}")"
        [[ -n "${cap}" ]] || { echo "privacy-utility.sh: run popularity-tune first" >&2; exit 1; }
        for seed in ${SEEDS}; do
          run popularity "dp-popularity-eps${eps}" ddg "${eps}" "${seed}" "${POPULARITY[@]}" \
            --epsilon="${eps}" --delta=1e-5 --set=max_items="${cap}"
        done
      done ;;
    dpmf)
      for seed in ${SEEDS}; do
        for eps in ${EPSILONS}; do
          for mech in ${MECHANISMS}; do
            run dpmf "${mech}-eps${eps}" "${mech}" "${eps}" "${seed}" "${DPMF[@]}" \
              --set=mechanism="${mech}" --epsilon="${eps}"
          done
        done
      done ;;
    noise-schedule)
      for seed in ${SEEDS}; do
        for eps in ${EPSILONS}; do
          run noise-schedule "gaussian-prefix-sum-eps${eps}" gaussian "${eps}" "${seed}" \
            "${DPMF[@]}" --set=mechanism=gaussian --epsilon="${eps}" --set=noise_schedule=prefix_sum
        done
      done ;;
    gaussian-tune)
      for eps in ${EPSILONS}; do
        for rounds in ${ROUNDS}; do
          for clip in ${CLIPS}; do
            for step in ${STEPS}; do
              name="eps${eps}-T${rounds}-C${clip}-s${step}"
              # shellcheck disable=SC2046  # gaussian_flags prints separate flags
              run gaussian-tune "${name}" gaussian "${eps}" 1 "${DPMF[@]}" --set=mechanism=gaussian \
                --epsilon="${eps}" $(gaussian_flags "${name}")
            done
          done
        done
      done ;;
    gaussian-best)
      for eps in ${EPSILONS}; do
        name="$(best gaussian-tune "${eps}")"
        [[ -n "${name}" ]] || { echo "privacy-utility.sh: run gaussian-tune first" >&2; exit 1; }
        for seed in ${SEEDS}; do
          # shellcheck disable=SC2046
          run gaussian-best "${name}" gaussian "${eps}" "${seed}" "${DPMF[@]}" --set=mechanism=gaussian \
            --epsilon="${eps}" $(gaussian_flags "${name}")
        done
      done ;;
    dpals-tune)
      for name in ${DPALS_GRID}; do
        eps="${name%%-*}"; eps="${eps#eps}"
        # shellcheck disable=SC2046  # dpals_flags prints separate flags
        run dpals-tune "${name}" dp-als "${eps}" 1 "${DPALS[@]}" --epsilon="${eps}" \
          $(dpals_flags "${name}")
      done ;;
    dpals)
      for eps in ${EPSILONS}; do
        name="$(best dpals-tune "${eps}")"
        [[ -n "${name}" ]] || { echo "privacy-utility.sh: run dpals-tune at ${eps} first" >&2; exit 1; }
        for seed in ${SEEDS}; do
          # shellcheck disable=SC2046
          run dpals "${name}" dp-als "${eps}" "${seed}" "${DPALS[@]}" --epsilon="${eps}" \
            $(dpals_flags "${name}")
        done
      done ;;
    outlook)
      for eps in ${EPSILONS}; do
        outlook dpmf-rp "${eps}" "${DPMF[@]}" --set=mechanism=gaussian --epsilon="${eps}"
        name="$(best dpals-tune "${eps}")"
        if [[ -n "${name}" ]]; then
          # shellcheck disable=SC2046
          outlook dp-als "${eps}" "${DPALS[@]}" --epsilon="${eps}" $(dpals_flags "${name}")
        fi
      done ;;
    *) echo "privacy-utility.sh: unknown group ${group}" >&2; exit 2 ;;
  esac
done
echo "privacy-utility.sh: results in ${CSV}" >&2
