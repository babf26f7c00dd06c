#!/usr/bin/env bash
# bench/scaling.sh — how Plastic's training step scales, on the speech Delta
# CDE of paper 000 App. B (examples/fwp_delta_cde.ode, f32): time per step
# against the series length T, d_head, the batch size and the thread count,
# and peak memory against T for the three gradient methods (direct keeps
# every state: O(T); checkpoint keeps sqrt(T) of them; the adjoint keeps
# only the states at events: flat in the number of steps). Plastic alone —
# bench/run.sh compares with PyTorch. Prints one table per sweep.
#
#   bash bench/scaling.sh            # STEPS=5 timed steps per point
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PLASTIC=${PLASTIC:-$root/build/plastic}
STEPS=${STEPS:-5}
model=$root/examples/fwp_delta_cde.ode

point() { # point ARGS... -> "median_s peak_rss_mb gradient_peak_mb"
  "$PLASTIC" bench-train "$model" --steps "$STEPS" --json "$@" 2>/dev/null |
    python3 -c 'import json, sys; j = json.load(sys.stdin); print("%.4f %.0f %.1f" % (j["median_s"], j["peak_rss_mb"], j["gradient_peak_mb"]))'
}

echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "time per step against T (batch 128, 2 threads, direct)"
printf "%8s %10s %10s\n" T s/step peak_MB
for T in 41 81 161 321 641; do
  read -r s m g <<<"$(point --batch 128 --threads 2 --length $T --gradient direct)"
  printf "%8s %10s %10s\n" $T "$s" "$m"
done
echo
echo "time per step against d_head (batch 128, T 161, 2 threads, direct)"
printf "%8s %10s\n" d_head s/step
for d in 8 16 32 64; do
  read -r s m g <<<"$(point --batch 128 --threads 2 --length 161 --gradient direct --set d_head=$d)"
  printf "%8s %10s\n" $d "$s"
done
echo
echo "time per step against batch (T 161, 2 threads): direct and adjoint"
printf "%8s %10s %10s %10s %10s\n" batch direct_s direct_MB adjoint_s adjoint_MB
for b in 16 64 128 512 1024 4096; do
  read -r s m g <<<"$(point --batch $b --threads 2 --length 161 --gradient direct)"
  read -r sa ma ga <<<"$(point --batch $b --threads 2 --length 161 --gradient adjoint)"
  printf "%8s %10s %10s %10s %10s\n" $b "$s" "$m" "$sa" "$ma"
done
echo
echo "time per step against threads (batch 128 and 1024, T 161): direct and adjoint"
printf "%8s %8s %10s %10s\n" batch threads direct_s adjoint_s
for b in 128 1024; do
  for t in 1 2; do
    read -r s m g <<<"$(point --batch $b --threads $t --length 161 --gradient direct)"
    read -r sa ma ga <<<"$(point --batch $b --threads $t --length 161 --gradient adjoint)"
    printf "%8s %8s %10s %10s\n" $b $t "$s" "$sa"
  done
done
echo
echo "memory of the gradient method against T (batch 128, 2 threads): peak MB held by the tiles in flight"
printf "%8s %10s %10s %10s\n" T direct checkpoint adjoint
for T in 81 161 321 641 1281; do
  row=""
  for g in direct checkpoint adjoint; do
    read -r s m grow <<<"$(point --batch 128 --threads 2 --length $T --gradient $g)"
    row+=$(printf " %10s" "$grow")
  done
  printf "%8s%s\n" $T "$row"
done
