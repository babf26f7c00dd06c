"""A PyTorch training loop with PlasticModule reduces the loss on the
flip-flop task (paper 003 App. F.1: pulses of +-1 on 3 channels; each
output holds the sign of its channel's last pulse): the gated neural ODE of
examples/gnode_flipflop.ode (Eq. 1) with small dims, f32, Adam, the MSE in
torch, every observation read out."""
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
rng = np.random.default_rng(0)
B, T, BITS = 16, 30, 3
pulses = rng.choice([-1.0, 0.0, 1.0], size=(B, T, BITS), p=[0.08, 0.84, 0.08])
targets = np.zeros_like(pulses)
state = np.zeros((B, BITS))
for k in range(T):
    state = np.where(pulses[:, k] != 0, pulses[:, k], state)
    targets[:, k] = state
times = np.arange(T) * 0.1  # 10 euler steps of 0.01 between observations

model = plastic.compile(os.path.join(SRC, "examples", "gnode_flipflop.ode"),
                        set={"N": 8, "H": 16}, dtype="float32", threads=1)
module = plastic.torch.PlasticModule(model, seed=3)
assert all(p.dtype == torch.float32 for p in module.parameters())
opt = torch.optim.Adam(module.parameters(), lr=2e-2)
x, y, t = torch.from_numpy(pulses), torch.from_numpy(targets).float(), torch.from_numpy(times)
losses = []
for step in range(150):
    opt.zero_grad()
    pred = module(x, t)
    assert pred.shape == (B, T, BITS), pred.shape
    loss = torch.nn.functional.mse_loss(pred, y)
    loss.backward()
    opt.step()
    losses.append(float(loss))
print("loss:", " ".join(f"{v:.4f}" for v in losses[::15]), f"... {losses[-1]:.4f}")
assert np.isfinite(losses).all()
# The bar: the best constant prediction (each channel's mean target) leaves
# an MSE of about 0.84 on these trials; the trained model must explain at
# least half of it over its last 10 steps (measured: about 0.23 of it).
best_constant = float(((y - y.mean(dim=(0, 1))) ** 2).mean())
final = float(np.mean(losses[-10:]))
print(f"best constant MSE {best_constant:.4f}, mean of the last 10 steps {final:.4f}")
assert final < 0.5 * best_constant, (best_constant, final)
print("ok")
