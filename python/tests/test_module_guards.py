"""The Python door guards what the command line guards, and a PlasticModule
behaves as a PyTorch user expects:

  * .float(), .double() and .to() that would copy the parameters out of the
    model's buffer raise (a no-op conversion is allowed); pickling and
    deepcopy raise a clear error; repr names the parameters' shapes;
  * a second PlasticModule on one compiled model is refused (it would
    re-initialise the first's parameters);
  * parameters made NaN through a NumPy view are refused at the next use;
  * labels must be integer class indices; a series with no observed value is
    refused; a boolean mask selects from a PreparedBatch where it is true;
  * NaN-padded series with the default t are read at their own length, as
    the command line reads them (padding changes nothing);
  * regression targets y are checked in full against the model's shape;
  * a dim far too large is refused with its sizes, not MemoryError;
  * plastic.__version__ is the command line's version;
  * the interpreter exits cleanly while a model it never deleted still
    compiles the kernels a training step does not call (the module's exit
    hook waits for them; without it every such exit crashed)."""
import copy
import os
import pickle
import subprocess
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
dims = dict(d_in=4, heads=2, d_head=3, d_ff=8, classes=3)
path = os.path.join(SRC, "examples", "fwp_delta_cde.ode")


def raises(what, fn, text):
    try:
        fn()
    except plastic.Error as e:
        assert text in str(e), f"{what}: {e}"
        print(f"{what}: {str(e)[:100]}")
    else:
        raise AssertionError(f"{what}: no error")


model = plastic.compile(path, set=dims, dtype="float64", threads=2)
module = plastic.torch.PlasticModule(model, seed=3)

# Conversions: a copy would disconnect the parameters from the kernels.
raises(".float()", module.float, "compile the model with dtype=\"float32\"")
raises(".to(float32)", lambda: module.to(torch.float32), "would be copied")
assert module.double() is module and module.to("cpu") is module  # no copy: allowed
raises("pickle", lambda: pickle.dumps(module), "cannot be pickled")
raises("deepcopy", lambda: copy.deepcopy(module), "cannot be pickled")
text = repr(module)
assert "float64" in text and f"{model.parameter_table[0][0]}: [" in text, text
print("repr:", text[:120])

# One module per compiled model.
raises("second module", lambda: plastic.torch.PlasticModule(model), "already backs")

# NaN written through a NumPy view.
g = np.random.default_rng(1)
x = np.cumsum(g.standard_normal((5, 9, 4)), axis=1) / 3
good = module(torch.from_numpy(x)).detach().clone()
name = model.parameter_table[0][0]
view = model.parameters()[name]
kept = view.copy()
view.flat[0] = np.nan
raises("NaN parameter (module)", lambda: module(torch.from_numpy(x)), f"parameter {name}")
raises("NaN parameter (model)", lambda: model.predict(x), f"parameter {name}")
view[...] = kept
assert torch.equal(module(torch.from_numpy(x)), good)

# Labels and series.
raises("fractional label", lambda: model.prepare(x, y=np.array([0, 1, 2, 1.5, 0])),
       "y[3] = 1.5")
raises("label out of range", lambda: model.prepare(x, y=np.array([0, 1, 2, 3, 0])), "0..2")
empty = x.copy()
empty[2] = np.nan
raises("all-NaN series", lambda: model.predict(empty), "x[2] holds no observed value")

# A boolean mask selects where it is true.
batch = model.prepare(x, y=np.array([0, 1, 2, 1, 0]))
mask = np.array([False, True, False, True, True])
by_mask = model.predict(batch[mask])
by_index = model.predict(batch[np.flatnonzero(mask)])
assert by_mask.shape[0] == 3 and np.array_equal(by_mask, by_index)
raises("mask of the wrong length", lambda: batch[np.array([True, False])], "one entry per series")

# NaN padding past a shorter series' end, with the default t: the series is
# read at its own length, as `plastic predict` reads a file of that series.
padded = np.concatenate([x, np.full((5, 4, 4), np.nan)], axis=1)
assert np.array_equal(model.predict(padded)[:, -1], model.predict(x)[:, -1])

# Regression targets are checked in full.
tanks = plastic.compile(os.path.join(SRC, "examples", "node_elu_default_tanks.ode"),
                        dtype="float64")
tanks.init(0)
u = g.standard_normal((3, 7, 1))
y0 = g.standard_normal((3, 1))
tanks.prepare(u, static=y0, y=g.standard_normal((3, 7, 1)))  # per observation: fits
raises("targets of another length", lambda: tanks.prepare(u, static=y0, y=g.standard_normal((3, 5, 1))),
       "this model's targets are [3, 7, 1]")

# A dim far too large: refused with the sizes before anything is allocated.
raises("huge dims", lambda: plastic.compile(os.path.join(SRC, "examples", "gnode_flipflop.ode"),
                                            set={"N": 100000}), "lower the dims that size it")

version = subprocess.run([os.environ["PLASTIC_COMMAND"], "--version"], capture_output=True,
                         text=True).stdout.split()[-1]
assert plastic.__version__ == version, (plastic.__version__, version)

# A forward and backward through torch, then exit: torch's graph keeps the
# model alive past the interpreter's teardown while its deferred kernels
# may still compile (an empty kernel cache makes them slow enough to). It
# is a race: without the exit hook 1 run in 4 crashed here, so try 4 times.
exit_script = f"""
import numpy as np, torch, plastic, plastic.torch
torch.set_default_dtype(torch.float64)
model = plastic.compile({path!r}, set={dims!r}, dtype="float64", gradient="direct", threads=1)
module = plastic.torch.PlasticModule(model)
y = module(torch.randn(5, 9, 4), torch.arange(9, dtype=torch.float64))
torch.nn.functional.cross_entropy(y[:, -1], torch.zeros(5, dtype=torch.long)).backward()
"""
for attempt in range(4):
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([sys.executable, "-c", exit_script], capture_output=True, text=True,
                              env=dict(os.environ, PLASTIC_CACHE_DIR=cache))
    assert done.returncode == 0, (attempt, done.returncode, done.stdout, done.stderr)
print("ok")
