#!/usr/bin/env python3
# Self-checks of the reference's own numerics (f64), so a timing never rests
# on a wrong solver, path or gradient: the natural cubic spline interpolates
# with natural ends and a continuous derivative; the depth-2 log-signature
# gives the Lévy area of a closed square (1) and of a straight line (0);
# dopri5 meets its tolerance on y' = -y; the continuous adjoint's gradients
# match direct backprop on a small CDE; the torch.jit.script fields (--jit,
# scripted.py) give the eager fields' values and gradients. Prints "ok" lines, exits 1 on failure
# and 0 with "skipped" without torch.
#     /usr/bin/python3 bench/reference/selfcheck.py
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    try:
        import torch
    except ImportError:
        print("skipped: python3-torch is not installed (run bench/setup as root)")
        return 0
    import paths
    import solvers
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(0)
    fails = 0

    def check(name, ok, detail=""):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + name + (f"  ({detail})" if detail else ""))
        fails += 0 if ok else 1

    # Natural cubic spline.
    knots = [0.0, 0.7, 1.5, 2.0, 3.2, 4.0]
    vals = torch.randn(3, len(knots), 2)
    sp = paths.NaturalCubic(torch, knots, vals)
    err = max(float((sp.evaluate(k) - vals[:, i]).abs().max()) for i, k in enumerate(knots))
    check("spline interpolates the knots", err < 1e-12, f"{err:.1e}")
    jump = max(float((sp.derivative(k - 1e-9) - sp.derivative(k + 1e-9)).abs().max()) for k in knots[1:-1])
    check("spline derivative continuous at the knots", jump < 1e-6, f"{jump:.1e}")
    check("natural ends (x'' = 0)", float(sp.c[0].abs().max()) < 1e-12 and
          float((sp.c[-1] + 3 * sp.d[-1] * (knots[-1] - knots[-2])).abs().max()) < 1e-12)
    lin = torch.arange(6.0)[None, :, None] * 2.0 + 1.0
    check("spline of a line is the line", abs(float(paths.NaturalCubic(torch, list(range(6)), lin).derivative(2.3)) - 2.0) < 1e-12)

    # Depth-2 log-signature: square loop (counter-clockwise) has area 1.
    sq = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]])
    knots_w, drv = paths.logsig_windows(torch, sq, 4)
    check("Lévy area of the unit square", abs(float(drv[0, 0, 2]) * 4 - 1.0) < 1e-12 and
          float(drv[0, 0, :2].abs().max()) < 1e-12, str(drv[0, 0].tolist()))
    line = torch.linspace(0, 1, 9)[None, :, None] * torch.tensor([1.0, 2.0, -1.0])
    _, drv = paths.logsig_windows(torch, line, 4)
    check("straight line: no area, increment / length",
          float(drv[..., 3:].abs().max()) < 1e-12 and abs(float(drv[0, 0, 1]) - 2.0 / 8) < 1e-12)
    _, drv = paths.logsig_windows(torch, torch.randn(2, 11, 3), 4)
    check("windows of 4 over 11 samples: 3 windows, last shorter", drv.shape == (3, 2, 6))

    # dopri5 on y' = -y.
    s = solvers.Solver("dopri5", 0.0, 2.0, rtol=1e-8, atol=1e-10)
    y = s.forward(lambda t, y: (-y[0],), (torch.ones(4),))[0]
    e = float((y - math.exp(-2.0)).abs().max())
    check("dopri5 meets its tolerance", e < 1e-7, f"err {e:.1e}, steps {s.stats}")
    # Classic rk4 is 4th order.
    errs = []
    for h in (0.2, 0.1):
        y = solvers.Solver("rk4", 0.0, 2.0, step=h).forward(lambda t, y: (-y[0],), (torch.ones(1),))[0]
        errs.append(abs(float(y) - math.exp(-2.0)))
    check("rk4 order 4", 14 < errs[0] / errs[1] < 18, f"ratio {errs[0] / errs[1]:.1f}")

    # Adjoint vs direct on a small CDE with a Delta-rule-like field.
    B, d, c = 3, 4, 3
    W1 = torch.randn(d, d, requires_grad=True)
    W2 = torch.randn(d * c, d, requires_grad=True)
    z0 = torch.randn(B, d, requires_grad=True)
    path = paths.NaturalCubic(torch, [0.0, 1.0, 2.0, 3.0], torch.randn(B, 4, c))

    def field(t, z):
        A = torch.tanh(z @ W2.t()).view(B, d, c)
        return (A * path.derivative(t).unsqueeze(-2)).sum(-1) - 0.1 * torch.tanh(z @ W1.t())

    for method, kw in (("rk4", dict(step=0.01)), ("dopri5", dict(rtol=1e-9, atol=1e-11))):
        grads = []
        for adjoint in (False, True):
            s = solvers.Solver(method, 0.0, 3.0, **kw)
            zT = solvers.odeint_adjoint(field, z0, s, (W1, W2)) if adjoint else solvers.odeint(field, z0, s)
            grads.append(torch.autograd.grad((zT ** 2).sum(), (z0, W1, W2)))
        rel = max(float((a - b).abs().max() / b.abs().max()) for a, b in zip(*grads))
        check(f"adjoint gradient = direct gradient ({method})", rel < 1e-6, f"rel {rel:.1e}")

    check_scripted_fields(torch, paths, check)
    return 1 if fails else 0


def check_scripted_fields(torch, paths, check):
    """The scripted fields against the eager ones on random parameters and
    states (f64): values and parameter gradients agree to rounding."""
    import common
    import fwp_delta_cde
    import scripted
    L = common.make_layers(torch)
    broadcast = lambda A, v: (A * v.unsqueeze(-2)).sum(-1)  # noqa: E731

    def agree(name, eager, jit, params):
        ge = torch.autograd.grad(eager.square().sum(), params)
        gj = torch.autograd.grad(jit.square().sum(), params)
        rel = max([float((eager - jit).abs().max() / eager.abs().max())] +
                  [float((a - b).abs().max() / a.abs().max().clamp_min(1e-300)) for a, b in zip(ge, gj)])
        check(f"scripted field = eager field ({name})", rel < 1e-12, f"rel {rel:.1e}")

    B, H, D, DIN = 3, 2, 3, 4
    path = paths.NaturalCubic(torch, [0.0, 1.0, 2.0, 3.0], torch.randn(B, 4, DIN))
    model = fwp_delta_cde.make_model(torch, L, H, D, DIN, 5, 3, broadcast)
    with torch.no_grad():
        model.ln.gain.add_(0.1 * torch.randn(DIN))
    W = torch.randn(B, H, D, D)
    x, dx = path.evaluate(1.3), path.derivative(1.3)
    agree("Delta CDE", model.field(path, 1.3, W),
          scripted.delta_cde_field(x, dx, W, model.ln.gain, model.ln.bias, model.Wb, model.Wk, model.Wv, True),
          model.field_params())

    f1, f2 = L["MLP"](5, 8, 8, 2, "relu", "tanh"), L["Linear"](8, 5 * 6)
    z, drive = torch.randn(B, 5), torch.randn(B, 6)
    params = tuple(f1.parameters()) + tuple(f2.parameters())
    weights, biases, acts = scripted.layer_lists([f1, f2])
    agree("NRDE MLP", broadcast(f2(f1(z)).view(B, 5, 6), drive),
          scripted.cde_mlp_field(z, drive, weights, biases, acts, True), params)

    N, BITS, tau = 4, 3, 0.01
    F = L["MLP"](N + BITS, N, 6, 3, "relu", "none", "glorot_uniform")
    Wz, bz = torch.randn(N, N + BITS, requires_grad=True), torch.randn(N, requires_grad=True)
    h, u = torch.randn(B, N), torch.randn(B, BITS)
    hx = torch.cat([h, u], -1)
    weights, biases, acts = scripted.layer_lists([F])
    agree("gNODE", torch.sigmoid(torch.nn.functional.linear(hx, Wz, bz)) * (F(hx) - h) / tau,
          scripted.gnode_field(h, u, Wz, bz, weights, biases, acts, tau), tuple(F.parameters()) + (Wz, bz))


if __name__ == "__main__":
    sys.exit(main())
