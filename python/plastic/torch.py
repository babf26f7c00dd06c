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
any loss computed in torch works. With the direct method the forward pass
keeps the solver's tape for the backward, so forward + backward solve
forward once (memory: the whole batch's tapes until backward, up to half the
memory available; tiles past that are solved again in backward). The inputs x
and t are data: no gradient flows to them (their grad is None).
module.loss(x, y) is the model's own loss (its `loss` line) with its
gradient, which skips torch for the loss.

Prepared data. Every call first prepares its series (control paths such as
spline coefficients, observation schedules, targets), which `plastic train`
does once for all epochs. Two ways to do it once here:

  * module.prepare(x, y=None, t=None, static=None) returns a
    plastic.PreparedBatch that module(...) and module.loss(...) take in place
    of x; batch[indices] selects a minibatch sharing the prepared data. Prepare
    the whole training set once and iterate over index minibatches:

        data = module.prepare(X, y=Y, t=t)
        for epoch in range(epochs):
            for idx in torch.randperm(len(data)).split(32):
                loss = module.loss(data[idx])
                opt.zero_grad(); loss.backward(); opt.step()

    or with a DataLoader over the indices:
    DataLoader(range(len(data)), batch_size=32, shuffle=True, collate_fn=lambda i: data[i]).

  * Tensors passed again are prepared once: the module keeps the prepared
    series of up to `cache_batches` inputs (default 16) while the tensors
    live, keyed on their identity and torch's version counter, so a batch
    reused across steps or epochs (pre-made minibatches, full-batch training)
    is not prepared again, and an in-place change (x.mul_(2), x[0] = 1)
    prepares it anew. Writes that bypass torch's version counter (through a
    NumPy view of the tensor, or x.data) are not seen: prepare explicitly
    if you mutate data that way. NumPy arrays are prepared at every call.
"""
import collections
import weakref

import numpy as np
import torch

from . import Error, PreparedBatch


def _numpy(a):
    if a is None:
        return None
    if isinstance(a, torch.Tensor):
        return a.detach().cpu().to(torch.float64).numpy()
    return np.asarray(a, dtype=np.float64)


def _identity(a):
    """What identifies a tensor's current contents (None: not cacheable)."""
    if a is None:
        return ()
    if not isinstance(a, torch.Tensor):
        return None
    return (id(a), a._version, a.data_ptr(), tuple(a.shape), a.stride(), a.dtype, a.device)


class _Solve(torch.autograd.Function):
    @staticmethod
    def forward(ctx, module, batch, *params):
        ctx.module = module
        ctx.pass_ = module.model.forward(batch)  # keeps the tape for backward (direct)
        # Saved so that torch refuses a backward after an in-place change of
        # the parameters: the kept tape was computed with these values.
        ctx.save_for_backward(*params)
        y = torch.from_numpy(ctx.pass_.outputs)
        return y.to(params[0].dtype) if params else y

    @staticmethod
    def backward(ctx, y_bar):
        ctx.saved_tensors  # noqa: B018 - torch's check of the parameters' versions
        flat = ctx.pass_.vjp(y_bar.detach().to(torch.float64).contiguous().numpy())
        return (None, None, *ctx.module._split(flat))


class _Loss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, module, batch, *params):
        loss, grads = module.model.loss_and_grad(batch)
        ctx.grads = [torch.from_numpy(np.asarray(grads[name])) for name in module._names]
        return torch.tensor(loss, dtype=params[0].dtype if params else torch.float64)

    @staticmethod
    def backward(ctx, g):
        return (None, None, *[g * x for x in ctx.grads])


# id(model) -> a weak reference to the PlasticModule that owns its buffer.
_owners = {}


def _owner_of(model):
    ref = _owners.get(id(model))
    owner = ref() if ref is not None else None
    return owner if owner is not None and owner.model is model else None


class PlasticModule(torch.nn.Module):
    """A compiled model (plastic.compile or plastic.load) as an nn.Module.
    `cache_batches`: how many input tensors' prepared series to keep (0: none).

    The parameters are the compiled model's own buffer, in the element type
    it was compiled for: .float(), .double(), .half() and .to(...) that would
    copy them (another dtype or device) raise plastic.Error instead of
    leaving the module training copies the kernels never read — compile the
    model for the other dtype. One module per compiled model: a second one
    would share (and re-initialise) the first's buffer."""

    def __init__(self, model, seed=0, initialise=True, cache_batches=16):
        super().__init__()
        if _owner_of(model) is not None:
            raise Error("this compiled model already backs a PlasticModule, whose parameters are "
                        "its buffer; compile it again (plastic.compile) for a second module")
        self.model = model
        self.cache_batches = cache_batches
        self._cache = collections.OrderedDict()  # identities -> (weakrefs, PreparedBatch)
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
        _owners[id(model)] = weakref.ref(self, lambda _, k=id(model): _owners.pop(k, None))

    def _apply(self, fn, *args, **kwargs):
        # torch's .to(), .float(), .double(), .cuda() ... all come here. A
        # conversion that keeps every parameter where it is (the same dtype
        # and device) is harmless; one that copies them would disconnect the
        # parameters from the kernels' buffer.
        for name, p in self.named_parameters():
            moved = fn(p.data)
            if moved.data_ptr() != p.data_ptr() or moved.dtype != p.dtype:
                raise Error(f"PlasticModule's parameters are the compiled model's {p.dtype} buffer "
                            f"on the CPU, and {name} would be copied to {moved.dtype} on "
                            f"{moved.device}; compile the model with dtype="
                            f"\"{'float64' if moved.dtype == torch.float64 else 'float32'}\" instead")
        return self

    def __repr__(self):
        m = self.model
        shapes = ", ".join(f"{name}: {list(shape)}" for name, shape, _ in m.parameter_table)
        gradient = m.gradient or "as the model says"
        return (f"PlasticModule({m.name}, dtype={m.dtype}, lanes={m.lanes}, dims={m.dims}, "
                f"gradient={gradient}, parameters={{{shapes}}})")

    def __reduce_ex__(self, protocol):
        raise Error("a PlasticModule holds machine code and cannot be pickled or deep-copied; "
                    "save its parameters (module.state_dict(), or `plastic train` run folders) and "
                    "compile the model again to restore it")

    def __deepcopy__(self, memo):
        return self.__reduce_ex__(None)

    def _check_finite(self, params):
        # A NumPy view or x.data write bypasses torch; the kernels would then
        # run on NaN and predict something finite-looking from it.
        for name, p in zip(self._names, params):
            if not bool(torch.isfinite(p).all()):
                raise Error(f"parameter {name} holds NaN or inf (changed through a view of the "
                            f"model's buffer?); the model refuses to run on it")

    def _ordered(self):
        named = dict(self.named_parameters())
        return [named[name] for name in self._names]

    def _split(self, flat):
        # flat is in the buffer's layout: each parameter at its offset.
        return [torch.from_numpy(flat[at:at + n]).to(p.dtype).view(p.shape)
                for p, (at, n) in zip(self._ordered(), self._spans)]

    def prepare(self, x, y=None, t=None, static=None):
        """x (and labels or targets y, times t, static features) prepared once:
        a plastic.PreparedBatch for forward and loss; batch[indices] selects."""
        return self.model.prepare(_numpy(x), _numpy(t), _numpy(static), _numpy(y))

    def _prepared(self, x, y, t, static):
        if isinstance(x, PreparedBatch):
            if t is not None or static is not None or y is not None:
                raise Error("t, static and y are given to prepare(), not with a PreparedBatch")
            return x
        given = (x, y, t, static)
        key = tuple(_identity(a) for a in given)
        if self.cache_batches <= 0 or any(k is None for k in key):
            return self.prepare(x, y, t, static)
        hit = self._cache.get(key)
        if hit is not None:
            _, batch = hit
            if batch.current:
                self._cache.move_to_end(key)
                return batch
            del self._cache[key]
        batch = self.prepare(x, y, t, static)
        cache = self._cache
        # The entry goes when any of its tensors does, so a live key's ids are
        # those of live tensors (an id is reused only after its object dies).
        refs = tuple(None if a is None else weakref.ref(a, lambda _, k=key, c=cache: c.pop(k, None))
                     for a in given)
        cache[key] = (refs, batch)
        while len(cache) > self.cache_batches:
            cache.popitem(last=False)
        return batch

    def forward(self, x, t=None, static=None):
        """Outputs [batch, rows, n_outputs] for x [batch, time, channels] or a PreparedBatch."""
        batch = self._prepared(x, None, t, static)
        params = self._ordered()
        self._check_finite(params)
        if not torch.is_grad_enabled() or not any(p.requires_grad for p in params):
            y = torch.from_numpy(self.model.predict(batch))  # no tape to keep
            return y.to(params[0].dtype) if params else y
        return _Solve.apply(self, batch, *params)

    def loss(self, x, y=None, t=None, static=None):
        """The model's own mean loss on (x, y), or on a labelled PreparedBatch x,
        differentiable in the parameters."""
        if not isinstance(x, PreparedBatch) and y is None:
            raise Error("loss(x, y): the labels or targets y are missing")
        params = self._ordered()
        self._check_finite(params)
        return _Loss.apply(self, self._prepared(x, y, t, static), *params)
