#!/usr/bin/env python3
# PyTorch reference of examples/nrde_depth2.ode: a neural RDE (paper 002,
# Eqs. 9-10) driven by the depth-2 log-signature of each window of 4 samples
# divided by the window's length, on a length-2500 input of 5 channels (4 + a
# time channel), hidden 32, f = linear(mlp 2 x 64 ending in tanh), 3 classes,
# rk4 step 4 (one step per window; 625 steps, the last window 3 samples long),
# gradient direct or continuous adjoint (rtol 1e-5 / atol 1e-7 in the .ode,
# unused by a fixed-step solver, as in torchdiffeq). One JSON line on stdout.
#
#   z(t0) = zeta(x(t0));  z' = reshape(f2(f1(z)), [hidden, 15]) @ dx(t)
#   logits = out(z(T)), cross-entropy
#
# The log-signatures are computed once, outside the timed step, as Plastic
# precomputes them per data set (bench/reference/paths.py, Lyndon basis).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

NAME = "nrde_depth2"


def extra(p):
    p.add_argument("--length", type=int, default=2500)
    p.add_argument("--d-in", type=int, default=5)
    p.add_argument("--window", type=int, default=4)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--classes", type=int, default=3)


def main():
    args = common.parse_args(NAME, extra=extra)
    torch = common.setup_environment(args)
    if torch is None:
        common.skipped(NAME, args)
    import paths
    import solvers
    L = common.make_layers(torch)
    nn = torch.nn
    DIN, HID, B = args.d_in, args.hidden, args.batch
    DSIG = DIN + DIN * (DIN - 1) // 2                      # logsig_dim(d_in, 2)

    matvec = common.matvec_fn(torch, args, "broadcast")

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.zeta = L["Linear"](DIN, HID)
            self.f1 = L["MLP"](HID, args.width, args.width, 2, "relu", "tanh")
            self.f2 = L["Linear"](args.width, HID * DSIG)
            self.out = L["Linear"](HID, args.classes)

        def field(self, driver, t, z):
            return matvec(self.f2(self.f1(z)).view(z.shape[0], HID, DSIG), driver(t))

    model = Model()
    if args.jit:  # the same field through TorchScript (reference/scripted.py)
        import scripted
        weights, biases, acts = scripted.layer_lists([model.f1, model.f2])
        broadcast = common.matvec_choice(args, "broadcast") == "broadcast"
        model.field = lambda driver, t, z: scripted.cde_mlp_field(  # noqa: E731
            z, driver(t), weights, biases, acts, broadcast)
    g = torch.Generator().manual_seed(args.seed + 1)
    n = args.length
    times = torch.arange(n, dtype=torch.float64)
    walk = torch.cumsum(torch.randn(B, n, DIN - 1, generator=g, dtype=torch.float64), 1) / n ** 0.5
    values = torch.cat([times.expand(B, n).unsqueeze(-1) / (n - 1), walk], -1)
    labels = torch.randint(0, args.classes, (B,), generator=g)
    knots, drivers = paths.logsig_windows(torch, values, args.window)   # [m, B, 15], outside the step

    def driver(t):
        return drivers[paths.locate(knots, t)]

    x0 = values[:, 0].to(torch.get_default_dtype())
    T = float(n - 1)
    solver = solvers.Solver("rk4", 0.0, T, step=float(args.window), fused=args.tuned)
    assert solver.grid == knots, "one rk4 step per window"
    field_params = tuple(model.f1.parameters()) + tuple(model.f2.parameters())

    def loss_fn():
        z0 = model.zeta(x0)
        f = lambda t, z: model.field(driver, t, z)  # noqa: E731
        if args.gradient == "adjoint":
            zT = solvers.odeint_adjoint(f, z0, solver, field_params)
        else:
            zT = solvers.odeint(f, z0, solver)
        return torch.nn.functional.cross_entropy(model.out(zT), labels)

    common.run_steps(torch, args, NAME, model, loss_fn,
                     {"length": n, "windows": len(knots) - 1, "solver": f"rk4 step {args.window}",
                      "solver_steps": len(solver.grid) - 1})


if __name__ == "__main__":
    main()
