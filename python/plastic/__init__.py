"""Plastic from Python: compile a neural differential equation (.ode) with
Plastic's compiler and run its kernels on NumPy arrays.

    import numpy as np, plastic
    model = plastic.compile("examples/fwp_delta_cde.ode", set={"d_head": 8}, dtype="float64")
    model.init(seed=0)
    model.parameters()["Wk"]               # a NumPy view of the model's parameter buffer
    y = model.predict(np.random.randn(4, 50, 21))   # [batch, rows, outputs]

Series are arrays [batch, time, channels] with NaN for a missing value; times
`t` are [time] or [batch, time] (NaN past the end of a shorter series;
default 0, 1, 2, ...). A mistake (a model that does not check, bad data, a
wrong option) raises plastic.Error with the command line's message; a model
error carries its file:line:col, the source line and a caret.

Model.prepare(x, t, static, y) prepares series once (their paths, schedules
and targets) as a PreparedBatch that predict, loss_and_grad and output_vjp
take in place of arrays; batch[indices] is a minibatch of it. Model.forward
(batch) returns a Forward whose .outputs are predict's and whose .vjp(y_bar)
is output_vjp's, from the kept forward pass.

plastic.torch.PlasticModule makes a model a torch.nn.Module.
"""
import os
import subprocess
import tempfile

from ._plastic import Error, Forward, Model, PreparedBatch  # noqa: F401
from ._plastic import __version__  # noqa: F401
from . import _plastic

__all__ = ["compile", "load", "Error", "Forward", "Model", "PreparedBatch", "__version__"]


def compile(path_or_source=None, set=None, dtype=None, lanes=0, gradient=None, threads=0,
            run=None):
    """A model from a .ode file or its text, JIT-compiled for `dtype`
    ("float64" or "float32"; default float64). `set` overrides dims and
    consts as `--set` does; `lanes` is the samples per SIMD tile (0: one
    256-bit vector, -1: the widest vector of this machine); `gradient`
    overrides the model's gradient method (direct | checkpoint | adjoint);
    `threads` 0 = every core.

    `run`: a run folder of `plastic train`, bound as `plastic predict` binds
    it — its model.ode (unless a model is given), its --set values (each one
    in `set` replacing the run's), its element type (unless `dtype` is given),
    the dims it took from its data, and its trained parameters with the
    recorded preparation of new series (channels, time channel, statistics)."""
    if run is not None and path_or_source is None:
        path_or_source = os.path.join(str(run), "model.ode")
    if path_or_source is None:
        raise Error("compile: give a model (a .ode file or its text), or run=RUN_DIR")
    # dtype "" is the run's element type (read with its binding), else float64.
    model = _plastic.compile(str(path_or_source), {k: float(v) for k, v in (set or {}).items()},
                             dtype or "", lanes, "" if run is None else str(run))
    model.gradient = gradient or ""
    model.threads = threads
    if run is not None:
        model.load_parameters(str(run))
    return model


def load(library, gradient=None, threads=0):
    """A model built ahead of time: a shared object (`c++ -shared OUT.o -o
    libOUT.so` of `plastic build --emit-obj`), or the object OUT.o or the
    archive libOUT.a of `plastic build --emit-obj|--emit-lib`, which are
    linked into a shared object first with $CXX (else c++)."""
    library = str(library)
    if library.endswith((".o", ".a")):
        out = os.path.join(tempfile.mkdtemp(prefix="plastic-"),
                           os.path.basename(library).rsplit(".", 1)[0] + ".so")
        cxx = os.environ.get("CXX", "c++")
        whole = ["-Wl,--whole-archive", library, "-Wl,--no-whole-archive"] if library.endswith(".a") else [library]
        done = subprocess.run([cxx, "-shared", *whole, "-o", out], capture_output=True, text=True)
        if done.returncode != 0:
            raise Error(f"cannot link {library} into a shared object: {done.stderr.strip()}")
        library = out
    model = _plastic.load_shared(library)
    model.gradient = gradient or ""
    model.threads = threads
    return model
