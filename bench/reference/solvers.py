# ODE solvers and gradient methods of the PyTorch reference, following
# torchdiffeq's semantics (torchdiffeq is not packaged for Debian, so the
# reference carries its own):
#   * fixed-grid explicit Runge-Kutta (euler, midpoint, rk4 = classic Kutta,
#     rk4_38 = the 3/8 rule that torchdiffeq calls "rk4"; Plastic's `rk4` is the
#     classic one, and both cost four field evaluations per step). The grid is
#     torchdiffeq's _grid_constructor_from_step_size: t0, t0 + h, ..., with the
#     last point moved onto t1;
#   * dopri5 (Dormand-Prince 5(4), FSAL) with torchdiffeq's step-size
#     controller (safety 0.9, factors in [0.2, 10], RMS error norm scaled by
#     atol + rtol * max(|y0|, |y1|)); step control is not differentiated;
#   * gradient "direct": autograd through every solver operation;
#   * gradient "adjoint": torchdiffeq's odeint_adjoint — a torch.autograd.Function
#     whose forward solves without a graph and whose backward integrates the
#     augmented system [z, a, dL/dθ] from T back to t0 with the same solver,
#     vector-Jacobian products by torch.autograd.grad at every stage. Fixed-step
#     solvers step back over the forward grid reversed (torchdiffeq rebuilds a
#     grid from T, which can straddle the knots of a piecewise driver; the cost
#     is the same); dopri5 steps back adaptively with the adjoint's rtol/atol and
#     the mixed (max over components of RMS) norm.
# States are tuples of tensors so the adjoint's augmented state uses the same
# steppers. `fused=True` (the tuned variant) forms stage values with
# torch.add(..., alpha=) instead of separate scalar multiplies and adds.
import math

import torch

TABLEAUS = {
    "euler": ([[]], [1.0], [0.0]),
    "midpoint": ([[], [0.5]], [0.0, 1.0], [0.0, 0.5]),
    "rk4": ([[], [0.5], [0.0, 0.5], [0.0, 0.0, 1.0]], [1 / 6, 1 / 3, 1 / 3, 1 / 6], [0.0, 0.5, 0.5, 1.0]),
    "rk4_38": ([[], [1 / 3], [-1 / 3, 1.0], [1.0, -1.0, 1.0]], [1 / 8, 3 / 8, 3 / 8, 1 / 8], [0.0, 1 / 3, 2 / 3, 1.0]),
}

# Dormand & Prince (1980): 7 stages, FSAL, 5th-order solution, 4th-order error estimate.
DOPRI5_A = [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
DOPRI5_C = [0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0]
DOPRI5_B = [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0]
DOPRI5_E = [35 / 384 - 5179 / 57600, 0.0, 500 / 1113 - 7571 / 16695, 125 / 192 - 393 / 640,
            -2187 / 6784 + 92097 / 339200, 11 / 84 - 187 / 2100, -1 / 40]


def fixed_grid(t0, t1, step):
    """torchdiffeq's grid: t0 + k*step, last point set to t1 (handles t1 < t0)."""
    span = t1 - t0
    n = max(1, math.ceil(abs(span) / step - 1e-9))
    sgn = 1.0 if span >= 0 else -1.0
    grid = [t0 + sgn * k * step for k in range(n + 1)]
    grid[-1] = t1
    return grid


def _combine(y, terms, h, fused):
    """y + h * Σ coef * k over tuple states, skipping zero coefficients."""
    out = []
    for idx, yi in enumerate(y):
        acc = yi
        if fused:
            first = True
            for coef, k in terms:
                if coef != 0.0:
                    acc = torch.add(acc, k[idx], alpha=h * coef) if first else acc.add_(k[idx], alpha=h * coef)
                    first = False
        else:
            s = None
            for coef, k in terms:
                if coef != 0.0:
                    s = coef * k[idx] if s is None else s + coef * k[idx]
            if s is not None:
                acc = yi + h * s
        out.append(acc)
    return tuple(out)


def rk_step(f, t, h, y, method, fused=False):
    a, b, c = TABLEAUS[method]
    ks = []
    for i in range(len(b)):
        yi = y if i == 0 else _combine(y, list(zip(a[i], ks)), h, fused)
        ks.append(f(t + c[i] * h, yi))
    return _combine(y, list(zip(b, ks)), h, fused)


def solve_fixed(f, y, grid, method, fused=False, keep_all=False):
    """Steps over grid; returns the final state, or every grid state if keep_all."""
    states = [y] if keep_all else None
    for t0, t1 in zip(grid[:-1], grid[1:]):
        y = rk_step(f, t0, t1 - t0, y, method, fused)
        if keep_all:
            states.append(y)
    return states if keep_all else y


def _rms_norm(y):
    # Mixed norm: max over the tuple's components of each component's RMS.
    return max(float(torch.sqrt(torch.mean(yi * yi))) for yi in y)


def _initial_step(f, t0, y0, f0, rtol, atol, direction):
    # Hairer, Nørsett & Wanner II.4 "starting step size", as torchdiffeq.
    with torch.no_grad():
        scale = tuple(atol + rtol * yi.abs() for yi in y0)
        d0 = _rms_norm(tuple(yi / s for yi, s in zip(y0, scale)))
        d1 = _rms_norm(tuple(fi / s for fi, s in zip(f0, scale)))
        h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        y1 = tuple(yi + direction * h0 * fi for yi, fi in zip(y0, f0))
        f1 = f(t0 + direction * h0, y1)
        d2 = _rms_norm(tuple((a - b) / s for a, b, s in zip(f1, f0, scale))) / h0
        h1 = max(1e-6, h0 * 1e-3) if d1 <= 1e-15 and d2 <= 1e-15 else (0.01 / max(d1, d2)) ** (1 / 5)
        return min(100 * h0, h1)


def solve_dopri5(f, y, t0, t1, rtol, atol, fused=False, max_steps=100000):
    """Adaptive Dormand-Prince from t0 to t1 (either direction); returns (y, stats)."""
    direction = 1.0 if t1 >= t0 else -1.0
    t = t0
    k0 = f(t, y)
    h = _initial_step(f, t0, y, k0, rtol, atol, direction)
    accepted = rejected = 0
    while direction * (t1 - t) > 1e-12 * max(1.0, abs(t1)):
        if accepted + rejected >= max_steps:
            raise RuntimeError(f"dopri5: more than {max_steps} steps")
        h = min(h, abs(t1 - t))
        hs = direction * h
        ks = [k0]
        for i in range(1, 7):
            yi = _combine(y, list(zip(DOPRI5_A[i], ks)), hs, fused)
            ks.append(f(t + DOPRI5_C[i] * hs, yi))
        y_new = yi  # the 7th stage's input is the 5th-order solution (FSAL)
        with torch.no_grad():
            err = _combine(tuple(torch.zeros_like(v) for v in y), list(zip(DOPRI5_E, ks)), hs, False)
            scaled = tuple(e / (atol + rtol * torch.maximum(a.abs(), b.abs())) for e, a, b in zip(err, y, y_new))
            ratio = _rms_norm(scaled)
        if ratio <= 1.0:
            t, y, k0 = t + hs, y_new, ks[6]
            accepted += 1
        else:
            rejected += 1
        factor = 10.0 if ratio == 0 else min(10.0, max(0.2, 0.9 * ratio ** (-1 / 5)))
        if ratio <= 1.0:
            factor = max(1.0, factor)
        h = h * factor
    return y, {"accepted": accepted, "rejected": rejected}


class Solver:
    """One integrator configuration: method, grid or tolerances, fusion flag."""

    def __init__(self, method, t0, t1, step=None, rtol=1e-7, atol=1e-9, fused=False,
                 adjoint_rtol=None, adjoint_atol=None):
        self.method, self.t0, self.t1, self.fused = method, t0, t1, fused
        self.rtol, self.atol = rtol, atol
        self.adjoint_rtol = rtol if adjoint_rtol is None else adjoint_rtol
        self.adjoint_atol = atol if adjoint_atol is None else adjoint_atol
        self.grid = fixed_grid(t0, t1, step) if method != "dopri5" else None
        self.stats = {}

    def forward(self, f, y, keep_all=False):
        if self.method == "dopri5":
            y, self.stats = solve_dopri5(f, y, self.t0, self.t1, self.rtol, self.atol, self.fused)
            return y
        return solve_fixed(f, y, self.grid, self.method, self.fused, keep_all)

    def backward(self, f, y):
        if self.method == "dopri5":
            y, self.stats_back = solve_dopri5(f, y, self.t1, self.t0, self.adjoint_rtol, self.adjoint_atol, self.fused)
            return y
        return solve_fixed(f, y, self.grid[::-1], self.method, self.fused)


def odeint(field, y0, solver):
    """Direct gradient: autograd records every solver operation."""
    return solver.forward(lambda t, y: (field(t, y[0]),), (y0,))[0]


def odeint_all(field, y0, solver):
    """Direct gradient, returning the state at every grid point (per-observation outputs)."""
    return [s[0] for s in solver.forward(lambda t, y: (field(t, y[0]),), (y0,), keep_all=True)]


class _Adjoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, field, solver, y0, *params):
        with torch.no_grad():
            yT = solver.forward(lambda t, y: (field(t, y[0]),), (y0,))[0]
        ctx.field, ctx.solver, ctx.params = field, solver, params
        ctx.save_for_backward(yT)
        return yT

    @staticmethod
    def backward(ctx, grad_yT):
        (yT,) = ctx.saved_tensors
        field, params = ctx.field, ctx.params

        def augmented(t, state):
            # d/dt [z, a, g] = [f, -a^T df/dz, -a^T df/dθ] (torchdiffeq's augmented_dynamics).
            a = state[1]
            with torch.enable_grad():
                y = state[0].detach().requires_grad_(True)
                fy = field(t, y)
                vjp = torch.autograd.grad(fy, (y,) + params, -a, allow_unused=True)
            vjp_params = tuple(torch.zeros_like(p) if g is None else g for g, p in zip(vjp[1:], params))
            return (fy.detach(), vjp[0]) + vjp_params

        state = (yT, grad_yT) + tuple(torch.zeros_like(p) for p in params)
        with torch.no_grad():
            state = ctx.solver.backward(augmented, state)
        return (None, None, state[1]) + tuple(state[2:])


def odeint_adjoint(field, y0, solver, params):
    """Continuous adjoint gradient; `params` are every tensor the field reads
    that needs a gradient (torchdiffeq's adjoint_params)."""
    return _Adjoint.apply(field, solver, y0, *params)
