#!/usr/bin/env bash
# bench/run_reference.sh — times every configuration of the PyTorch reference
# (bench/reference/), plain, tuned and tuned with its field scripted by
# torch.jit.script (jit), direct and adjoint where the model has
# both, and prints a table. Each run is one process (so ru_maxrss is that
# configuration's own peak) printing one JSON line; the lines are kept in $OUT.
#
#   bash bench/run_reference.sh                 # the issue's sizes, 10 steps
#   STEPS=3 BATCH=32 bash bench/run_reference.sh
#   ONLY=fwp_delta_cde bash bench/run_reference.sh
# Environment: STEPS (10), WARMUP (2), BATCH (128), THREADS (2), DTYPE (f32),
# ONLY (a config name), OUT (/tmp/plastic-bench-reference.jsonl), PYTHON.
# Needs bench/setup (python3-torch + OpenBLAS); without torch every line says
# "skipped" and the script exits 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/configs.sh"
PYTHON=${PYTHON:-/usr/bin/python3}
STEPS=${STEPS:-10} WARMUP=${WARMUP:-2} BATCH=${BATCH:-128} THREADS=${THREADS:-2} DTYPE=${DTYPE:-f32}
OUT=${OUT:-/tmp/plastic-bench-reference.jsonl}
: >"$OUT"

# Fairness (README.md): OpenBLAS gets one thread, torch's pool THREADS; the
# scripts call torch.set_num_threads themselves.
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

echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for line in "${BENCH_CONFIGS[@]}"; do
  IFS='|' read -r name ode script gradients flags _plastic_flags reference_flags _replace <<<"$line"
  [[ -n "${ONLY:-}" && "$ONLY" != "$name" ]] && continue
  for gradient in $gradients; do
    for variant in plain tuned jit; do
      echo "# $name $gradient $variant" >&2
      flag=(--"$variant")
      [ "$variant" = jit ] && flag=(--tuned --jit)
      # shellcheck disable=SC2086
      "$PYTHON" "$here/reference/$script" --batch "$BATCH" --threads "$THREADS" --dtype "$DTYPE" \
        --steps "$STEPS" --warmup "$WARMUP" --gradient "$gradient" "${flag[@]}" $flags $reference_flags | tee -a "$OUT"
    done
  done
done
echo
"$PYTHON" "$here/table.py" reference "$OUT"
