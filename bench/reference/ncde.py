#!/usr/bin/env python3
# PyTorch reference of the neural CDE baseline (Kidger et al. 2020; paper 000's
# NCDE baseline, Eq. 5): the examples/ncde_character.ode model family at the
# issue's sizes, hidden 90 and a 4 x 40 ReLU MLP with a final tanh, on the
# "speech" data shape (d_in 21 = 20 + time, 161 samples, 10 classes) — the
# same model as bench/models/ncde_speech.ode, which Plastic runs.
#
#   z(t0) = zeta(x(t0));  z' = reshape(f(z), [hidden, d_in]) @ dx/dt(t)
#   logits = out(z(T)), cross-entropy
#   f = mlp[hidden, hidden * d_in, width 40, depth 4, relu, final tanh]
#
# Solver: rk4 step 1 by default (paper 000 App. B runs every supervised model,
# the NCDE baselines included, with torchdiffeq's rk4); --solver dopri5 uses
# ncde_character.ode's rtol 1e-3 / atol 1e-5 instead. Gradient direct or
# continuous adjoint. One JSON line on stdout.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

NAME = "ncde"


def extra(p):
    p.add_argument("--length", type=int, default=161)
    p.add_argument("--d-in", type=int, default=21)
    p.add_argument("--hidden", type=int, default=90)
    p.add_argument("--width", type=int, default=40)
    p.add_argument("--depth", type=int, default=4, help="hidden layers of the MLP")
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--solver", choices=("rk4", "dopri5"), default="rk4")


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

    matvec = common.matvec_fn(torch, args, "matmul")  # broadcast measured slower here in the full step (README)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.zeta = L["Linear"](DIN, HID)
            self.f = L["MLP"](HID, HID * DIN, args.width, args.depth, "relu", "tanh")
            self.out = L["Linear"](HID, args.classes)

        def field(self, path, t, z):
            return matvec(self.f(z).view(z.shape[0], HID, DIN), path.derivative(t))

    model = Model()
    if args.jit:  # the same field through TorchScript (reference/scripted.py)
        import scripted
        weights, biases, acts = scripted.layer_lists([model.f])
        broadcast = common.matvec_choice(args, "matmul") == "broadcast"
        model.field = lambda path, t, z: scripted.cde_mlp_field(  # noqa: E731
            z, path.derivative(t), weights, biases, acts, broadcast)
    g = torch.Generator().manual_seed(args.seed + 1)
    n = args.length
    times = torch.arange(n, dtype=torch.float64)
    feats = torch.cumsum(torch.randn(B, n, DIN - 1, generator=g, dtype=torch.float64), 1) / n ** 0.5
    values = torch.cat([times.expand(B, n).unsqueeze(-1) / (n - 1), feats], -1)
    labels = torch.randint(0, args.classes, (B,), generator=g)
    path = paths.NaturalCubic(torch, times.tolist(), values)
    x0 = values[:, 0].to(torch.get_default_dtype())
    T = float(n - 1)
    if args.solver == "rk4":
        solver = solvers.Solver("rk4", 0.0, T, step=1.0, fused=args.tuned)
    else:
        solver = solvers.Solver("dopri5", 0.0, T, rtol=1e-3, atol=1e-5, fused=args.tuned)
    field_params = tuple(model.f.parameters())

    def loss_fn():
        z0 = model.zeta(x0)
        f = lambda t, z: model.field(path, t, z)  # noqa: E731
        if args.gradient == "adjoint":
            zT = solvers.odeint_adjoint(f, z0, solver, field_params)
        else:
            zT = solvers.odeint(f, z0, solver)
        return torch.nn.functional.cross_entropy(model.out(zT), labels)

    info = {"length": n, "hidden": HID, "mlp": f"{args.depth}x{args.width}"}
    if args.solver == "rk4":
        info.update(solver="rk4 step 1", solver_steps=len(solver.grid) - 1)
    else:
        info.update(solver="dopri5 rtol 1e-3 atol 1e-5")
    common.run_steps(torch, args, NAME, model, loss_fn, info)


if __name__ == "__main__":
    main()
