"""plastic.torch: a compiled Plastic model as a torch.nn.Module.

    import torch, plastic, plastic.torch
    module = plastic.torch.PlasticModule(plastic.compile("model.ode", dtype="float64"))
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)
    y = module(x)                       # [batch, rows, outputs], x [batch, time, channels]
    loss = torch.nn.functional.cross_entropy(y[:, -1], labels)
    opt.zero_grad(); loss.backward(); opt.step()

The module's parameters are torch tensors sharing the model's parameter
buffer (float64 or float32 as compiled), nested as the model names them
("ff.up.weight" is module.ff.up.weight), so an optimizer's in-place step
changes what the kernels compute. forward runs the compiled solve; its
backward is the compiled gradient method of the model (direct, checkpoint or
adjoint, as its `gradient` line says, or Model.gradient) applied to the
output cotangent torch gives it: a vector-Jacobian product of the outputs, so
any loss computed in torch works. The inputs x and t are data: no gradient
flows to them (their grad is None). module.loss(x, y) is the model's own
loss (its `loss` line) with its gradient, which skips torch for the loss.
"""
import numpy as np
import torch

from . import Error  # noqa: F401


def _numpy(a):
    if a is None:
        return None
    if isinstance(a, torch.Tensor):
        return a.detach().cpu().to(torch.float64).numpy()
    return np.asarray(a, dtype=np.float64)


class _Solve(torch.autograd.Function):
    @staticmethod
    def forward(ctx, module, x, t, static, *params):
        model = module.model
        xs, ts, ss = _numpy(x), _numpy(t), _numpy(static)
        ctx.module, ctx.inputs = module, (xs, ts, ss)
        y = model.predict(xs, ts, ss)
        return torch.from_numpy(y).to(params[0].dtype if params else torch.float64)

    @staticmethod
    def backward(ctx, y_bar):
        module = ctx.module
        xs, ts, ss = ctx.inputs
        flat = module.model.output_vjp(xs, ts, ss, y_bar.detach().to(torch.float64).numpy())
        return (None, None, None, None, *module._split(flat))


class _Loss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, module, batch, *params):
        loss, grads = module.model.loss_and_grad(batch)
        ctx.grads = [torch.from_numpy(np.asarray(grads[name])) for name in module._names]
        return torch.tensor(loss, dtype=params[0].dtype if params else torch.float64)

    @staticmethod
    def backward(ctx, g):
        return (None, None, *[g * x for x in ctx.grads])


class PlasticModule(torch.nn.Module):
    """A compiled model (plastic.compile or plastic.load) as an nn.Module."""

    def __init__(self, model, seed=0, initialise=True):
        super().__init__()
        self.model = model
        if initialise:
            model.init(seed)
        views = model.parameters()  # NumPy views of the model's buffer
        self._names = [name for name, _, _ in model.parameter_table]
        self._spans = [(offset, int(np.prod(shape, dtype=np.int64)))
                       for _, shape, offset in model.parameter_table]
        for name in self._names:
            owner = self
            *path, leaf = name.split(".")
            for part in path:
                if not hasattr(owner, part):
                    owner.add_module(part, torch.nn.Module())
                owner = getattr(owner, part)
            # torch.from_numpy shares the memory: the optimizer writes the model's buffer.
            owner.register_parameter(leaf, torch.nn.Parameter(torch.from_numpy(views[name])))
        self._views = views  # keep the buffer's owners alive with the module

    def _ordered(self):
        named = dict(self.named_parameters())
        return [named[name] for name in self._names]

    def _split(self, flat):
        # flat is in the buffer's layout: each parameter at its offset.
        return [torch.from_numpy(flat[at:at + n]).to(p.dtype).view(p.shape)
                for p, (at, n) in zip(self._ordered(), self._spans)]

    def forward(self, x, t=None, static=None):
        """Outputs [batch, rows, n_outputs] for x [batch, time, channels]."""
        return _Solve.apply(self, x, t, static, *self._ordered())

    def loss(self, x, y, t=None, static=None):
        """The model's own mean loss on (x, y), differentiable in the parameters."""
        batch = {"x": _numpy(x), "y": _numpy(y)}
        if t is not None:
            batch["t"] = _numpy(t)
        if static is not None:
            batch["static"] = _numpy(static)
        return _Loss.apply(self, batch, *self._ordered())
