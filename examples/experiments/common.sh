# Shared helpers of the acceptance scripts (sourced, not run).
#
#   PLASTIC_DATA   the real-data folder (default: ../shared/data beside the repo)
#   PLASTIC_BUILD  the build folder holding `plastic` (default: build/)
#   THREADS        threads for training (default 2)
#   OUT            run folder (default: build/runs/<experiment>)
#   PLASTIC_SKIP_CODE  exit code when the data are absent (default 0; the
#                  CTest registration sets 77 = SKIP_RETURN_CODE)
set -euo pipefail
EXPERIMENTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$EXPERIMENTS_DIR/../.." && pwd)
BUILD=${PLASTIC_BUILD:-$ROOT/build}
PLASTIC=$BUILD/plastic
DATA=${PLASTIC_DATA:-$ROOT/../shared/data}
THREADS=${THREADS:-2}

skip() {
  echo "SKIP: $*"
  exit "${PLASTIC_SKIP_CODE:-0}"
}

need_plastic() {
  [ -x "$PLASTIC" ] || { echo "error: $PLASTIC not found; build it (cmake --build build --target plastic)" >&2; exit 1; }
}

# summary_value RUN_DIR SPLIT KEY: a number from the run's summary.json.
summary_value() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' \
    "$1/summary.json" "$2" "$3"
}

# check_at_least VALUE MIN WHAT: fails (exit 1) when VALUE < MIN.
check_at_least() {
  if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' "$1" "$2"; then
    echo "PASS: $3 $1 >= $2"
  else
    echo "FAIL: $3 $1 < $2"
    exit 1
  fi
}

# portable RUN_DIR: a filter for what goes into a committed result file —
# the repository's files named relative to it and the run folder as OUT,
# so the file says the same on every machine.
portable() {
  sed -e "s|$ROOT/||g" -e "s|$1|OUT|g"
}

# bench_keys JSON_OUT ARGS...: one `plastic bench-train ARGS --json` step,
# its line kept in JSON_OUT; prints key=value pairs for `results.py record`:
# field evaluations of the forward and backward solves (per tile of lanes),
# the memory the gradient method held, the step's seconds, the gradient
# method. Counts and bytes that do not depend on the machine's load, unlike
# wall times. Prints nothing when the step fails (e.g. the solve diverges).
bench_keys() {
  local json=$1
  shift
  "$PLASTIC" bench-train "$@" --json 2>/dev/null | tail -1 >"$json" || : >"$json"
  python3 - "$json" <<'PY'
import json, sys
try:
    b = json.loads(open(sys.argv[1]).read())
except ValueError:
    sys.exit(0)
print(f"forward_evals={b['forward_evals']} backward_evals={b['backward_evals']} "
      f"gradient_peak_mb={b['gradient_peak_mb']:.3f} bench_step_s={b['median_s']:.4f} "
      f"gradient={b['gradient_method'].replace(' ', '_')}")
PY
}
