#!/usr/bin/env bash
# The zoo's three classification models (Delta-rule FWP CDE, NCDE, gnODE)
# on any UEA archive folders, unchanged: each model takes its channels and
# classes from the data (`dim ... from data.*`) and the data layer
# normalises time and increments, so there is no --set and no edit. Each
# folder's given test file is the test set; 15 % of its training file is
# held out for validation.
#
#   examples/experiments/uea.sh [--seeds N] [--models "delta ncde gnode"] [--tune] DIR...
#
# Runs every model on every folder with seeds 0..N-1 (default 3) and prints
# a table of test accuracy mean +- std (over the seeds) and the mean wall
# time per run. The recipe is train's defaults — the epoch of best
# validation accuracy kept (ties: lowest validation loss), training stopped
# after 20 epochs without a better one — with at most EPOCHS (default 150)
# epochs, a cosine schedule, Adam, batch 32 and lr 3e-3 for every model.
# Long series are slow (StandWalkJump: length 2500). MODEL_FLAGS replaces
# the flags (the 2026-11-25 table: EPOCHS=40, "--batch 32 --schedule cosine
# --select loss --patience 0" and lr 3e-3 for delta, 1e-3 for the others).
# Run folders go to $OUT (default build/runs/uea); each
# result line is also appended to $RESULTS when set, and a (folder, model,
# seed) already there is not run again: a stopped table continues.
#
# --tune: first `plastic tune` each model on each folder (TRIALS random
# trials, default 16, of the model's `tune` ranges and lr, weight decay and
# batch; successive halving up to EPOCHS; 5-fold cross-validation below
# 1000 training samples), then train the seeds with the best setting. The
# searches go to $OUT/<folder>/<model>/tune and continue where they stopped.
source "$(dirname "$0")/common.sh"

seeds=3
models="delta ncde gnode"
tune=0
dirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --tune) tune=1; shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || { echo "usage: $0 [--seeds N] [--models \"delta ncde gnode\"] DIR..." >&2; exit 2; }
need_plastic
out_root=${OUT:-$BUILD/runs/uea}
epochs=${EPOCHS:-150}

model_file() {
  case "$1" in
    delta) echo "$ROOT/examples/fwp_delta_cde_character.ode" ;;
    ncde) echo "$ROOT/examples/ncde_character.ode" ;;
    gnode) echo "$ROOT/examples/gnode_character.ode" ;;
    *) echo "unknown model $1 (delta, ncde, gnode)" >&2; exit 2 ;;
  esac
}
model_flags() {
  if [ -n "${MODEL_FLAGS:-}" ]; then
    echo "$MODEL_FLAGS"
    return
  fi
  echo "--lr 3e-3 --batch 32 --schedule cosine --optimizer adam"
}

# The flags of the best setting `plastic tune` found for $1 on folder $2
# (searched first, or continued, into $3).
tuned_flags() {
  local search=$3
  local resume=()
  [ -f "$search/tune.json" ] && resume=(--resume)
  "$PLASTIC" tune "$(model_file "$1")" --data "$2" --epochs "$epochs" --trials "${TRIALS:-16}" \
    --optimizer adam --schedule cosine --dtype f32 --out "$search" "${resume[@]}" \
    >>"$search.log" 2>&1 || { echo "tune of $1 on $2 failed (see $search.log)" >&2; return 1; }
  python3 - "$search/tune.json" <<'EOF'
import json, sys
plan = json.load(open(sys.argv[1]))
point = plan["points"][plan["best"]["trial"]]
flags = ["--optimizer adam --schedule cosine"]
for dim, value in zip(plan["space"], point):
    value = int(value) if dim["integer"] else value  # --batch 32, not 32.0
    flags.append(f"--{dim['name']} {value!r}" if dim["option"] else f"--set {dim['name']}={value!r}")
print(" ".join(flags))
EOF
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for dir in "${dirs[@]}"; do
  name=$(basename "$dir")
  for model in $models; do
    flags=$(model_flags "$model")
    if [ "$tune" = 1 ]; then
      mkdir -p "$out_root/$name/$model"
      flags=$(tuned_flags "$model" "$dir" "$out_root/$name/$model/tune") || continue
      echo "$name $model tuned: $flags"
    fi
    for ((seed = 0; seed < seeds; seed++)); do
      if [ -n "${RESULTS:-}" ] && [ -f "$RESULTS" ] &&
        grep -q "^$name $model $seed " "$RESULTS"; then
        grep "^$name $model $seed " "$RESULTS" | tail -n 1 | tee -a "$results"
        continue
      fi
      run="$out_root/$name/$model/seed$seed"
      mkdir -p "$(dirname "$run")"
      start=$SECONDS
      # shellcheck disable=SC2046  # the flags are words
      if "$PLASTIC" train "$(model_file "$model")" --data "$dir" --epochs "$epochs" \
        $flags --dtype f32 --threads "$THREADS" --seed "$seed" --no-progress \
        --force --out "$run" >"$run.log" 2>&1; then
        acc=$(summary_value "$run" test accuracy)
        echo "$name $model $seed $acc $((SECONDS - start))" | tee -a "$results" ${RESULTS:+"$RESULTS"}
      else
        echo "$name $model $seed failed (see $run.log)" >&2
      fi
    done
  done
done

python3 - "$results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, model, seed, acc, secs = line.split()
    rows.setdefault((name, model), []).append((float(acc), float(secs)))
print()
print("| data set | model | test accuracy (mean ± std) | seeds | time per run |")
print("|---|---|---|---|---|")
for (name, model), r in sorted(rows.items()):
    accs = [a for a, _ in r]
    std = statistics.stdev(accs) if len(accs) > 1 else 0.0
    print(f"| {name} | {model} | {100 * statistics.mean(accs):.1f} ± {100 * std:.1f} % "
          f"| {len(accs)} | {statistics.mean(s for _, s in r):.0f} s |")
EOF
