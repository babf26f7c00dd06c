#!/usr/bin/env bash
# Paper 003's Walker2D prediction (Sec. 6.4, Table 1A, App. H.3; Table 6
# for the initialisation): predicting the next observation of MuJoCo
# Walker2d rollouts with a phase space of N = 32, the gnODE reaches a lower
# test MSE than the nODE and the mGRU (paper: gnODE 0.552 +- 0.019, nODE
# 0.747 +- 0.043, mGRU 1.676 +- 0.052, 5 seeds, 700 epochs on a curriculum
# of growing lengths, the best of a hyperparameter grid), and critical
# initialisation is not better there (Table 6: C 0.588 +- 0.003, NC 0.552).
#
#   examples/experiments/walker2d_gating.sh [--quick]
#   N=100 examples/experiments/walker2d_gating.sh [--quick]
#
# Models (N = 32): gnode_walker2d.ode (critical init), gnode_walker2d_nc.ode
# (Glorot-normal), node_walker2d.ode, mgru_walker2d.ode. Data: ODE-LSTM's
# windows as paper 003 takes them (walker2d_odelstm_split.py: split by
# rollout file, 9684 / 1272 / 1937 windows of 64 kept steps, one bin per
# kept step, targets at bin edges so the state has read x_{j-1} when it
# predicts the step after it), read with `--channels dim_0,...,dim_16`:
# these models take the 17 kinematic channels only (gnode_walker2d_odelstm.ode
# also reads the elapsed steps). Channels normalised with training
# statistics, targets not. AdamW, weight decay 1e-2, lr 1e-2, cosine
# schedule, batch 64, EPOCHS (default 60) epochs, seeds 0..SEEDS-1 (default
# 3); the epoch of lowest validation MSE is kept and its test MSE reported.
# (Until 2026-11-29 the windows were cut with `--target next --window 84`
# and split by window: test rollouts leaked into training, and each
# prediction was two raw steps ahead.)
#
# Resumable: rerun it and finished runs are kept, an interrupted one
# continues (--quick always starts afresh). Writes one JSON line per run to $RESULTS (default
# examples/experiments/results/walker2d_gating.jsonl) and prints test and
# best validation MSE mean +- std per model. --quick: 1 seed, 8 epochs,
# into build/runs/walker2d_gating_quick; it then fails unless every run's
# validation loss fell below its first epoch's and the gnODE's (critical
# init) best validation loss is below the mGRU's.
#
# N (default 32) sets the phase-space dimension of all four models
# (`--set N=...`; F keeps H = 100 units per layer). Another N than 32 writes
# results/walker2d_gating_n<N>.jsonl and runs into
# build/runs/walker2d_gating_n<N>{,_quick}. Paper (Table 1A, N = 100):
# gnODE 0.588 +- 0.003, nODE 0.707 +- 0.023, mGRU 1.138 +- 0.030 (the
# mGRU gains most from the larger phase space, the gnODE nothing).
source "$(dirname "$0")/common.sh"

quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,/^source/{/^source/d;p}' "$0"; exit 0 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
  esac
done

need_plastic
walker2d_odelstm_windows
observations=$(seq -s, -f 'dim_%g' 0 16)

n=${N:-32}
name=walker2d_gating
[ "$n" = 32 ] || name=walker2d_gating_n$n
if [ "$quick" = 1 ]; then
  seeds=${SEEDS:-1} epochs=${EPOCHS:-8}
  out_root=${OUT:-$BUILD/runs/${name}_quick}
  results=${RESULTS:-$out_root/$name.jsonl}
else
  seeds=${SEEDS:-3} epochs=${EPOCHS:-60}
  out_root=${OUT:-$BUILD/runs/$name}
  results=${RESULTS:-$EXPERIMENTS_DIR/results/$name.jsonl}
fi
mkdir -p "$out_root" "$(dirname "$results")"
# A stopped table continues: finished runs are kept (with their rows), an
# interrupted one resumes; a table with no finished run (and --quick)
# starts afresh.
if [ "$quick" = 1 ] || ! compgen -G "$out_root/*/seed*/summary.json" >/dev/null; then
  : >"$results"
fi

start_all=$SECONDS
for model in gnode_walker2d gnode_walker2d_nc node_walker2d mgru_walker2d; do
  case $model in
    gnode_walker2d) family=gnode init=critical ;;
    gnode_walker2d_nc) family=gnode init=glorot_normal ;;
    node_walker2d) family=node init=critical ;;
    mgru_walker2d) family=mgru init=glorot_uniform ;;
  esac
  for ((seed = 0; seed < seeds; seed++)); do
    run=$out_root/$model/seed$seed
    if [ "$quick" = 0 ] && [ -f "$run/summary.json" ]; then
      echo "$model seed $seed: finished earlier"
      continue
    fi
    again=(--resume)
    if [ "$quick" = 1 ] || [ ! -f "$run/run.json" ]; then
      # A fresh folder: --force refuses one holding files it did not write,
      # and a failed run must not leave an earlier run's train.jsonl behind.
      rm -rf "$run" && mkdir -p "$run" && : >"$run.log"
      again=(--force)
    fi
    start=$SECONDS
    status=ok
    "$PLASTIC" train "$ROOT/examples/$model.ode" --set "N=$n" --data "$windows" "${columns[@]}" \
      --channels "$observations" --epochs "$epochs" --patience 0 --optimizer adamw \
      --weight-decay 1e-2 --lr 1e-2 --schedule cosine --batch 64 --dtype f32 \
      --threads "$THREADS" --seed "$seed" --no-progress "${again[@]}" --out "$run" \
      >>"$run.log" 2>&1 || status=failed
    python3 "$EXPERIMENTS_DIR/results.py" record "$run" name="$model" model="$family" \
      init="$init" N="$n" seed="$seed" seconds=$((SECONDS - start)) status="$status" \
      split=rollout-odelstm targets=bin-edges "${sizes[@]}" >>"$results"
    tail -1 "$results"
  done
done
echo "wall time $((SECONDS - start_all)) s for all runs (THREADS=$THREADS)"

echo
python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by model,init --metric test_mse
echo
python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by model,init --metric best_valid_loss

if [ "$quick" = 1 ]; then
  python3 "$EXPERIMENTS_DIR/results.py" improved "$results"
  python3 "$EXPERIMENTS_DIR/results.py" compare "$results" --metric best_valid_loss \
    --better name=gnode_walker2d --worse name=mgru_walker2d
fi
