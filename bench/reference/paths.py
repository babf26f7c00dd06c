# Control paths of the reference, with torchcde's semantics, written here
# because torchcde is not packaged for Debian:
#   * NaturalCubic: the natural cubic spline through the observations
#     (torchcde.natural_cubic_coeffs + CubicSpline): x(t) and dx/dt(t);
#   * Linear: piecewise-linear interpolation (torchcde.LinearInterpolation);
#   * logsig_windows: the neural RDE driver, the depth-2 log-signature (Lyndon
#     basis, signatory's "words" order) of each window of `step` samples of the
#     piecewise-linear path, divided by the window's length (paper 002 Eqs. 9-10).
# Coefficients and log-signatures are computed once per data set, outside the
# timed step, as torchcde users and Plastic's runtime both do; evaluating the
# path at the solver's stage times is part of the step.
#
# Interval lookup follows torchcde (and Plastic's default Side::left): a time
# on a knot belongs to the interval on its left; before the first knot the
# first interval extends.
import bisect


def locate(knots, t):
    """Index of the interval owning t among len(knots) - 1 intervals."""
    i = bisect.bisect_left(knots, t) - 1
    return min(max(i, 0), len(knots) - 2)


class NaturalCubic:
    """Natural cubic spline of values [B, n, c] at shared knots (n floats)."""

    def __init__(self, torch, knots, values):
        self.knots = [float(k) for k in knots]
        x = values.to(torch.float64)
        t = torch.tensor(self.knots, dtype=torch.float64)
        h = t[1:] - t[:-1]                                    # [n-1]
        n = len(self.knots)
        slope = (x[:, 1:] - x[:, :-1]) / h[None, :, None]     # [B, n-1, c]
        # Second derivatives M at the knots, M_0 = M_{n-1} = 0 (natural ends):
        # h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (slope_i - slope_{i-1}).
        M = torch.zeros_like(x)
        if n > 2:
            rhs = 6.0 * (slope[:, 1:] - slope[:, :-1])        # [B, n-2, c]
            diag = 2.0 * (h[:-1] + h[1:])
            off = h[1:-1]
            # Thomas algorithm, vectorised over batch and channels.
            cp = [None] * (n - 2)
            dp = [None] * (n - 2)
            cp[0] = (off[0] / diag[0]) if n > 3 else None
            dp[0] = rhs[:, 0] / diag[0]
            for i in range(1, n - 2):
                denom = diag[i] - off[i - 1] * cp[i - 1]
                if i < n - 3:
                    cp[i] = off[i] / denom
                dp[i] = (rhs[:, i] - off[i - 1] * dp[i - 1]) / denom
            sol = [None] * (n - 2)
            sol[-1] = dp[-1]
            for i in range(n - 4, -1, -1):
                sol[i] = dp[i] - cp[i] * sol[i + 1]
            M[:, 1:-1] = torch.stack(sol, dim=1)
        hh = h[None, :, None]
        a = x[:, :-1]
        b = slope - hh * (2.0 * M[:, :-1] + M[:, 1:]) / 6.0
        c = M[:, :-1] / 2.0
        d = (M[:, 1:] - M[:, :-1]) / (6.0 * hh)
        dt = torch.get_default_dtype()
        # Interval-major [n-1, B, c] so an evaluation slices one contiguous block.
        self.a, self.b, self.c, self.d = (v.transpose(0, 1).contiguous().to(dt) for v in (a, b, c, d))
        self.b2, self.d3 = 2.0 * self.c, 3.0 * self.d

    def evaluate(self, t):
        i = locate(self.knots, t)
        s = t - self.knots[i]
        return self.a[i] + s * (self.b[i] + s * (self.c[i] + s * self.d[i]))

    def derivative(self, t):
        i = locate(self.knots, t)
        s = t - self.knots[i]
        return self.b[i] + s * (self.b2[i] + s * self.d3[i])

    def both(self, t):
        """x(t) and dx/dt(t) sharing the lookup (the tuned variant)."""
        i = locate(self.knots, t)
        s = t - self.knots[i]
        a, b, c, d = self.a[i], self.b[i], self.c[i], self.d[i]
        return a + s * (b + s * (c + s * d)), b + s * (self.b2[i] + s * self.d3[i])


class Linear:
    """Piecewise-linear interpolation of values [B, n, c] at shared knots."""

    def __init__(self, torch, knots, values):
        self.knots = [float(k) for k in knots]
        v = values.transpose(0, 1).contiguous()               # [n, B, c]
        self.v = v
        h = torch.tensor([b - a for a, b in zip(self.knots[:-1], self.knots[1:])], dtype=v.dtype)
        self.slope = (v[1:] - v[:-1]) / h[:, None, None]

    def evaluate(self, t):
        i = locate(self.knots, t)
        return self.v[i] + (t - self.knots[i]) * self.slope[i]


def lyndon_pairs(d):
    """Lyndon words of length 2 over d letters, in signatory's order."""
    return [(i, j) for i in range(d) for j in range(i + 1, d)]


def logsig_windows(torch, values, step):
    """Depth-2 log-signatures of the windows of a piecewise-linear path.

    values: [B, n, d] samples at unit-spaced times 0..n-1. Window i covers
    samples i*step .. min((i+1)*step, n-1) (the last may be shorter; no sample
    is dropped, as Plastic's runtime/logsig/logsig_path.h). Returns
    (knots r_0..r_m, drivers [m, B, d + d(d-1)/2]) with driver_i =
    LogSig_i / (r_{i+1} - r_i): level 1 the increment, level 2 the Lévy areas
    A_jk = ½ Σ_{p<q} (δ_p,j δ_q,k − δ_p,k δ_q,j) for j < k."""
    x = values.to(torch.float64)
    B, n, d = x.shape
    bounds = list(range(0, n - 1, step)) + [n - 1]
    pairs = lyndon_pairs(d)
    J = torch.tensor([p[0] for p in pairs])
    K = torch.tensor([p[1] for p in pairs])
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        w = x[:, lo:hi + 1]
        delta = w[:, 1:] - w[:, :-1]                          # [B, s, d]
        pos = w[:, :-1] - w[:, :1]                            # path before each segment, from the window start
        # ½ Σ_q (pos_q ⊗ δ_q − δ_q ⊗ pos_q): Chen's identity for linear pieces.
        area = 0.5 * (pos[:, :, J] * delta[:, :, K] - delta[:, :, J] * pos[:, :, K]).sum(1)
        level1 = w[:, -1] - w[:, 0]
        out.append(torch.cat([level1, area], dim=-1) / float(hi - lo))
    return [float(b) for b in bounds], torch.stack(out).to(torch.get_default_dtype())
