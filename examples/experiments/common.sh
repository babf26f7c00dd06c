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

# walker2d_rollouts: the Walker2d rollouts of ../shared/data, extracted once
# into $BUILD/data/walker2d (a .complete marker, so an interrupted extraction
# is redone); skips when the archive is absent. Sets $rollouts.
walker2d_rollouts() {
  local archive=$DATA/walker2d/rollouts_float32.tar.xz dir=$BUILD/data/walker2d
  [ -f "$archive" ] || skip "Walker2d rollouts not found in $archive (set PLASTIC_DATA to the real-data folder)"
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    tar -xJf "$archive" -C "$dir"
    touch "$dir/.complete"
  fi
  rollouts=$dir/walker2d
}

# physionet_stays: PhysioNet 2019's training set B part, extracted once into
# $BUILD/data/physionet2019 (never into the source tree); skips when the
# archive is absent. Sets $extract_to and $data (the folder of .psv stays).
# ODE-LSTM's Walker2d windows (walker2d_odelstm_split.py: split by rollout
# file), written once into $BUILD/data: with no argument (or `edges`) the
# targets at bin edges, for models that read x only in their flow; with
# `rows` the targets on their inputs' rows and the raw-step clock as the
# time, for models that read x_j in a jump. Sets `windows` (the folder),
# `columns` (the flags that read it) and `sizes` (train_samples=…
# valid_samples=… test_samples=…, for result rows). Windows of an older
# form are written again.
walker2d_odelstm_windows() {
  local form=${1:-edges} tag=bin-edges
  [ "$form" = rows ] && tag=rows
  [ -f "$DATA/walker2d/rollouts_float32.tar.xz" ] ||
    skip "Walker2d rollouts not found in $DATA/walker2d (set PLASTIC_DATA to the real-data folder)"
  windows=$BUILD/data/walker2d_odelstm64
  [ "$form" = rows ] && windows=$BUILD/data/walker2d_odelstm64_rows
  if ! grep -q "\"targets\": \"$tag\"" "$windows/preparation.json" 2>/dev/null; then
    rm -rf "$windows"
    PLASTIC_DATA=$DATA /usr/bin/python3 "$EXPERIMENTS_DIR/walker2d_odelstm_split.py" --seq-len 64 \
      --targets "$form" --write "$windows"
  fi
  mapfile -t sizes < <(python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["windows"]
for key, part in (("train", "train"), ("valid", "validation"), ("test", "test")):
    print("%s_samples=%d" % (key, w[part]))' "$windows/preparation.json")
  columns=(--time dim_18 --target "$(seq -s, -f 'dim_%g' 19 35)")
}

physionet_stays() {
  local archive=$DATA/physionet2019/training_setB_partial.tar.xz
  [ -f "$archive" ] || skip "PhysioNet 2019 archive not found at $archive (set PLASTIC_DATA to the real-data folder)"
  extract_to=$BUILD/data/physionet2019
  data=$extract_to/training_setB
  if [ ! -d "$data" ] || [ -z "$(ls "$data" | head -1)" ]; then
    echo "extracting $archive into $extract_to"
    mkdir -p "$extract_to"
    tar -xJf "$archive" -C "$extract_to"
  fi
}

# stability_report MODEL DATA SAMPLES OUT_FILE RUN_DIR: `plastic analyze
# stability` of MODEL at initialisation along SAMPLES series of DATA — the
# summary, the 5 worst states and the advice — into OUT_FILE (portable:
# RUN_DIR named OUT), and printed.
stability_report() {
  "$PLASTIC" analyze stability "$1" --data "$2" --samples "$3" \
    | awk '!/^ +[0-9]/ || n++ < 5' | portable "$5" >"$4"
  echo
  cat "$4"
}
