#!/usr/bin/env bash
# Paper 003's fixed points, checked with `plastic analyze fixed-points` and
# `plastic analyze flow`.
#
# 1. Sec. 6.1 / App. F.1: a gnODE with N = 6 (gnode_flipflop.ode, N = 6,
#    H = 64) trained on the fixed-amplitude 3-bit flip-flop (pulses of +-1,
#    synthetic:flipflop-fixed) should hold each of the 2^3 = 8 outputs
#    (+-1, +-1, +-1) at a stable fixed point of its field with no input
#    (x = 0). Fixed points are searched from states along 10 training trials
#    (App. F.4) and classified by their Jacobian spectra; each point's
#    readout says which output it holds. Plastic's generator also asks for 0
#    in a channel before its first pulse, so stable points whose readout has
#    a 0 channel are expected too; the check counts the corners of
#    {-1, +1}^3 held by a stable point (readout within 0.25 of the corner).
#    The flow field in the plane of the trajectories' two leading PCs is
#    drawn with them.
# 2. Sec. 4 / App. A: at critical initialisation the spectral radius of the
#    MLP's input-output Jacobian J = dF/dh is 1 (Eq. 41 with Eq. 60; the
#    edge of chaos), and Glorot initialisation puts it below (stable). The
#    gnODE's gate multiplies F - h and does not enter J, so J is measured on
#    the same F (N = H = 100, depth 3, ReLU) in its G = 1 form, the leaky
#    nODE node_leak_flipflop.ode, whose field Jacobian is D = (J - I) / tau
#    at any state: rho(J) = max |1 + tau lambda(D)|, at the fixed point the
#    finder reaches from the origin with the inputs held at 0.5 (away from
#    the ReLUs' kink at 0: Plastic's `init = critical` mlp has zero biases,
#    so at h = 0, x = 0 every unit sits at the kink, where relu' = 0 and
#    J = 0). Five seeds each. Finite-width prediction for critical init:
#    the 3 input columns of W^0 take their share of its fan-in, so
#    rho(J)^2 = N / (N + 3), rho(J) = 0.985.
#
#   examples/experiments/flipflop_fixed_points.sh   (EPOCHS=100 by default)
source "$(dirname "$0")/common.sh"
need_plastic
out=${OUT:-$BUILD/runs/flipflop_fixed_points}
results=$EXPERIMENTS_DIR/results
mkdir -p "$out" "$results"
model=$ROOT/examples/gnode_flipflop.ode
data=(--data synthetic:flipflop-fixed)
sizes=(--set N=6 --set H=64)

echo "== training the gnODE (N = 6) on the fixed-amplitude 3-bit flip-flop"
"$PLASTIC" train "$model" "${sizes[@]}" "${data[@]}" --dtype f64 --batch 10 --lr 1e-2 \
  --optimizer adamw --epochs "${EPOCHS:-100}" --patience 0 --threads "$THREADS" --no-progress \
  --force --out "$out/run" | tail -3 | portable "$out" | tee "$results/flipflop_training.txt"

echo "== fixed points with no input (x = 0), starts along 10 training trials"
"$PLASTIC" analyze fixed-points "$model" "${sizes[@]}" --parameters "$out/run" --dtype f64 \
  "${data[@]}" --samples 10 --starts 300 | portable "$out" | tee "$results/flipflop_fixed_points.txt"
"$PLASTIC" analyze fixed-points "$model" "${sizes[@]}" --parameters "$out/run" --dtype f64 \
  "${data[@]}" --samples 10 --starts 300 --json >"$out/fixed_points.json"
"$PLASTIC" analyze flow "$model" "${sizes[@]}" --parameters "$out/run" --dtype f64 \
  "${data[@]}" --samples 10 --starts 300 --plot "$out/flow.png" >/dev/null
cp "$out/flow.png" "$results/flipflop_flow.png"

echo "== critical initialisation (paper 003 Sec. 4): rho(J) of F at initialisation"
name=node_leak_flipflop
sed 's/activation = relu, final = none, init = glorot_uniform\]/activation = relu, final = none, init = critical]/' \
  "$ROOT/examples/$name.ode" >"$out/${name}_critical.ode"
grep -q 'init = critical' "$out/${name}_critical.ode" || { echo "error: no mlp to change in $name" >&2; exit 1; }
rho_table=$results/flipflop_critical_init.txt
{
  echo "# rho(J) of F's Jacobian dF/dh at initialisation (N = H = 100, depth 3, L = 4), from the"
  echo "# eigenvalues of node_leak_flipflop's field at its fixed point with the inputs held at 0.5;"
  echo "# prediction: critical sqrt(N/(N+3)) = 0.985 (paper 003 Eq. 41/60: 1 in the wide limit)"
  echo "# init seed rho_J max_re_lambda kind"
} >"$rho_table"
for init in default critical; do
  file=$ROOT/examples/$name.ode
  [ "$init" = critical ] && file=$out/${name}_critical.ode
  for seed in 0 1 2 3 4; do
    "$PLASTIC" analyze fixed-points "$file" --seed "$seed" --input 0.5 --starts 1 \
      --json >"$out/$name.$init.$seed.json"
    python3 - "$out/$name.$init.$seed.json" "$init $seed" >>"$rho_table" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
tau = 0.01  # node_leak_flipflop: tau h' = -h + F, so J = I + tau D
if not r["points"]:
    print(sys.argv[2], "nan nan none")
    sys.exit()
p = r["points"][0]
rho = max(abs(complex(1 + tau * l["re"], tau * l["im"])) for l in p["eigenvalues"])
print(sys.argv[2], f"{rho:.4f}", f"{p['spectral_abscissa']:.4g}", p["kind"] + ("*" if p["slow"] else ""))
EOF
  done
done
python3 - "$rho_table" <<'EOF' | tee -a "$rho_table"
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
for init in ("default", "critical"):
    v = [float(r[2]) for r in rows if r[0] == init and r[2] != "nan"]
    if v:
        print(f"# mean rho(J) {init:8}: {statistics.mean(v):.3f} "
              f"(sd {statistics.pstdev(v):.3f}, {len(v)} seeds)")
EOF

python3 - "$out/fixed_points.json" <<'EOF' | tee -a "$results/flipflop_fixed_points.txt"
import json, sys
r = json.load(open(sys.argv[1]))
stable = [p for p in r["points"] if p["kind"] == "stable" and not p["slow"]]
corners = {}
for p in stable:
    o = p["outputs"]
    if all(abs(abs(v) - 1) <= 0.25 for v in o):
        corners.setdefault(tuple(1 if v > 0 else -1 for v in o), []).append(p)
print(f"stable fixed points: {len(stable)}; with a readout at a corner of {{-1, +1}}^3: "
      f"{sum(len(v) for v in corners.values())}, covering {len(corners)} of the 8 corners")
for c in sorted(corners):
    print("  corner", c, "held by", len(corners[c]), "stable point(s), max Re lambda",
          ", ".join(f"{p['spectral_abscissa']:.3g}" for p in corners[c]))
print("PASS: 8 stable fixed points hold the 8 outputs" if len(corners) == 8 else
      f"FAIL: only {len(corners)} of the 8 outputs are held by a stable fixed point")
sys.exit(0 if len(corners) == 8 else 1)
EOF
