#!/usr/bin/env python3
# PyTorch reference of examples/fwp_delta_cde.ode: the Delta-rule CDE fast
# weight programmer with post-delta tanh (paper 000 Eqs. 24, 25, 32), in the
# "speech" setting of App. B (d_in 21 = 20 MFCCs + time, T = 161 samples,
# 4 heads x 20, d_ff 320, 10 classes), rk4 step 1 over knots 0..160, gradient
# direct or continuous adjoint (rtol 1e-7 / atol 1e-9 as the .ode; unused by a
# fixed-step solver, as in torchdiffeq); `--solver dopri5` integrates both
# ways adaptively instead (rtol 1e-5 / atol 1e-7 by default: bench/configs.sh's
# dopri5 row). One JSON line on stdout.
#
# Field, per sample (shapes as in the .ode):
#   u = ln(x(t)); beta = sigmoid(Wb u) [heads]; k = softmax(Wk dx(t)) [heads, d_head]
#   W' = beta * outer(tanh(Wv u - W k), k)                        W(0) = 0
#   logits = out(ff(reshape(W(T) softmax(Wq dx(T)), [80]))), cross-entropy.
# Shared-weight products (Wk dx, Wv u, Wb u) are one GEMM over the batch; the
# per-sample mat-vec W k is torch.matmul (plain) or a broadcast
# multiply-and-sum (tuned, faster here: see bench/reference/matvec_probe.py).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

NAME = "fwp_delta_cde"


def extra(p):
    p.add_argument("--length", type=int, default=161, help="samples per series (T + 1 knots)")
    p.add_argument("--d-in", type=int, default=21)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--d-head", type=int, default=20)
    p.add_argument("--d-ff", type=int, default=320)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--solver", choices=("rk4", "dopri5"), default="rk4",
                   help="dopri5: rtol --rtol, atol --atol forward and backward")
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-7)


def make_model(torch, L, H, D, DIN, d_ff, classes, matvec, tuned=False, scripted=None, broadcast=True):
    """The model of examples/fwp_delta_cde.ode with the .ode's parameter names
    (ln.gain, Wb, Wk, Wv, Wq, ff.up.weight, out.bias, ...): also used by
    python/tests to check plastic.torch's gradients against it. With
    `scripted` (the module reference/scripted.py), the field's tensor part is
    its TorchScript function."""
    nn = torch.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = L["LayerNorm"](DIN)
            self.Wb = nn.Parameter(L["glorot_uniform"](torch.empty(H, DIN)))
            self.Wk = nn.Parameter(L["glorot_uniform"](torch.empty(H, D, DIN)))
            self.Wv = nn.Parameter(L["glorot_uniform"](torch.empty(H, D, DIN)))
            self.Wq = nn.Parameter(L["glorot_uniform"](torch.empty(H, D, DIN)))
            self.ff = L["FFN"](H * D, d_ff)
            self.out = L["Linear"](H * D, classes)

        def field_params(self):
            return (self.ln.gain, self.ln.bias, self.Wb, self.Wk, self.Wv)

        def field(self, path, t, W):
            if tuned:
                x, dx = path.both(t)
            else:
                x, dx = path.evaluate(t), path.derivative(t)
            if scripted is not None:
                return scripted.delta_cde_field(x, dx, W, self.ln.gain, self.ln.bias, self.Wb, self.Wk,
                                                self.Wv, broadcast)
            n = x.shape[0]
            u = self.ln(x)
            beta = torch.sigmoid(u @ self.Wb.t())                                  # [B, heads]
            k = torch.softmax((dx @ self.Wk.reshape(H * D, DIN).t()).view(n, H, D), -1)
            v = (u @ self.Wv.reshape(H * D, DIN).t()).view(n, H, D)
            delta = torch.tanh(v - matvec(W, k))                                   # post-delta tanh
            return beta[:, :, None, None] * delta.unsqueeze(-1) * k.unsqueeze(-2)

        def logits(self, path, WT, T):
            n = WT.shape[0]
            q = torch.softmax((path.derivative(T) @ self.Wq.reshape(H * D, DIN).t()).view(n, H, D), -1)
            return self.out(self.ff(matvec(WT, q).reshape(n, H * D)))

    return Model()


def main():
    args = common.parse_args(NAME, extra=extra)
    torch = common.setup_environment(args)
    if torch is None:
        common.skipped(NAME, args)
    import paths
    import solvers
    L = common.make_layers(torch)
    H, D, DIN, B = args.heads, args.d_head, args.d_in, args.batch

    matvec = common.matvec_fn(torch, args, "broadcast")

    scripted = None
    if args.jit:
        import scripted
    model = make_model(torch, L, H, D, DIN, args.d_ff, args.classes, matvec, args.tuned, scripted,
                       common.matvec_choice(args, "broadcast") == "broadcast")

    # Synthetic "speech" batch: 20 smooth-ish MFCC-like channels plus time.
    g = torch.Generator().manual_seed(args.seed + 1)
    n = args.length
    times = torch.arange(n, dtype=torch.float64)
    feats = torch.cumsum(torch.randn(B, n, DIN - 1, generator=g, dtype=torch.float64), 1) / n ** 0.5
    values = torch.cat([times.expand(B, n).unsqueeze(-1) / (n - 1), feats], -1)
    labels = torch.randint(0, args.classes, (B,), generator=g)
    path = paths.NaturalCubic(torch, times.tolist(), values)   # coefficients once, outside the step
    T = float(n - 1)
    if args.solver == "rk4":
        solver = solvers.Solver("rk4", 0.0, T, step=1.0, rtol=1e-7, atol=1e-9, fused=args.tuned)
        info = {"length": n, "solver": "rk4 step 1", "solver_steps": len(solver.grid) - 1}
    else:
        solver = solvers.Solver("dopri5", 0.0, T, rtol=args.rtol, atol=args.atol, fused=args.tuned)
        info = {"length": n, "solver": f"dopri5 rtol {args.rtol:g} atol {args.atol:g}"}
    W0 = torch.zeros(B, H, D, D)

    def loss_fn():
        f = lambda t, W: model.field(path, t, W)  # noqa: E731
        if args.gradient == "adjoint":
            WT = solvers.odeint_adjoint(f, W0, solver, model.field_params())
        else:
            WT = solvers.odeint(f, W0, solver)
        if args.solver == "dopri5":  # accepted/rejected steps, read when the line is printed
            info["forward_steps"] = solver.stats
            if hasattr(solver, "stats_back"):  # the previous training step's backward solve
                info["backward_steps"] = solver.stats_back
        return torch.nn.functional.cross_entropy(model.logits(path, WT, T), labels)

    common.run_steps(torch, args, NAME, model, loss_fn, info)


if __name__ == "__main__":
    main()
