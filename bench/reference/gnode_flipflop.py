#!/usr/bin/env python3
# PyTorch reference of examples/gnode_flipflop.ode: the gated neural ODE
# (paper 003 Eq. 1) with N = 100 on the 3-bit flip-flop task: 100 bins of
# 10 ms (knots 0, 0.01, ..., 0.99), forward Euler with dt = 0.01 (99 steps),
# a per-observation readout out(h) at all 100 bins, MSE, gradient direct (the
# .ode's; the continuous adjoint would need the per-observation loss as jumps
# of the adjoint, which the .ode does not ask for). One JSON line on stdout.
#
#   h(t0) = h0(x(t0));  hx = concat(h, x(t))
#   tau h' = sigmoid(Wz hx + bz) * (F(hx) - h),  tau = 0.01
#   F = mlp[103, 100, width 100, depth 3, relu, final none, init glorot_uniform]
#
# x is the piecewise-linear path of the pulse channels; Euler only evaluates
# it at the knots, where it equals the observations.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

NAME = "gnode_flipflop"


def extra(p):
    p.add_argument("--length", type=int, default=100, help="bins per trial")
    p.add_argument("--n", type=int, default=100, help="N, the hidden size")
    p.add_argument("--width", type=int, default=100, help="H, F's hidden width")


def flipflop(torch, g, B, n, bits=3):
    """3-bit flip-flop trials (paper 003 App. F.2): 2-bin pulses at random
    times in one channel, amplitude U[-1, 1]; the target holds each channel's
    last pulse value."""
    x = torch.zeros(B, n, bits)
    y = torch.zeros(B, n, bits)
    starts = torch.rand(B, n, bits, generator=g) < 0.05
    amp = torch.rand(B, n, bits, generator=g) * 2 - 1
    held = torch.zeros(B, bits)
    for i in range(n):
        s = starts[:, i]
        x[:, i] = torch.where(s, amp[:, i], x[:, i])
        if i + 1 < n:
            x[:, i + 1] = torch.where(s, amp[:, i], x[:, i + 1])
        held = torch.where(s, amp[:, i], held)
        y[:, i] = held
    return x, y


def main():
    args = common.parse_args(NAME, gradients=("direct",), extra=extra)
    torch = common.setup_environment(args)
    if torch is None:
        common.skipped(NAME, args)
    import paths
    import solvers
    L = common.make_layers(torch)
    nn = torch.nn
    N, B, BITS, TAU = args.n, args.batch, 3, 0.01

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.F = L["MLP"](N + BITS, N, args.width, 3, "relu", "none", "glorot_uniform")
            self.Wz = nn.Parameter(L["glorot_uniform"](torch.empty(N, N + BITS)))
            self.bz = nn.Parameter(torch.zeros(N))
            self.h0 = L["Linear"](BITS, N)
            self.out = L["Linear"](N, BITS)

        def field(self, path, t, h):
            hx = torch.cat([h, path.evaluate(t)], -1)
            gate = torch.sigmoid(torch.nn.functional.linear(hx, self.Wz, self.bz))
            return gate * (self.F(hx) - h) / TAU

    model = Model()
    if args.jit:  # the same field through TorchScript (reference/scripted.py)
        import scripted
        weights, biases, acts = scripted.layer_lists([model.F])
        model.field = lambda path, t, h: scripted.gnode_field(  # noqa: E731
            h, path.evaluate(t), model.Wz, model.bz, weights, biases, acts, TAU)
    g = torch.Generator().manual_seed(args.seed + 1)
    n = args.length
    x, y = flipflop(torch, g, B, n, BITS)
    knots = [k * 0.01 for k in range(n)]
    path = paths.Linear(torch, knots, x)
    solver = solvers.Solver("euler", knots[0], knots[-1], step=0.01, fused=args.tuned)
    # The solver grid is the observation grid, so every grid state is an output.
    assert len(solver.grid) == n and max(abs(a - b) for a, b in zip(solver.grid, knots)) < 1e-12

    def loss_fn():
        h0 = model.h0(x[:, 0])
        hs = solvers.odeint_all(lambda t, h: model.field(path, t, h), h0, solver)
        pred = model.out(torch.stack(hs, 1))                                     # [B, n, 3]
        return torch.nn.functional.mse_loss(pred, y)

    common.run_steps(torch, args, NAME, model, loss_fn,
                     {"length": n, "N": N, "solver": "euler step 0.01", "solver_steps": len(solver.grid) - 1})


if __name__ == "__main__":
    main()
