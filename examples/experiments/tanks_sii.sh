#!/usr/bin/env bash
# Paper 004's training claim on the cascaded tanks: the ELU MLP neural ODE
# with the stability-informed initialisation (Sec. 4, Algorithm 1) trains
# stably at larger steps and to a lower loss than with PyTorch's default
# initialisation (Sec. 3.1; the teacher-student histograms of Sec. 5,
# Figs. 4-5, and the "Default" vs "SII" rows of Sec. 6).
#
#   examples/experiments/tanks_sii.sh [--quick] [--plot-only]
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
# mean +- std and median per model and step, and plots the median and the
# number of diverged runs against the step ($RESULTS without .jsonl +
# .png; --plot-only redoes the tables and the plot from $RESULTS). --quick: seeds 0-1, h = 4 and 16, 15
# epochs, into build/runs/tanks_sii_quick; it then fails unless SII's mean
# best validation loss is below the default's for each solver and step.
source "$(dirname "$0")/common.sh"

quick=0 plot_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --plot-only) plot_only=1; shift ;;
    -h|--help) sed -n '2,/^source/{/^source/d;p}' "$0"; exit 0 ;;
    *) echo "usage: $0 [--quick] [--plot-only]" >&2; exit 2 ;;
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
[ "$plot_only" = 1 ] || : >"$results"

start_all=$SECONDS
[ "$plot_only" = 1 ] || for solver in midpoint euler; do
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
          --split-seed 0 --epochs "$epochs" --patience 0 --optimizer adam --lr 5e-3 --batch 4 --dtype f32 \
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
[ "$plot_only" = 1 ] || echo "wall time $((SECONDS - start_all)) s for all runs (THREADS=$THREADS)"

echo
python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by solver,init,step \
  --metric best_valid_loss --dat "$out_root/by_step"
echo
python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by solver,init,step \
  --metric final_train_loss

png=${results%.jsonl}.png
if command -v gnuplot >/dev/null; then
  gnuplot <<EOF
set terminal pngcairo size 720,560 font ",10" noenhanced
set output "$png"
files = "midpoint_default midpoint_sii euler_default euler_sii"
set multiplot layout 2,1 title "Cascaded tanks, default vs stability-informed init ($seeds seeds per point)"
set logscale x 2
set xrange [1.6:20]
set xtics (2, 4, 8, 16)
set grid
set key outside right
set logscale y
set ylabel "median best validation MSE"
plot for [f in files] "$out_root/by_step/".f.".dat" using 1:4 with linespoints title f
unset logscale y
set ylabel "runs diverged"
set xlabel "solver step h (s)"
set yrange [-0.5:$seeds + 0.5]
plot for [f in files] "$out_root/by_step/".f.".dat" using 1:6 with linespoints title f
unset multiplot
EOF
  echo "plot: ${png#"$ROOT"/}"
fi

if [ "$quick" = 1 ]; then
  python3 "$EXPERIMENTS_DIR/results.py" compare "$results" --metric best_valid_loss \
    --better init=sii --worse init=default --by solver,step
fi
