#!/usr/bin/env bash
# Paper 004's training claim on the cascaded tanks: the ELU MLP neural ODE
# with the stability-informed initialisation (Sec. 4, Algorithm 1) trains
# stably at larger steps and to a lower loss than with PyTorch's default
# initialisation (Sec. 3.1; the teacher-student histograms of Sec. 5,
# Figs. 4-5, and the "Default" vs "SII" rows of Sec. 6).
#
#   examples/experiments/tanks_sii.sh [--quick]
#
# Four models, identical but for the field's initialiser and the solver:
# node_elu_{default,sii}_tanks.ode (midpoint) and
# node_elu_{default,sii}_tanks_euler.ode (Euler), each at the steps
# h = 2, 4, 8, 16 s (`--set dt=h --period h`: the same 1024 samples on a
# time axis scaled by h/4, so only h*lambda of the initial model changes),
# seeds 0..SEEDS-1 (default 10) of the initialisation and the batch order.
# Windows of 64 samples: 11 for training, 2 for validation, 3 for test, the
# same in every run (--split-seed 0). Adam, lr 5e-3, batch 4, EPOCHS
# (default 100) epochs, the epoch of lowest validation loss kept. A run
# that diverges (every step of an epoch non-finite) is recorded as failed.
#
# Writes one JSON line per run to $RESULTS (default
# examples/experiments/results/tanks_sii.jsonl), prints best validation MSE
# mean +- std per model and step, and plots it against the step
# ($RESULTS without .jsonl + .png). --quick: seeds 0-1, h = 4 and 16, 15
# epochs, into build/runs/tanks_sii_quick; it then fails unless SII's mean
# best validation loss is below the default's for each solver and step.
source "$(dirname "$0")/common.sh"

quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
  esac
done

csv=$DATA/cascaded_tanks/dataBenchmark.csv
[ -f "$csv" ] || skip "cascaded tanks not found in $csv (set PLASTIC_DATA to the real-data folder)"
need_plastic

if [ "$quick" = 1 ]; then
  seeds=${SEEDS:-2} epochs=${EPOCHS:-15} steps=${STEPS:-"4 16"}
  out_root=${OUT:-$BUILD/runs/tanks_sii_quick}
  results=${RESULTS:-$out_root/tanks_sii.jsonl}
else
  seeds=${SEEDS:-10} epochs=${EPOCHS:-100} steps=${STEPS:-"2 4 8 16"}
  out_root=${OUT:-$BUILD/runs/tanks_sii}
  results=${RESULTS:-$EXPERIMENTS_DIR/results/tanks_sii.jsonl}
fi
mkdir -p "$out_root" "$(dirname "$results")"
: >"$results"

start_all=$SECONDS
for solver in midpoint euler; do
  for init in default sii; do
    model=node_elu_${init}_tanks
    [ "$solver" = euler ] && model=${model}_euler
    for h in $steps; do
      for ((seed = 0; seed < seeds; seed++)); do
        run=$out_root/$model/h$h/seed$seed
        mkdir -p "$run"
        start=$SECONDS
        status=ok
        "$PLASTIC" train "$ROOT/examples/$model.ode" --set "dt=$h" \
          --data "$csv" --channels uEst --target yEst --static yEst --window 64 --period "$h" \
          --split-seed 0 --epochs "$epochs" --optimizer adam --lr 5e-3 --batch 4 --dtype f32 \
          --threads "$THREADS" --seed "$seed" --no-progress --force --out "$run" \
          >"$run.log" 2>&1 || status=failed
        python3 "$EXPERIMENTS_DIR/results.py" record "$run" model="$model" init="$init" \
          solver="$solver" step="$h" seed="$seed" seconds=$((SECONDS - start)) \
          status="$status" >>"$results"
        tail -1 "$results"
      done
    done
  done
done
echo "wall time $((SECONDS - start_all)) s for all runs (THREADS=$THREADS)"

echo
python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by solver,init,step \
  --metric best_valid_loss --dat "$out_root/by_step"
echo
python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by solver,init,step \
  --metric final_train_loss

png=${results%.jsonl}.png
if command -v gnuplot >/dev/null; then
  gnuplot <<EOF
set terminal pngcairo size 720,420 font ",10"
set output "$png"
set title "Cascaded tanks: best validation MSE vs solver step (mean ± std over $seeds seeds)"
set xlabel "solver step h (s)"
set ylabel "best validation MSE"
set logscale xy
set xtics (2, 4, 8, 16)
set key top left
set grid
files = "midpoint_default midpoint_sii euler_default euler_sii"
plot for [f in files] "$out_root/by_step/".f.".dat" using 1:2:3 with yerrorlines title f
EOF
  echo "plot: $png"
fi

if [ "$quick" = 1 ]; then
  python3 "$EXPERIMENTS_DIR/results.py" compare "$results" --metric best_valid_loss \
    --better init=sii --worse init=default --by solver,step
fi
