#!/usr/bin/env bash
# Paper 002's long-series comparison (Sec. 4.1, Table 1, App. C): a neural
# RDE, which reads each window of the series through its log-signature and
# takes one solver step per window, against a neural CDE, which follows the
# interpolated series sample by sample. Paper (EigenWorms, length 17 984,
# 3 repeats): the NRDE is faster and better on long series — NCDE step 1
# 62.4 +- 12.1 % in 22 h, NRDE depth 2 step 4 83.8 +- 3.0 % in 2.4 h,
# depth 3 step 32 75.2 +- 3.0 % in 0.6 h; memory 176.5, 180.0, 134.7 MB.
#
#   examples/experiments/swj_nrde_depth.sh [--quick] [--plot-only]
#
# EigenWorms is not in ../shared/data; StandWalkJump stands in for it
# (4 channels + time, length 2500, 3 classes, 12 training and 15 test
# series: expect accuracies near chance, 33 %). Models, every one with
# hidden 32 and the same MLP sizes (App. C):
#   ncde   ncde_character.ode: the NCDE on the natural cubic spline of every
#          sample, dopri5 (rtol 1e-3), adjoint (what uea.sh runs);
#   nrde1  nrde_depth2.ode --set sig_depth=1: depth 1, step 4 = an NCDE on
#          the linear interpolation subsampled every 4 samples (paper 002
#          Sec. 3.2), rk4 one step per window, adjoint;
#   nrde2  nrde_depth2.ode: depth 2, step 4 (the paper's best model);
#   nrde3  nrde_depth3.ode: depth 3, step 32 (the paper's best depth-3
#          step), checkpointed gradients.
# 15 % of the training file is held out for validation, split by the seed
# (as uea.sh); seeds 0..SEEDS-1 (default 3) also vary the initialisation.
# Adam with the paper's rule lr = 0.032 / batch, the batch being the whole
# training split (10 series, lr 3.2e-3), and its schedule: the lr x0.1
# after 15 epochs without a better validation loss, training stopped after
# 60 (`--schedule plateau --patience 60`), at most EPOCHS (default 200)
# epochs; the epoch of lowest validation loss is kept and its test accuracy
# reported.
#
# Per run: test accuracy, the median wall time of an epoch (train.jsonl)
# and the peak resident memory of the `plastic train` process (GNU time;
# most of it is the JIT compiler). Per model, one `plastic bench-train`
# step on synthetic series of length 2500, batch 10: field evaluations of
# the forward and backward solves and the memory the gradient method itself
# held — counts and bytes that do not depend on the machine's load.
#
# Writes one JSON line per run to $RESULTS (default
# examples/experiments/results/swj_nrde_depth.jsonl), prints the tables
# and plots each model's mean training and validation loss per epoch, over
# the epochs every seed reached ($RESULTS without .jsonl + .png; --plot-only redoes the tables and the
# plot from $RESULTS and the run folders). --quick: 1 seed, 5 epochs, into build/runs/swj_nrde_depth_quick; it then
# fails unless every run finished with a lower training loss than its first
# epoch's, and the NRDE's (depth 2, step 4) forward solve takes fewer field
# evaluations than the NCDE's.
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

swj=$DATA/uea/StandWalkJump
[ -f "$swj/StandWalkJump_TRAIN.ts" ] || skip "StandWalkJump not found in $swj (set PLASTIC_DATA to the real-data folder)"
need_plastic

if [ "$quick" = 1 ]; then
  seeds=${SEEDS:-1} epochs=${EPOCHS:-5}
  out_root=${OUT:-$BUILD/runs/swj_nrde_depth_quick}
  results=${RESULTS:-$out_root/swj_nrde_depth.jsonl}
else
  seeds=${SEEDS:-3} epochs=${EPOCHS:-200}
  out_root=${OUT:-$BUILD/runs/swj_nrde_depth}
  results=${RESULTS:-$EXPERIMENTS_DIR/results/swj_nrde_depth.jsonl}
fi
mkdir -p "$out_root" "$(dirname "$results")"
[ "$plot_only" = 1 ] || : >"$results"

# name -> model file and --set flags; depth and step for the tables.
declare -A file=([ncde]=ncde_character [nrde1]=nrde_depth2 [nrde2]=nrde_depth2 [nrde3]=nrde_depth3)
declare -A sets=([ncde]="" [nrde1]="--set sig_depth=1" [nrde2]="" [nrde3]="")
declare -A depth=([ncde]=cubic [nrde1]=1 [nrde2]=2 [nrde3]=3)
declare -A step=([ncde]=1 [nrde1]=4 [nrde2]=4 [nrde3]=32)
# bench-train reads no data: the NCDE's data dims are given.
declare -A bench_sets=([ncde]="--set d_data=4 --set classes=3")
lr=3.2e-3 batch=10
have_time=0
[ -x /usr/bin/time ] && have_time=1

models="ncde nrde1 nrde2 nrde3"
start_all=$SECONDS
[ "$plot_only" = 1 ] || for name in $models; do
  model=$ROOT/examples/${file[$name]}.ode
  # One training step at the data's size, for the counts and the gradient's memory.
  # shellcheck disable=SC2086  # the --set flags are words
  bench=$(bench_keys "$out_root/$name.bench.json" "$model" ${sets[$name]} \
    ${bench_sets[$name]:-} --batch "$batch" --length 2500 --steps 1 --threads "$THREADS")
  for ((seed = 0; seed < seeds; seed++)); do
    run=$out_root/$name/seed$seed
    mkdir -p "$run"
    start=$SECONDS
    status=ok
    timer=()
    rm -f "$run.rss"
    [ "$have_time" = 1 ] && timer=(/usr/bin/time -f %M -o "$run.rss")
    # shellcheck disable=SC2086
    "${timer[@]}" "$PLASTIC" train "$model" ${sets[$name]} --data "$swj" --epochs "$epochs" \
      --optimizer adam --lr "$lr" --schedule plateau --patience 60 --batch "$batch" \
      --dtype f32 --threads "$THREADS" --seed "$seed" --no-progress --force --out "$run" \
      >"$run.log" 2>&1 || status=failed
    rss=
    [ -s "$run.rss" ] && rss="peak_rss_mb=$(($(tail -1 "$run.rss") / 1024))"
    # shellcheck disable=SC2086  # the key=value pairs are words
    python3 "$EXPERIMENTS_DIR/results.py" record "$run" model="$name" depth="${depth[$name]}" \
      step="${step[$name]}" seed="$seed" lr="$lr" seconds=$((SECONDS - start)) $rss $bench \
      status="$status" >>"$results"
    tail -1 "$results"
  done
done
[ "$plot_only" = 1 ] || echo "wall time $((SECONDS - start_all)) s for all runs (THREADS=$THREADS)"

for metric in test_accuracy epoch_seconds peak_rss_mb gradient_peak_mb forward_evals \
  backward_evals; do
  echo
  python3 "$EXPERIMENTS_DIR/results.py" table "$results" --by model,depth,step --metric "$metric"
done

png=${results%.jsonl}.png
if command -v gnuplot >/dev/null; then
  mkdir -p "$out_root/curves"
  for name in $models; do
    python3 "$EXPERIMENTS_DIR/results.py" curves "$out_root/curves/$name.dat" "$out_root/$name"/seed*
  done
  gnuplot <<EOF
set terminal pngcairo size 720,560 font ",10" noenhanced
set output "$png"
files = "$models"
set multiplot layout 2,1 title "StandWalkJump: NCDE vs NRDE depth 1, 2, 3 (mean of $seeds seeds, epochs all reached)"
set logscale y
set format y "%g"
set grid
set key outside right
set ylabel "training loss"
plot for [f in files] "$out_root/curves/".f.".dat" using 1:(\$4 == $seeds ? \$2 : 1/0) with lines lw 2 title f
set ylabel "validation loss (2 series)"
set xlabel "epoch (one Adam step each)"
plot for [f in files] "$out_root/curves/".f.".dat" using 1:(\$4 == $seeds ? \$3 : 1/0) with lines lw 2 title f
unset multiplot
EOF
  echo "plot: ${png#"$ROOT"/}"
fi

if [ "$quick" = 1 ]; then
  python3 "$EXPERIMENTS_DIR/results.py" improved "$results" --loss train
  python3 "$EXPERIMENTS_DIR/results.py" compare "$results" --metric forward_evals \
    --better model=nrde2 --worse model=ncde
fi
