"""Model.predict equals `plastic predict` on the same run folder and series:
a small Delta CDE (examples/fwp_delta_cde.ode) trained for one epoch by the
command line on a toy .ts file (f64), then predicted by the command line
(CSV, shortest round-trip numbers) and by Python after load_parameters (the
run's data.json: time channel and normalisation are applied the same way).
Also: save_parameters writes a file load_parameters reads back."""
import csv
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

import plastic

SRC = os.environ["PLASTIC_SOURCE_DIR"]
PLASTIC = os.environ["PLASTIC_COMMAND"]
CH, CLASSES, SAMPLES, LENGTH = 3, 3, 24, 12
rng = np.random.default_rng(5)
series = np.array([[[math.sin(0.3 * t * (1 + i % CLASSES) + c) + 0.3 * rng.standard_normal()
                     for c in range(CH)] for t in range(LENGTH)] for i in range(SAMPLES)])

work = tempfile.mkdtemp(prefix="plastic-python-")
data = os.path.join(work, "toy.ts")
with open(data, "w") as f:
    header = ["@problemName Toy", "@timeStamps false", "@missing false", "@univariate false",
              f"@dimensions {CH}", "@equalLength true", f"@seriesLength {LENGTH}",
              "@classLabel true " + " ".join(f"c{k}" for k in range(CLASSES)), "@data"]
    f.write("\n".join(header) + "\n")
    for i in range(SAMPLES):
        f.write(":".join(",".join(f"{series[i, t, c]:.6f}" for t in range(LENGTH)) for c in range(CH)))
        f.write(f":c{i % CLASSES}\n")
first_line = len(header) + 1  # 1-based line of series 0
series = np.round(series, 6)

model_file = os.path.join(SRC, "examples", "fwp_delta_cde.ode")
sets = dict(d_in=CH + 1, classes=CLASSES, heads=2, d_head=3, d_ff=8)
set_flags = sum((["--set", f"{k}={v}"] for k, v in sets.items()), [])
run = os.path.join(work, "run")
subprocess.run([PLASTIC, "train", model_file, *set_flags, "--data", data, "--epochs", "1",
                "--dtype", "f64", "--batch", "8", "--no-progress", "--out", run], check=True)
out_csv = os.path.join(work, "predict.csv")
subprocess.run([PLASTIC, "predict", model_file, *set_flags, "--data", data, "--split", "all",
                "--parameters", run, "--output", out_csv], check=True)
expected = {}
with open(out_csv) as f:
    for row in csv.DictReader(f):
        line = int(row["sample"].rsplit(":", 1)[1])
        expected[line - first_line] = [float(row[f"y{k}"]) for k in range(CLASSES)]
assert len(expected) == SAMPLES, len(expected)

model = plastic.compile(model_file, set=sets, dtype="float64")
model.load_parameters(run)
got = model.predict(series)
assert got.shape == (SAMPLES, 1, CLASSES), got.shape
worst = max(abs(got[i, 0, k] - expected[i][k]) / max(1e-300, abs(expected[i][k]))
            for i in range(SAMPLES) for k in range(CLASSES))
print(f"predict vs plastic predict: worst rel {worst:.1e} over {SAMPLES} series")
assert worst == 0.0 or worst < 1e-13, worst

saved = os.path.join(work, "saved.safetensors")
model.save_parameters(saved)
again = plastic.compile(model_file, set=sets, dtype="float64")
again.load_parameters(saved)
for name, value in model.parameters().items():
    assert np.array_equal(value, again.parameters()[name]), name
print("ok")
