"""plastic.load on the object `plastic build --emit-obj` writes (linked into a
shared object with $CXX first) predicts exactly what plastic.compile's JIT
does for the same model, dims, dtype, lanes and parameters: the AOT and JIT
paths share the compiler and the runtime, so the outputs are bitwise equal."""
import os
import subprocess
import tempfile

import numpy as np

import plastic

SRC = os.environ["PLASTIC_SOURCE_DIR"]
PLASTIC = os.environ["PLASTIC_COMMAND"]
model_file = os.path.join(SRC, "examples", "gnode_flipflop.ode")
work = tempfile.mkdtemp(prefix="plastic-python-aot-")
out = os.path.join(work, "gnode")
subprocess.run([PLASTIC, "build", model_file, "--set", "N=8", "--set", "H=8", "--emit-obj", "-o", out],
               check=True)

aot = plastic.load(out + ".o")
jit = plastic.compile(model_file, set={"N": 8, "H": 8}, dtype="float32", lanes=aot.lanes)
assert aot.lanes == jit.lanes, (aot.lanes, jit.lanes)
aot.init(1)
jit.init(1)
pulses = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], size=(5, 20, 3), p=[0.1, 0.8, 0.1])
a, j = aot.predict(pulses), jit.predict(pulses)
assert a.shape == (5, 20, 3), a.shape
assert np.isfinite(a).all()
assert np.array_equal(a, j), np.abs(a - j).max()
print("ok: AOT object and JIT agree bitwise on", a.shape)
