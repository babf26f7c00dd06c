"""Series prepared once give bitwise the numbers of series prepared at every
call, and the forward pass kept for backward gives bitwise those of a
prediction followed by the output VJP:

  * PlasticModule.loss and forward + backward on a PreparedBatch, on tensors
    the module prepared (and cached) and with the cache off are bitwise equal;
  * module(x) equals Model.predict and its backward Model.output_vjp (which
    solve again), for the direct method (tape kept) and checkpoint (not kept);
  * batch[indices] equals preparing x[indices] directly;
  * a cached batch follows the tensor: an in-place change (torch's version
    counter) prepares it again, and the outputs are those of the new values;
  * a batch of another model, or one made before load_parameters(), is
    refused (the module's cache prepares anew)."""
import os
import sys
import tempfile

import numpy as np

try:
    import torch
except ImportError:
    print("skipped: python3-torch is not installed")
    sys.exit(77)

import plastic
import plastic.torch

SRC = os.environ["PLASTIC_SOURCE_DIR"]
torch.set_default_dtype(torch.float64)
F = torch.nn.functional
H, D, DIN, FF, C, B, N = 2, 3, 4, 8, 3, 11, 9
dims = dict(d_in=DIN, heads=H, d_head=D, d_ff=FF, classes=C)
path = os.path.join(SRC, "examples", "fwp_delta_cde.ode")


def make(cache=16, gradient="direct"):
    model = plastic.compile(path, set=dims, dtype="float64", gradient=gradient, threads=2)
    return plastic.torch.PlasticModule(model, seed=3, cache_batches=cache)


g = torch.Generator().manual_seed(1)
times = torch.arange(N, dtype=torch.float64)
feats = torch.cumsum(torch.randn(B, N, DIN - 1, generator=g), 1) / N ** 0.5
values = torch.cat([times.expand(B, N).unsqueeze(-1) / (N - 1), feats], -1)
labels = torch.randint(0, C, (B,), generator=g)


def grads(module):
    return [p.grad.detach().clone() for p in module._ordered()]


def own_loss(module, *args, **kw):
    module.zero_grad()
    loss = module.loss(*args, **kw)
    loss.backward()
    return float(loss), grads(module)


def torch_loss(module, *args, **kw):
    module.zero_grad()
    y = module(*args, **kw)
    loss = F.cross_entropy(y[:, -1], labels)
    loss.backward()
    return y.detach().clone(), float(loss), grads(module)


def same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b)) and len(a) == len(b)


uncached, cached = make(cache=0), make()
prepared = cached.prepare(values, y=labels, t=times)
assert len(prepared) == B and prepared.labelled and prepared.current

# The model's own loss: prepared, cached tensors, prepared at every call.
ref_loss, ref_grads = own_loss(uncached, values, labels, times)
for name, args in [("PreparedBatch", (prepared,)), ("cached tensors", (values, labels, times)),
                   ("cached tensors again", (values, labels, times))]:
    loss, gs = own_loss(cached, *args)
    assert loss == ref_loss and same(gs, ref_grads), name
assert len(cached._cache) == 1  # the second call found the first call's batch
print(f"own loss bitwise equal on prepared, cached and unprepared series ({ref_loss:.6f})")

# Forward + backward through torch's loss.
y_ref, l_ref, g_ref = torch_loss(uncached, values, times)
for name, args in [("PreparedBatch", (prepared,)), ("cached tensors", (values, times)),
                   ("cached tensors again", (values, times))]:
    y, loss, gs = torch_loss(cached, *args)
    assert torch.equal(y, y_ref) and loss == l_ref and same(gs, g_ref), name
print("forward + backward bitwise equal on prepared, cached and unprepared series")

# The kept forward pass against predict + output_vjp (which solve again), both methods.
for gradient in ("direct", "checkpoint"):
    module = make(gradient=gradient)
    model = module.model
    y = module(values, times)
    x_np, t_np = values.numpy(), times.numpy()
    assert np.array_equal(y.detach().numpy(), model.predict(x_np, t_np)), gradient
    y_bar = torch.randn(y.shape, generator=g)
    module.zero_grad()
    y.backward(y_bar, retain_graph=True)
    flat = model.output_vjp(x_np, t_np, None, y_bar.numpy())
    got = torch.cat([p.grad.reshape(-1) for p in module._ordered()])
    want = torch.cat([t.reshape(-1) for t in module._split(flat)])
    assert torch.equal(got, want), gradient
    # A second backward (the tape is spent: it solves again) adds the same again.
    y.backward(y_bar)
    again = torch.cat([p.grad.reshape(-1) for p in module._ordered()])
    assert torch.equal(again, got + want), gradient
    # Model.forward directly.
    fwd = model.forward(model.prepare(x_np, t_np))
    assert np.array_equal(fwd.outputs, y.detach().numpy())
    assert np.array_equal(fwd.vjp(y_bar.numpy()), flat)
print("kept forward pass = predict + output_vjp, bitwise (direct and checkpoint)")

# A minibatch of a prepared set equals the minibatch prepared on its own.
idx = torch.tensor([7, 2, 2, 10, 0])
sub_loss, sub_grads = own_loss(uncached, values[idx], labels[idx], times)
loss, gs = own_loss(cached, prepared[idx])
assert loss == sub_loss and same(gs, sub_grads)
assert len(prepared[2:9:3]) == 3 and len(prepared[[-1]]) == 1
print("batch[indices] = the minibatch prepared on its own")

# In-place changes prepare again; the outputs follow the new values.
x = values.clone()
before = cached(x, times).detach().clone()
with torch.no_grad():
    x[0, 3, 1] += 0.5
after = cached(x, times).detach()
assert not torch.equal(after[0], before[0])
assert torch.equal(after, torch.from_numpy(uncached.model.predict(x.numpy(), times.numpy())))
x.mul_(1.5)
assert torch.equal(cached(x, times).detach(),
                   torch.from_numpy(uncached.model.predict(x.numpy(), times.numpy())))
print("an in-place change of the input prepares it again")

# Freed tensors leave the cache.
n = len(cached._cache)
tmp = values.clone()
cached(tmp, times)
assert len(cached._cache) == n + 1
del tmp
assert len(cached._cache) == n

# A batch belongs to its model and to its data record.
try:
    uncached.model.predict(prepared)
except plastic.Error as e:
    assert "another model" in str(e), str(e)
else:
    raise AssertionError("a batch of another model was accepted")
with tempfile.TemporaryDirectory() as d:
    saved = os.path.join(d, "p.safetensors")
    cached.model.save_parameters(saved)
    cached.model.load_parameters(saved)
assert not prepared.current
try:
    cached.model.predict(prepared)
except plastic.Error as e:
    assert "prepare it again" in str(e), str(e)
else:
    raise AssertionError("a batch made before load_parameters was accepted")
loss, gs = own_loss(cached, values, labels, times)  # the cache prepares anew
assert loss == ref_loss and same(gs, ref_grads)
print("ok")
