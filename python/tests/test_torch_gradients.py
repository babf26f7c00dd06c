"""plastic.torch's gradients equal the PyTorch reference's (bench/reference/
fwp_delta_cde.py, paper 000 Eqs. 24, 25, 32) on the same parameters and data:
the Delta CDE with small dims, f64, rk4 step 1 over a natural cubic spline.
The direct gradient (discretise-then-optimise, what torch's autograd through
the rk4 steps computes) agrees to rel 1e-10 through both the output VJP
(PlasticModule forward + torch's cross-entropy) and the model's own loss
(PlasticModule.loss); the continuous adjoint to its tolerance."""
import os
import sys

import numpy as np

try:
    import torch
except ImportError:
    print("skipped: python3-torch is not installed")
    sys.exit(77)

import plastic
import plastic.torch

SRC = os.environ["PLASTIC_SOURCE_DIR"]
sys.path.insert(0, os.path.join(SRC, "bench", "reference"))
import common  # noqa: E402
import paths  # noqa: E402
import solvers  # noqa: E402
from fwp_delta_cde import make_model  # noqa: E402

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
F = torch.nn.functional
H, D, DIN, FF, C, B, N = 2, 3, 4, 8, 3, 5, 9


def rel(a, b):
    return float((a - b).abs().max() / b.abs().max())


ref = make_model(torch, common.make_layers(torch), H, D, DIN, FF, C,
                 lambda A, v: torch.matmul(A, v.unsqueeze(-1)).squeeze(-1))
dims = dict(d_in=DIN, heads=H, d_head=D, d_ff=FF, classes=C)
model = plastic.compile(os.path.join(SRC, "examples", "fwp_delta_cde.ode"), set=dims,
                        dtype="float64", gradient="direct", threads=1)
module = plastic.torch.PlasticModule(model)
ref_params = dict(ref.named_parameters())
assert sorted(ref_params) == sorted(n for n, _ in module.named_parameters()), \
    (sorted(ref_params), [n for n, _ in module.named_parameters()])
with torch.no_grad():
    for name, p in module.named_parameters():
        p.copy_(ref_params[name])
# Zero-copy: the module's tensors are the model's buffer.
assert np.array_equal(model.parameters()["Wk"], ref_params["Wk"].detach().numpy())

g = torch.Generator().manual_seed(1)
times = torch.arange(N, dtype=torch.float64)
feats = torch.cumsum(torch.randn(B, N, DIN - 1, generator=g), 1) / N ** 0.5
values = torch.cat([times.expand(B, N).unsqueeze(-1) / (N - 1), feats], -1)
labels = torch.randint(0, C, (B,), generator=g)

path = paths.NaturalCubic(torch, times.tolist(), values)
T = float(N - 1)
solver = solvers.Solver("rk4", 0.0, T, step=1.0)
WT = solvers.odeint(lambda t, W: ref.field(path, t, W), torch.zeros(B, H, D, D), solver)
ref_logits = ref.logits(path, WT, T)
ref_loss = F.cross_entropy(ref_logits, labels)
ref_loss.backward()
ref_grad = {n: p.grad.detach().clone() for n, p in ref.named_parameters()}

# Forward: the compiled solve's outputs.
y = module(values, times)
assert y.shape == (B, 1, C), y.shape
err = rel(y[:, -1].detach(), ref_logits.detach())
print(f"outputs: rel {err:.2e}")
assert err < 1e-10

# Backward through torch's loss: the output VJP with the direct method.
loss = F.cross_entropy(y[:, -1], labels)
loss.backward()
worst = 0.0
for name, p in module.named_parameters():
    e = rel(p.grad, ref_grad[name])
    worst = max(worst, e)
    assert e < 1e-10, (name, e)
print(f"direct gradient via output VJP: worst rel {worst:.2e} over {len(ref_grad)} parameters")

# The model's own loss (cross_entropy in the .ode) and its gradient.
module.zero_grad()
own = module.loss(values, labels, times)
assert abs(float(own) - float(ref_loss)) < 1e-10 * abs(float(ref_loss)), (float(own), float(ref_loss))
own.backward()
worst = max(rel(p.grad, ref_grad[n]) for n, p in module.named_parameters())
print(f"direct gradient via the model's loss: worst rel {worst:.2e}")
assert worst < 1e-10

# The continuous adjoint (the .ode's own method) against the reference's
# adjoint (solvers.odeint_adjoint): both optimise-then-discretise, so they
# agree with each other, not with the direct gradient (at step 1 the two
# differ by the discretisation, ~3e-3 here).
ref.zero_grad()
WT = solvers.odeint_adjoint(lambda t, W: ref.field(path, t, W), torch.zeros(B, H, D, D), solver,
                            ref.field_params())
F.cross_entropy(ref.logits(path, WT, T), labels).backward()
ref_adjoint = {n: p.grad.detach().clone() for n, p in ref.named_parameters()}
model.gradient = "adjoint"
module.zero_grad()
F.cross_entropy(module(values, times)[:, -1], labels).backward()
worst = max(rel(p.grad, ref_adjoint[n]) for n, p in module.named_parameters())
print(f"adjoint gradient via output VJP vs the reference's adjoint: worst rel {worst:.2e}")
assert worst < 1e-10
print("ok")
