"""One trained run, one set of series, every door: the same predictions.

Plastic has many doors to a trained model: `plastic predict` with the LLVM
JIT and with the C++ backend, a model binary (`plastic build --run`), the
Python module (the embedding API's Model underneath), the REPL (`load
RUN_DIR`, `data`, `predict all to FILE`) and `mpirun -np 2 plastic
predict`. Each binds the model to its data through the run's record (its
--set values, dtype, the dims it took from its data, the channels, classes
and statistics of its training split), so each must give bit for bit the
same outputs, in f64 and in f32, for the same series — and a series given alone in a
file must get the outputs it gets inside its file. Two exceptions, each a
tolerance stated where it is used: the C++ backend rounds otherwise (its
fused multiply-adds fall elsewhere), and an adaptive solver chooses one
step size per tile, so a series' outputs depend, within the solver's
tolerance, on the series that share its tile — unless each series is
solved in a tile of its own (`--series-alone`), which makes a series
alone and inside its file bit for bit the same for every model.

The table has one row per (model, door): adding a door or a model adds a
row, not a test. Usage: conformance.py PLASTIC_EXE [--only MODEL]
(PYTHONPATH must reach the `plastic` package; doors whose tools are absent,
mpirun or the Python module, are reported as skipped, never as passed)."""
import csv
import itertools
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SRC = os.environ.get("PLASTIC_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXE = sys.argv[1]
# Every door at one tile width (f64 lanes): with an adaptive solver the
# series that share a tile share its step sizes, so doors must tile alike
# to agree (a fixed-step model gives the same bits at any width). The run
# is trained at LANES (PLASTIC_LANES) and records it in run.json; every
# door then compiles with the recorded width without being told.
LANES = 4
os.environ.pop("PLASTIC_LANES", None)

# The four model families of the papers, made small; their dims that come
# from the data (`dim d from data.*`) are left to the data. The third entry
# is the rtol of an adaptive solver (None: fixed steps), see ADAPTIVE below.
MODELS = {
    "Delta CDE": ("examples/fwp_delta_cde_character.ode", {"heads": 2, "d_head": 4, "d_ff": 8},
                  None),
    "NCDE": ("examples/ncde_character.ode", {"hidden": 8, "d_f": 16}, 1e-3),
    "NRDE": ("examples/nrde_depth2.ode", {"d_in": 4, "classes": 4, "hidden": 8, "d_f": 16}, None),
    "gnODE": ("examples/gnode_character.ode", {"N": 8, "H": 8}, None),
}


def write_toy_ts(path, channels, classes, samples, length, offset=0.0, seed=12345):
    """tests/support/toy_ts.h, in Python: noisy sinusoids by class."""
    state = seed
    mask = (1 << 64) - 1

    def noise():
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) & mask
        return (state >> 11) / 9007199254740992.0 - 0.5

    with open(path, "w") as f:
        f.write(f"@problemName Toy\n@timeStamps false\n@missing false\n@univariate false\n"
                f"@dimensions {channels}\n@equalLength true\n@seriesLength {length}\n"
                f"@classLabel true {' '.join(f'c{c}' for c in range(classes))}\n@data\n")
        for i in range(samples):
            label = i % classes
            dims = []
            for ch in range(channels):
                dims.append(",".join(f"{offset + math.sin(0.3 * t * (1 + label) + ch) + 0.3 * noise():.6f}"
                                     for t in range(length)))
            f.write(":".join(dims) + f":c{label}\n")


def read_toy_ts(path):
    """Series [batch][time][channel] of a .ts file without timestamps or missing values."""
    series, data = [], False
    for line in open(path):
        line = line.strip()
        if data and line:
            dims = line.split(":")[:-1]
            values = [[float(v) for v in d.split(",")] for d in dims]
            series.append([list(row) for row in zip(*values)])
        data = data or line == "@data"
    return series


def run(*args, env=None, check=True):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))}\n{done.stdout}\n{done.stderr}")
    return done


def outputs_of_csv(path):
    """Series index -> its outputs (the y columns, every row), as floats."""
    rows = list(csv.DictReader(open(path)))
    ys = [k for k in rows[0] if k.startswith("y") and k[1:].isdigit()] if rows else []
    out = {}
    for r in rows:
        out.setdefault(int(r["index"]), []).extend(float(r[k]) for k in ys)
    return out


def sets_of(sets):
    return [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]


class Doors:
    """Each door: a name and how it predicts the test series of a run."""

    def __init__(self, work, model, sets, run_dir, test_file):
        self.work, self.model, self.sets = work, model, sets
        self.run_dir, self.test_file = run_dir, test_file

    def predict_cli(self, name, *extra, launcher=()):
        out = os.path.join(self.work, f"{name}.csv")
        run(*launcher, EXE, "predict", self.model, *sets_of(self.sets), "--parameters", self.run_dir,
            "--data", self.test_file, "--threads", "1", "--output", out, *extra)
        return outputs_of_csv(out)

    def llvm(self):
        return self.predict_cli("llvm")

    def cpp(self):
        return self.predict_cli("cpp", "--backend", "cpp")

    def mpi(self):
        if shutil.which("mpirun") is None:
            return None
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        out = os.path.join(self.work, "mpi.csv")
        done = run("mpirun", "--oversubscribe", "--bind-to", "none", "-np", "2", EXE, "predict",
                   self.model, *sets_of(self.sets), "--parameters", self.run_dir, "--data",
                   self.test_file, "--threads", "1", "--output", out, env=env, check=False)
        if "no MPI support" in done.stderr:
            return None
        if done.returncode != 0:
            raise RuntimeError(done.stdout + done.stderr)
        return outputs_of_csv(out)

    def binary(self):
        exe = os.path.join(self.work, "model_binary")
        run(EXE, "build", self.model, *sets_of(self.sets), "--run", self.run_dir, "-o", exe)
        out = os.path.join(self.work, "binary.csv")
        run(exe, "predict", "--parameters", self.run_dir, "--data", self.test_file, "--threads", "1",
            "--output", out)
        return outputs_of_csv(out)

    def repl(self, name="repl", alone=False):
        script = os.path.join(self.work, f"{name}.repl")
        out = os.path.join(self.work, f"{name}.csv")
        with open(script, "w") as f:
            f.write(f"load {self.run_dir}\nset threads 1\ndata {self.test_file}\n"
                    f"predict all to {out}{' alone' if alone else ''}\n")
        run(EXE, "repl", "--script", script)
        return outputs_of_csv(out)

    def python(self, series_alone=False):
        try:
            import numpy as np
            import plastic
        except ImportError:
            return None
        # The run's binding: its dims from its data, --set values, dtype,
        # parameters and the statistics that prepare new series.
        model = plastic.compile(run=self.run_dir, threads=1)
        assert model.lanes == LANES, f"compile(run=...) took {model.lanes} lanes, the run {LANES}"
        y = model.predict(np.array(read_toy_ts(self.test_file)), series_alone=series_alone)
        return {b: [float(v) for v in y[b].reshape(-1) if not math.isnan(v)]
                for b in range(y.shape[0])}


# (name, how it predicts, how close it must come to the first door). Every
# door runs the LLVM backend's kernels bit for bit, except the C++ backend:
# Clang compiles the generated C++ into other instructions than LLVM makes of
# the loop IR directly, and with fused multiply-adds allowed (both backends'
# `contract`, for speed) where a*b + c is fused differs, by an ulp or a few.
# In f32 "a few ulps" is a few 1e-7, and a model of a dozen layers can
# carry such a difference on to the outputs a hundredfold.
EXACT = 0.0  # the largest relative difference allowed
ROUNDING = {"f64": 1e-13, "f32": 1e-5}
# An adaptive solver's step size is chosen per tile (runtime/solvers/
# integrator.h: every lane takes the step its hardest neighbour needs), so a
# series' outputs depend, within the solver's tolerance, on the series that
# share its tile: given alone, or through kernels rounded otherwise (the C++
# backend, whose ulps move the accepted steps: in f32 the error estimates
# that accept a step are themselves rounded at 1e-7), it may differ by the
# solver's global error, rtol per step at most.
ADAPTIVE = "rtol"
TEST_LENGTH = 24  # observations per test series
# Both element types: every door compiles the run's recorded dtype.
DTYPES = ("f64", "f32")
DOORS = [("plastic predict (LLVM JIT)", Doors.llvm, EXACT),
         ("plastic predict --backend cpp", Doors.cpp, "rounding"),  # ADAPTIVE: rtol
         ("model binary (build --run)", Doors.binary, EXACT),
         ("Python (embedding API)", Doors.python, EXACT),
         ("REPL --script (load RUN_DIR)", Doors.repl, EXACT),
         ("mpirun -np 2 plastic predict", Doors.mpi, EXACT)]


def as_f32(x):
    """x rounded to the nearest f32: CSV cells and NumPy's f32 outputs, read as
    Python floats, are compared as the f32 values they stand for."""
    return struct.unpack("f", struct.pack("f", x))[0]


def agree(got, reference, tolerance, dtype="f64"):
    """Whether every output is the reference's (bit for bit when tolerance is
    0), and the largest absolute difference.

    A tolerance is relative to the series' largest output, not to each
    output: rounding moves a sum by ulps of its largest terms, so an output
    that nearly cancels (a logit of 0.008 beside one of 8.9) carries the
    same absolute error as its neighbours, a large one relative to itself."""
    if got.keys() != reference.keys() or any(len(got[k]) != len(reference[k]) for k in got):
        return False, math.inf
    rounded = as_f32 if dtype == "f32" else float
    ok, diff = True, 0.0
    for k in got:
        pairs = [(rounded(a), rounded(b)) for a, b in zip(got[k], reference[k])]
        scale = max((max(abs(a), abs(b)) for a, b in pairs), default=0.0)
        for a, b in pairs:
            diff = max(diff, abs(a - b))
            ok = ok and (a == b if tolerance == 0 else abs(a - b) <= tolerance * max(scale, 1e-300))
    return ok, diff


def main():
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    work_root = tempfile.mkdtemp(prefix="plastic-doors-")
    data = os.path.join(work_root, "Toy")
    os.makedirs(data)
    write_toy_ts(os.path.join(data, "Toy_TRAIN.ts"), 3, 4, 40, 12)
    write_toy_ts(os.path.join(data, "Toy_TEST.ts"), 3, 4, 16, TEST_LENGTH, 2.0, 777)
    # The test series as new data (another file), and one of them alone.
    test_file = os.path.join(work_root, "series.ts")
    shutil.copy(os.path.join(data, "Toy_TEST.ts"), test_file)
    lines = open(test_file).read().splitlines()
    first = lines.index("@data") + 1
    alone_index = 6
    alone_file = os.path.join(work_root, "alone.ts")
    with open(alone_file, "w") as f:
        f.write("\n".join(lines[:first] + [lines[first + alone_index]]) + "\n")

    table, failed = [], False
    for (model_name, (path, sets, rtol)), dtype in itertools.product(MODELS.items(), DTYPES):
        if only and only != model_name:
            continue
        name = f"{model_name} {dtype}"
        work = os.path.join(work_root, name.replace(" ", "_"))
        os.makedirs(work)
        run_dir = os.path.join(work, "run")
        run(EXE, "train", path if os.path.isabs(path) else os.path.join(SRC, path),
            *sets_of(sets), "--data", data, "--epochs", "1", "--batch", "16", "--threads", "2",
            "--dtype", dtype, "--no-progress", "--out", run_dir,
            env=dict(os.environ, PLASTIC_LANES=str(LANES)))
        doors = Doors(work, os.path.join(SRC, path), sets, run_dir, test_file)
        reference = None
        for door, predict, tolerance in DOORS:
            try:
                got = predict(doors)
            except Exception as e:  # a door that fails is a failed row, with its reason
                table.append((name, door, "FAILED", str(e).strip().splitlines()[-1][:80]))
                failed = True
                continue
            if got is None:
                table.append((name, door, "skipped", "its tool is not available here"))
                continue
            if reference is None:
                reference = got
            if tolerance == "rounding":  # adaptive: as a series alone, below
                tolerance = rtol * TEST_LENGTH if rtol else ROUNDING[dtype]
            same, diff = agree(got, reference, tolerance, dtype)
            verdict = ("same" if diff == 0 else "within tol") if same else "DIFFERENT"
            table.append((name, door, verdict, f"{len(got)} series, max |diff| {diff:.3g}"
                          + ("" if tolerance == 0 else f" (allowed: {tolerance:g} of the largest)")))
            failed = failed or not same
        # A series alone in its file: the outputs it gets inside the file.
        alone = Doors(work, os.path.join(SRC, path), sets, run_dir, alone_file).predict_cli("alone")
        # Adaptive: two solves whose local error is held to rtol, one on the
        # step sizes its tile-mates chose: their global errors grow at most
        # about linearly, rtol per step, over the series' observations.
        tolerance = rtol * TEST_LENGTH if rtol else EXACT
        same, diff = agree({alone_index: next(iter(alone.values()), [])},
                           {alone_index: reference[alone_index]}, tolerance, dtype)
        verdict = ("same" if diff == 0 else "within rtol") if same else "DIFFERENT"
        table.append((name, "one series alone (predict)", verdict,
                      f"series {alone_index} of the file, given alone, max |diff| {diff:.3g}"
                      + ("" if tolerance == 0 else f" (adaptive steps per tile: {tolerance:g})")))
        failed = failed or not same
        # Each series in a tile of its own: its steps are its own, so alone
        # and inside its file, through each door that offers it, it is
        # solved by the same arithmetic.
        whole = Doors(work, os.path.join(SRC, path), sets, run_dir,
                      test_file).predict_cli("file_alone", "--series-alone")
        single = Doors(work, os.path.join(SRC, path), sets, run_dir, alone_file)
        for door, predict in (("predict --series-alone", lambda d: d.predict_cli(
                                  "single_alone", "--series-alone")),
                              ("REPL predict ... alone", lambda d: d.repl("repl_alone", True)),
                              ("Python series_alone=True", lambda d: d.python(True))):
            got = predict(single)
            if got is None:
                table.append((name, f"one series alone ({door})", "skipped",
                              "its tool is not available here"))
                continue
            same, diff = agree({alone_index: next(iter(got.values()), [])},
                               {alone_index: whole[alone_index]}, EXACT, dtype)
            table.append((name, f"one series alone ({door})", "same" if same else "DIFFERENT",
                          f"series {alone_index}, alone and inside its file, max |diff| {diff:.3g}"))
            failed = failed or not same

    width = max(len(r[1]) for r in table)
    print(f"{'model':<14} {'door':<{width}} {'result':<10} detail")
    for model, door, result, detail in table:
        print(f"{model:<14} {door:<{width}} {result:<10} {detail}")
    shutil.rmtree(work_root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
