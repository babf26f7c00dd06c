#!/usr/bin/python3
# ODE-LSTM's Walker2d preparation (Lechner & Hasani, the repository's
# irregular_sampled_datasets.py, Walker2dImitationData), which paper 003
# (Sec. 6.4, App. H.3) takes as is, recomputed with NumPy on the rollouts of
# ../shared/data/walker2d to see which window length gives the paper's
# split sizes (9 684 / 1 272 / 1 937 training / validation / test trials):
#   * the rollout files sorted, shuffled with RandomState(125487), 15 % test,
#     10 % validation, the rest training, by file;
#   * x = rollout[:-1], target y = rollout[1:] (the next raw observation);
#   * each step kept with probability 0.9 (one RandomState(891374) over the
#     training, validation and test files in that order); the time input is
#     the number of raw steps since the previous kept one;
#   * windows of seq_len kept steps with stride seq_len // 4, starting at
#     0, stride, ... < kept - seq_len.
# Prints the three counts for each --seq-len (default: 64 and 84, the
# ODE-LSTM script's and the paper's text's). 64 gives the paper's counts.
#
# --write DIR (one --seq-len) writes the windows for `plastic train`:
# DIR/train, DIR/validation and DIR/test, one .npy per window in ODE-LSTM's
# order, each [seq_len + 1, 36] float64: per row j the 17 observations x_j,
# the elapsed raw steps (ODE-LSTM's time input), the bin j (the time: one
# bin per kept step, tau = dt = 1 as paper 003 App. H.3 has it), and the 17
# targets. The targets are stamped at bin edges: row j holds y_{j-1}, the
# raw observation after x_{j-1}, and row 0 none (NaN). A forward-Euler step
# from bin j-1 to j reads x_{j-1} only, so the state at bin j has read
# x_0..x_{j-1} and predicts the step after x_{j-1}, as ODE-LSTM's cell does
# after reading it; stamped at bin j-1 instead, the state would not yet
# have read x_{j-1} and every prediction would be two raw steps ahead. Row
# seq_len's x is the next window step, read by no step (no leak). The
# window's 64 scored targets are ODE-LSTM's. --targets rows writes the
# form for models that read x_j in a jump before they predict (ODE-RNN,
# ODE-RFWP: their state at t_j has read x_j): [seq_len, 36], row j holding
# x_j, the elapsed steps, the raw-step clock (the observation times, which
# the ODE between jumps integrates over) and y_j. DIR/preparation.json
# records the form, the sizes and the seeds. Train on them with
#     plastic train MODEL --data DIR --time dim_18 --target dim_19,...,dim_35
# (the command is printed in full).
#     python3 examples/experiments/walker2d_odelstm_split.py [--seq-len 64 84 ...] [--write DIR]
import argparse
import json
import os
import sys
import tarfile
import tempfile

try:
    import numpy as np
except ImportError:  # a Python without NumPy (Debian's python3-numpy has it)
    print(f"skipped: NumPy is not installed for {sys.executable}")
    sys.exit(77)


def rollouts(data_root):
    archive = os.path.join(data_root, "walker2d", "rollouts_float32.tar.xz")
    if not os.path.exists(archive):
        print(f"skipped: {archive} is not there (set PLASTIC_DATA)")
        sys.exit(77)
    tmp = tempfile.TemporaryDirectory(prefix="walker2d-")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp.name)  # the project's own data archive
    files = []
    for root, _, names in os.walk(tmp.name):
        files += [os.path.join(root, n) for n in names if n.endswith(".npy")]
    return tmp, sorted(files, key=os.path.basename)


def odelstm_parts(files):
    """ODE-LSTM's split by file: the sorted files shuffled, 15 % test, 10 % validation."""
    shuffled = list(files)
    np.random.RandomState(125487).shuffle(shuffled)
    test_n = int(0.15 * len(shuffled))
    valid_n = int((0.15 + 0.1) * len(shuffled))
    return {"train": shuffled[valid_n:], "valid": shuffled[test_n:valid_n], "test": shuffled[:test_n]}


def perturbed(files, rng):
    """Each rollout's x, y and elapsed steps after dropping each step with probability 0.1."""
    out = []
    for f in files:
        arr = np.load(f)
        x, y = arr[:-1].astype(np.float32), arr[1:].astype(np.float32)
        keep, elapsed, skip = [], [], 0
        for t in range(y.shape[0]):
            skip += 1
            if rng.rand() < 0.9:
                keep.append(t)
                elapsed.append(skip)
                skip = 0
        out.append((x[keep], np.asarray(elapsed, dtype=np.float64), y[keep]))
    return out


def windows(rollouts, seq_len):
    """Overlapping windows (stride seq_len // 4) as [seq_len + 1, 36] arrays in ODE-LSTM's
    order: x_j, elapsed_j, bin j, and y_{j-1} (targets at bin edges; row 0 NaN)."""
    bins = np.arange(seq_len + 1, dtype=np.float64)[:, None]
    for x, t, y in rollouts:
        for start in range(0, y.shape[0] - seq_len, seq_len // 4):
            inputs = slice(start, start + seq_len + 1)  # start + seq_len < len(x): range's bound
            targets = np.full((seq_len + 1, y.shape[1]), np.nan)
            targets[1:] = y[start:start + seq_len]
            yield np.concatenate([x[inputs], t[inputs, None], bins, targets], axis=1).astype(np.float64)


def row_windows(rollouts, seq_len):
    """Overlapping windows as [seq_len, 36] arrays: x_j, elapsed_j, the raw-step clock, y_j."""
    for x, t, y in rollouts:
        clock = np.cumsum(t)  # the observation times: raw steps since the rollout began
        for start in range(0, y.shape[0] - seq_len, seq_len // 4):
            w = slice(start, start + seq_len)
            yield np.concatenate([x[w], t[w, None], clock[w, None], y[w]], axis=1).astype(np.float64)


def prepared(files, seq_len, targets="edges"):
    """The three parts' windows; one RandomState(891374) perturbs train, valid, test in turn."""
    parts = odelstm_parts(files)
    rng = np.random.RandomState(891374)
    cut = windows if targets == "edges" else row_windows
    return {name: list(cut(perturbed(parts[name], rng), seq_len)) for name in ("train", "valid", "test")}


def split_sizes(files, seq_len):
    return {name: len(w) for name, w in prepared(files, seq_len).items()}


def write(files, seq_len, out, targets):
    parts = prepared(files, seq_len, targets)
    for name, folder in (("train", "train"), ("valid", "validation"), ("test", "test")):
        os.makedirs(os.path.join(out, folder), exist_ok=True)
        for i, w in enumerate(parts[name]):
            np.save(os.path.join(out, folder, f"w{i:05d}.npy"), w)
    sizes = {name: len(w) for name, w in parts.items()}
    record = {"source": "ODE-LSTM Walker2dImitationData, irregular_sampled_datasets.py",
              "rollouts": len(files), "seq_len": seq_len, "stride": seq_len // 4,
              "split_seed": 125487, "perturbation_seed": 891374,
              "windows": {"train": sizes["train"], "validation": sizes["valid"], "test": sizes["test"]},
              "columns": ("dim_0..16 x_j, dim_17 elapsed raw steps, dim_18 bin j (the time), "
                          "dim_19..35 y_{j-1} (row 0 NaN)") if targets == "edges" else
                         ("dim_0..16 x_j, dim_17 elapsed raw steps, dim_18 raw-step clock "
                          "(the time), dim_19..35 y_j"),
              "targets": "bin-edges" if targets == "edges" else "rows"}
    with open(os.path.join(out, "preparation.json"), "w") as f:
        json.dump(record, f, indent=2)
    return sizes


def main():
    ap = argparse.ArgumentParser(description="ODE-LSTM's Walker2d split sizes per window length")
    ap.add_argument("--seq-len", type=int, nargs="+", default=[64, 84])
    ap.add_argument("--write", metavar="DIR", help="write the windows of one --seq-len for plastic")
    ap.add_argument("--targets", choices=["edges", "rows"], default="edges",
                    help="edges: y_{j-1} at bin j (models that read x only in the flow); "
                         "rows: y_j at x_j's time (models that read x_j in a jump)")
    args = ap.parse_args()
    if args.write and len(args.seq_len) != 1:
        ap.error("--write takes one --seq-len")
    here = os.path.dirname(os.path.abspath(__file__))
    data_root = os.environ.get("PLASTIC_DATA", os.path.join(here, "..", "..", "..", "shared", "data"))
    tmp, files = rollouts(data_root)
    with tmp:
        print(f"{len(files)} rollouts; paper 003: 9684 / 1272 / 1937")
        if args.write:
            s = write(files, args.seq_len[0], args.write, args.targets)
            targets = ",".join(f"dim_{k}" for k in range(19, 36))
            print(f"wrote {s['train']} / {s['valid']} / {s['test']} windows of {args.seq_len[0]} to {args.write}")
            print(f"plastic train MODEL --data {args.write} --time dim_18 --target {targets}")
            return 0
        for seq_len in args.seq_len:
            s = split_sizes(files, seq_len)
            print(f"seq_len {seq_len:4d}: train {s['train']:6d}  valid {s['valid']:5d}  test {s['test']:5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
