#!/usr/bin/env bash
# Paper 003's Walker2D prediction with its data preparation and recipe
# (Sec. 6.4, App. H.3): ODE-LSTM's windows (walker2d_odelstm_split.py,
# 64 kept steps: 9684 / 1272 / 1937 trials, split by rollout file, targets
# at bin edges), the elapsed steps as an input channel, one bin per kept
# step with tau = dt = 1, the initial state an affine map of the first
# observation (gnode_walker2d_odelstm.ode), batch 256, a curriculum of
# growing prefixes (14, 28, 42, 56 bins for 100 epochs each, then the whole
# window for 200: 600 epochs; the paper's 84 bins take 700), the epoch of
# lowest validation loss, and the paper's grid over learning rate {1e-4,
# 1e-3, 1e-2} and weight decay {1e-3, 1e-2, 1e-1} (plastic tune,
# successive halving: 9 settings, the best third go on at 67 and 200
# epochs). Then SEEDS (default 3) seeds of the best setting; paper: test
# MSE 0.552 +- 0.019 (N = 32, 5 seeds).
#
#   examples/experiments/walker2d_odelstm.sh [--quick]
#   MODEL=node SETTING='--lr 0.01 --weight-decay 0.01' examples/experiments/walker2d_odelstm.sh
#
# MODEL (gnode, node or mgru; default gnode) picks <MODEL>_walker2d_odelstm.ode:
# the gnODE, or Table 1A's baselines under the same recipe (the nODE, G = 1;
# the mGRU, L_h = L_z = 1; paper: 0.747 +- 0.043 and 1.676 +- 0.052). Each
# model has its own runs (build/runs/walker2d_odelstm[_<MODEL>]) and rows
# named <MODEL>_walker2d_odelstm. SETTING, when given, replaces the grid
# search with those flags (the search costs about two seeds' time).
#
# Hours of CPU: the search and each seed continue where they stopped
# (rerun the script). One JSON line per seed in $RESULTS (default
# examples/experiments/results/walker2d_odelstm.jsonl). --quick: 12 epochs
# (curriculum 14:4,28:4), 2 settings, 1 seed, into build/runs/walker2d_odelstm_quick,
# afresh; it then fails unless the seed's validation loss fell below its
# first epoch's (CTest walker2d_odelstm_quick_learns).
source "$(dirname "$0")/common.sh"

quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,/^source/{/^source/d;p}' "$0"; exit 0 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
  esac
done
model_kind=${MODEL:-gnode}
case "$model_kind" in
  gnode|node|mgru) ;;
  *) echo "$0: MODEL must be gnode, node or mgru, not '$model_kind'" >&2; exit 2 ;;
esac
runs_suffix=""
[ "$model_kind" = gnode ] || runs_suffix=_$model_kind
need_plastic
walker2d_odelstm_windows

if [ "$quick" = 1 ]; then
  epochs=12 curriculum=14:4,28:4 seeds=${SEEDS:-1}
  grid=(--space 'lr=[1e-3,1e-2]' --weight-decay 0 --min-epochs 12)
  out_root=${OUT:-$BUILD/runs/walker2d_odelstm_quick$runs_suffix}
  results=${RESULTS:-$out_root/walker2d_odelstm.jsonl}
else
  epochs=600 curriculum=14:100,28:100,42:100,56:100 seeds=${SEEDS:-3}
  grid=(--space 'lr=[1e-4,1e-3,1e-2]' --space 'weight-decay=[1e-3,1e-2,1e-1]')
  out_root=${OUT:-$BUILD/runs/walker2d_odelstm$runs_suffix}
  results=${RESULTS:-$EXPERIMENTS_DIR/results/walker2d_odelstm.jsonl}
fi
model=$ROOT/examples/${model_kind}_walker2d_odelstm.ode
common=(--data "$windows" "${columns[@]}" --batch 256 --optimizer adamw --schedule constant
  --curriculum "$curriculum" --epochs "$epochs" --dtype f32)
mkdir -p "$out_root" "$(dirname "$results")"
if [ "$quick" = 1 ]; then # --quick starts afresh: what it wrote before goes
  rm -rf "$out_root/tune" "$out_root/tune.log" "$out_root"/seed*
  : >"$results"
fi

# The grid search over learning rate and weight decay, resumable; prints
# the best setting's flags.
search_best_setting() {
  local search=$out_root/tune
  if [ -f "$search/tune.json" ]; then
    "$PLASTIC" tune --resume --out "$search" | tee -a "$search.log" >&2
  else
    "$PLASTIC" tune "$model" "${common[@]}" --search grid "${grid[@]}" --out "$search" \
      | tee -a "$search.log" >&2
  fi
  python3 - "$search/tune.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
point = plan["points"][plan["best"]["trial"]]
print(" ".join(f"--{d['name']} {v!r}" for d, v in zip(plan["space"], point)))
PY
}

if [ -n "${SETTING:-}" ]; then
  best=$SETTING
  echo "setting given: $best (no search)"
else
  best=$(search_best_setting)
  echo "best setting: $best"
fi

for ((seed = 0; seed < seeds; seed++)); do
  run=$out_root/seed$seed
  again=(--force)
  [ -f "$run/run.json" ] && [ ! -f "$run/summary.json" ] && again=(--resume)
  [ -f "$run/summary.json" ] && { echo "seed $seed: finished earlier"; continue; }
  start=$SECONDS
  status=ok
  # shellcheck disable=SC2086  # the best setting's flags are words
  "$PLASTIC" train "$model" "${common[@]}" $best --seed "$seed" --threads "$THREADS" \
    --no-progress "${again[@]}" --out "$run" >>"$run.log" 2>&1 || status=failed
  python3 "$EXPERIMENTS_DIR/results.py" record "$run" name="${model_kind}_walker2d_odelstm" \
    seed="$seed" setting="$best" seconds=$((SECONDS - start)) status="$status" split=rollout-odelstm \
    targets=bin-edges "${sizes[@]}" >>"$results"
  tail -1 "$results"
done
python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by name --metric test_mse
if [ "$quick" = 1 ]; then # every seed's validation loss must fall below its first epoch's
  python3 "$EXPERIMENTS_DIR/results.py" improved "$results"
fi
