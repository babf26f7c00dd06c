#!/usr/bin/env bash
# bench/run.sh — Plastic against the tuned PyTorch reference, back to back on
# the same machine, for every configuration of configs.sh; REPEATS runs of
# each side (alternating, so a change in machine load hits both), then a
# table of medians and ratios.
#
#   bash bench/run.sh                          # the issue's sizes
#   REPEATS=5 STEPS=20 bash bench/run.sh
# Environment: as run_reference.sh, plus REPEATS (3), PLASTIC (build/plastic),
# OUT (/tmp/plastic-bench-compare.jsonl).
#
# ---- Plastic hook ----------------------------------------------------------
# The Plastic side is one command per configuration:
#   $PLASTIC bench-train FILE --batch B --threads N --steps K --dtype f32 \
#       --gradient direct|adjoint [--set name=value] --json
# printing one JSON line {"median_s": ..., "peak_rss_mb": ..., "steps": ...}
# (extra keys are kept). Until `plastic bench-train` exists, only the
# reference side runs and the script says so.
# ----------------------------------------------------------------------------
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/configs.sh"
PYTHON=${PYTHON:-/usr/bin/python3}
PLASTIC=${PLASTIC:-$root/build/plastic}
STEPS=${STEPS:-10} WARMUP=${WARMUP:-2} BATCH=${BATCH:-128} THREADS=${THREADS:-2} DTYPE=${DTYPE:-f32}
REPEATS=${REPEATS:-3}
OUT=${OUT:-/tmp/plastic-bench-compare.jsonl}
: >"$OUT"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=$THREADS

# Fairness: Debian's torch calls the system libblas.so.3, which is netlib's
# reference BLAS until bench/setup selects OpenBLAS — a reference several
# times slower than it should be (the NCDE step took 10 s instead of 0.8 s).
# Refuse to time it so; BLAS_OK=1 overrides (e.g. another optimised BLAS).
blas=$(readlink -f "/etc/alternatives/libblas.so.3-$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)" 2>/dev/null || true)
if [[ "${BLAS_OK:-0}" != 1 && "$blas" == */blas/libblas.so* ]]; then
  echo "the system BLAS is netlib's reference BLAS ($blas): run 'bash bench/setup' as root first (or BLAS_OK=1)" >&2
  exit 2
fi

have_plastic=0
# CLI11 answers `--help` with exit 0 even for an unknown subcommand, so look
# for the subcommand in the list instead.
if [[ -x "$PLASTIC" ]] && "$PLASTIC" --help 2>/dev/null | grep -qE '^ +bench-train( |$)'; then
  have_plastic=1
else
  echo "plastic bench-train not available yet ($PLASTIC): running the reference side only" >&2
fi

# Tags a JSON line with the side and configuration so table.py can pair them.
tag() { "$PYTHON" -c '
import json, sys
side, cfg, grad = sys.argv[1:4]
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        r.update(side=side, config=cfg, gradient=grad)
        print(json.dumps(r), flush=True)
    elif line:
        print(line, file=sys.stderr)
' "$@"; }

echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for line in "${BENCH_CONFIGS[@]}"; do
  IFS='|' read -r name ode script gradients flags plastic_flags reference_flags replace <<<"$line"
  [[ -n "${ONLY:-}" && "$ONLY" != "$name" ]] && continue
  model="$root/$ode"
  if [[ -n "$replace" ]]; then
    model=$(mktemp --suffix=.ode)
    cp "$root/$ode" "$model"
    IFS=';' read -ra lines <<<"$replace"
    for l in "${lines[@]}"; do
      key=${l%% *}
      grep -q "^$key " "$model" || { echo "no '$key' line in $ode" >&2; exit 2; }
      sed -i "s|^$key .*|$l|" "$model"
    done
  fi
  for gradient in $gradients; do
    for ((r = 1; r <= REPEATS; r++)); do
      echo "# $name $gradient run $r/$REPEATS" >&2
      if ((have_plastic)); then
        # shellcheck disable=SC2086
        "$PLASTIC" bench-train "$model" --batch "$BATCH" --threads "$THREADS" --steps "$STEPS" \
          --dtype "$DTYPE" --gradient "$gradient" $flags $plastic_flags --json | tag plastic "$name" "$gradient" | tee -a "$OUT" ||
          echo "# plastic bench-train failed on $name $gradient" >&2
      fi
      # The tuned reference eager and with its field scripted (--jit): the
      # speed-up is taken against the faster (table.py compare).
      for jit in "" --jit; do
        # shellcheck disable=SC2086
        "$PYTHON" "$here/reference/$script" --batch "$BATCH" --threads "$THREADS" --dtype "$DTYPE" \
          --steps "$STEPS" --warmup "$WARMUP" --gradient "$gradient" --tuned $jit $flags $reference_flags |
          tag reference "$name" "$gradient" | tee -a "$OUT"
      done
    done
  done
done
echo
"$PYTHON" "$here/table.py" compare "$OUT"
