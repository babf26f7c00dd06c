#!/usr/bin/env python3
"""The persistence baseline of a next-observation model (standard library only).

An environment model that predicts the next observation x_{n+1} is only
useful if it beats the trivial prediction x_n ("nothing moves"). The split a
run was evaluated on is known only to Plastic (seeded windows of the
rollouts), so this reads it from what `plastic predict --split S` wrote:
one CSV row per readout, the sample named "<rollout stem>@<first row>"
(series_shaping's windows), the true next observation in target_* and the
model's prediction in y0, y1, ... For each row it takes x_n from the
rollout's .npy file and reports, over the same rows and channels:

  persistence.py PREDICTIONS.csv ROLLOUT_DIR
      one JSON line: split, rows, persistence_mse (mean of
      (x_n - x_{n+1})^2), model_mse (mean of (y - x_{n+1})^2, which must
      equal the run's MSE on that split: a check that the rows and the
      averaging are the loss's).
  persistence.py PREDICTIONS.csv ROLLOUT_DIR RUN_DIR
      the same, and fails unless model_mse is the MSE RUN_DIR's
      summary.json gives for the CSV's split (test or validation; to 1e-4
      relative: the CSV holds the f32 outputs).

It fails (exit 1) unless every target in the CSV is the rollout's next row,
so a change in how windows are named or cut cannot go unnoticed.
"""
import ast
import csv
import json
import struct
import sys
from pathlib import Path


def read_npy(path):
    """Rows of a 2-D little-endian float32/float64 C-order .npy file."""
    data = Path(path).read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    # Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4.
    size = 2 if data[6] == 1 else 4
    header_len = int.from_bytes(data[8:8 + size], "little")
    start = 8 + size + header_len
    header = ast.literal_eval(data[8 + size:start].decode("latin1"))
    code = {"<f4": "f", "<f8": "d"}.get(header["descr"])
    if code is None or header["fortran_order"] or len(header["shape"]) != 2:
        raise ValueError(f"{path}: expected a 2-D C-order float array, got {header}")
    rows, cols = header["shape"]
    end = start + rows * cols * struct.calcsize(code)
    values = struct.unpack(f"<{rows * cols}{code}", data[start:end])
    return [values[r * cols:(r + 1) * cols] for r in range(rows)]


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    predictions, rollouts = Path(argv[0]), Path(argv[1])
    cache = {}
    rows = 0
    sq_persist = sq_model = 0.0
    count = 0
    mismatch = 0
    position = {}  # sample -> readouts seen so far
    splits = set()
    with open(predictions, newline="") as f:
        reader = csv.DictReader(f)
        targets = [c for c in reader.fieldnames if c.startswith("target_")]
        outputs = [c for c in reader.fieldnames if c.startswith("y") and c[1:].isdigit()]
        if not targets or len(targets) != len(outputs):
            print(f"FAIL: {predictions}: expected as many target_* as y* columns", file=sys.stderr)
            return 1
        for line in reader:
            stem, _, first = line["sample"].rpartition("@")
            k = position.get(line["sample"], 0)
            position[line["sample"]] = k + 1
            splits.add(line["split"])
            if not line[targets[0]]:
                continue  # the rollout's last step: no next observation, no loss
            if stem not in cache:
                cache[stem] = read_npy(rollouts / f"{stem}.npy")
            series = cache[stem]
            n = int(first or 0) + k
            now, after = series[n], series[n + 1]
            rows += 1
            for c, (t, y) in enumerate(zip(targets, outputs)):
                target = float(line[t])
                # The CSV prints the f64 target; the file holds f32.
                if abs(target - after[c]) > 1e-5 * max(1.0, abs(after[c])):
                    mismatch += 1
                sq_persist += (now[c] - target) ** 2
                sq_model += (float(line[y]) - target) ** 2
                count += 1
    if mismatch or count == 0:
        print(f"FAIL: {mismatch} of {count} targets are not the rollout's next row", file=sys.stderr)
        return 1
    model_mse = sq_model / count
    print(json.dumps({"split": ",".join(sorted(splits)), "rows": rows, "persistence_mse": sq_persist / count, "model_mse": model_mse}))
    if len(argv) == 3:
        summary = json.loads((Path(argv[2]) / "summary.json").read_text())
        if len(splits) != 1 or next(iter(splits)) not in summary:
            print(f"FAIL: the CSV holds the splits {sorted(splits)}, expected one the run's "
                  "summary reports", file=sys.stderr)
            return 1
        expected = summary[next(iter(splits))]["mse"]
        if abs(model_mse - expected) > 1e-4 * expected:
            print(f"FAIL: the predictions' MSE {model_mse} is not the run's {next(iter(splits))} MSE {expected}: "
                  "the rows or the averaging differ from the loss's", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
