#!/usr/bin/env bash
# The REPL's model-change latency on the speech Delta CDE
# (examples/fwp_delta_cde.ode): a dim change, a solver change, and going back
# to a specialisation compiled before in the session (a cache hit). Each
# change is timed by the REPL itself, from the typed line to the new model
# with its parameters carried over ("compiled in X s" / "from the cache in
# X ms"). The script runs twice on a fresh on-disk kernel cache: the first
# session compiles, the second finds every kernel in the cache (a new REPL
# or `plastic train` of a model compiled before). A benchmark, not a test:
# nothing asserts a time.
#
#   bash bench/repl_latency.sh [ROUNDS]     (PLASTIC=path/to/plastic, default build/plastic)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
plastic=${PLASTIC:-$here/build/plastic}
rounds=${1:-3}
script=$(mktemp)
cache=$(mktemp -d)
trap 'rm -rf "$script" "$cache"' EXIT
export PLASTIC_CACHE_DIR=$cache
{
  echo "load $here/examples/fwp_delta_cde.ode"
  echo "info"
  for r in $(seq "$rounds"); do
    # Fresh specialisations each round (another d_head), then the same ones again.
    d=$((20 + 4 * r))
    printf 'd_head = %s\ninfo\n' "$d"                # dim change: compiles
    printf 'dopri5 rtol 1e-6 atol 1e-8\ninfo\n'      # solver change: compiles
    printf 'solve rk4 step 1.0\ninfo\n'              # back to rk4 at this d_head: cache hit
    printf 'd_head = 20\ninfo\n'                     # back to the file's d_head: cache hit
  done
} >"$script"
# Wall-clock and CPU seconds of each change, as the REPL's `info` reports them
# (wall exceeds CPU when other work shares the machine).
for session in "first session (empty kernel cache)" "second session (kernels on disk)"; do
  echo "== $session"
  printf '%-40s %-10s %10s %10s\n' change kind "wall ms" "CPU ms"
  "$plastic" repl --script "$script" | awk '
    /^plastic> info/ { next }
    /^plastic> / { what = substr($0, 10); next }
    /the last change took/ {
      match($0, /took [0-9.]+ s/); wall = substr($0, RSTART + 5, RLENGTH - 7)
      match($0, /\([0-9.]+ s CPU/); cpu = substr($0, RSTART + 1, RLENGTH - 7)
      kind = ($0 ~ /cache hit/) ? "cache hit" : ($0 ~ /disk cache/) ? "disk cache" : "compile"
      printf "%-40s %-10s %10.1f %10.1f\n", what, kind, wall * 1000, cpu * 1000 }'
done
