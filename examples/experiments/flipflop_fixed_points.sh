#!/usr/bin/env bash
# Paper 003's fixed points, checked with `plastic analyze fixed-points` and
# `plastic analyze flow`.
#
# 1. Sec. 6.1 / App. F.1: a gnODE with N = 3 (gnode_flipflop_n3.ode)
#    trained on the fixed-amplitude 3-bit flip-flop (pulses of +-1,
#    synthetic:flipflop-fixed) should hold each of the 2^3 = 8 outputs at a
#    stable fixed point of its field with no input (x = 0). Fixed points
#    are searched from states along 10 training trials (App. F.4) and
#    classified by their Jacobian spectra; the flow field in the plane of
#    the trajectories' two leading PCs is drawn with them.
# 2. Sec. 4 / App. A: at critical initialisation the spectral radius of the
#    MLP's input-output Jacobian J = dF/dh is 1 (Eq. 41 with Eq. 60; the
#    edge of chaos), and Glorot initialisation puts it below (stable). For
#    the gnODE (N = H = 100, gnode_flipflop.ode) at its fixed point next to
#    the origin (x = 0, b_z = 0, so the gate is 1/2 there), the field's
#    Jacobian is D = (J - I) / (2 tau): rho(J) = max |1 + 2 tau lambda(D)|.
#    For the leaky nODE (node_leak_flipflop.ode, G = 1) D = (J - I) / tau
#    at any state: rho(J) = max |1 + tau lambda| at its fixed point with the
#    inputs held at 0.5 (away from the ReLUs' kink at 0). Five seeds each.
#    Finite-width prediction: the x columns of W^0 take a share n/(N + n)
#    of the first layer's fan-in, so rho(J)^2 = N/(N + 3) = 0.971.
#
#   examples/experiments/flipflop_fixed_points.sh   (EPOCHS=60 by default)
source "$(dirname "$0")/common.sh"
need_plastic
out=${OUT:-$BUILD/runs/flipflop_fixed_points}
results=$EXPERIMENTS_DIR/results
mkdir -p "$out" "$results"
model=$ROOT/examples/gnode_flipflop_n3.ode
data=(--data synthetic:flipflop-fixed)

echo "== training gnode_flipflop_n3 on the fixed-amplitude 3-bit flip-flop"
"$PLASTIC" train "$model" "${data[@]}" --set H=${H:-32} --dtype f64 --batch 50 --lr 1e-2 \
  --optimizer adamw --epochs "${EPOCHS:-60}" --threads "$THREADS" --no-progress \
  --out "$out/run" | tail -3

echo "== fixed points with no input (x = 0), starts along 10 training trials"
"$PLASTIC" analyze fixed-points "$model" --set H=${H:-32} --parameters "$out/run" --dtype f64 \
  "${data[@]}" --samples 10 --starts 300 | tee "$results/flipflop_fixed_points.txt"
"$PLASTIC" analyze fixed-points "$model" --set H=${H:-32} --parameters "$out/run" --dtype f64 \
  "${data[@]}" --samples 10 --starts 300 --json >"$out/fixed_points.json"
"$PLASTIC" analyze flow "$model" --set H=${H:-32} --parameters "$out/run" --dtype f64 \
  "${data[@]}" --samples 10 --starts 300 --plot "$out/flow.png" >/dev/null
cp "$out/flow.png" "$results/flipflop_flow.png"

echo "== critical initialisation (paper 003 Sec. 4): rho(J) at the fixed point by the origin"
critical_variant() { # FILE -> the same model with F initialised critically
  sed 's/activation = relu, final = none, init = glorot_uniform\]/activation = relu, final = none, init = critical]/' \
    "$ROOT/examples/$1.ode" >"$out/$1_critical.ode"
  grep -q 'init = critical' "$out/$1_critical.ode" || { echo "error: no mlp to change in $1" >&2; exit 1; }
}
critical_variant gnode_flipflop
critical_variant node_leak_flipflop
rho_table=$results/flipflop_critical_init.txt
{
  echo "# rho(J) of the MLP's Jacobian dF/dh at initialisation, from the field's eigenvalues at"
  echo "# the fixed point found from the origin; N = H = 100, depth 3 (L = 4); prediction:"
  echo "# critical sqrt(N/(N+3)) = 0.985 (paper: 1 in the wide limit), Glorot below 1"
  echo "# model init input seed rho_J max_re_lambda kind"
} >"$rho_table"
for spec in "gnode_flipflop 0 0.02" "node_leak_flipflop 0.5 0.01"; do
  set -- $spec
  name=$1 input=$2 scale=$3 # tau / gate: J = I + scale D
  for init in default critical; do
    file=$ROOT/examples/$name.ode
    [ "$init" = critical ] && file=$out/${name}_critical.ode
    for seed in 0 1 2 3 4; do
      "$PLASTIC" analyze fixed-points "$file" --seed "$seed" --input "$input" --starts 1 \
        --json >"$out/$name.$init.$seed.json"
      python3 - "$out/$name.$init.$seed.json" "$scale" "$name $init $input $seed" >>"$rho_table" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
scale = float(sys.argv[2])
if not r["points"]:
    print(sys.argv[3], "nan nan none")
    sys.exit()
p = r["points"][0]
rho = max(abs(complex(1 + scale * l["re"], scale * l["im"])) for l in p["eigenvalues"])
print(sys.argv[3], f"{rho:.4f}", f"{p['spectral_abscissa']:.4g}", p["kind"] + ("*" if p["slow"] else ""))
EOF
    done
  done
done
python3 - "$rho_table" <<'EOF' | tee -a "$rho_table"
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
for model in ("gnode_flipflop", "node_leak_flipflop"):
    for init in ("default", "critical"):
        v = [float(r[4]) for r in rows if r[0] == model and r[1] == init and r[4] != "nan"]
        if v:
            print(f"# mean rho(J) {model:18} {init:8}: {statistics.mean(v):.3f} "
                  f"(sd {statistics.pstdev(v):.3f}, {len(v)} seeds)")
EOF

stable=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fixed_points"]["stable"])' \
  "$out/fixed_points.json")
echo "stable fixed points: $stable (the task needs 8)"
[ "$stable" -eq 8 ] && echo "PASS: 8 stable fixed points" || { echo "FAIL: $stable stable fixed points, not 8"; exit 1; }
