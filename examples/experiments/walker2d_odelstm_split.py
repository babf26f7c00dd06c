#!/usr/bin/env python3
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
# ODE-LSTM script's and the paper's text's). Writing the windows for
# `plastic train` is the next step (issue: the papers' numbers).
#     python3 examples/experiments/walker2d_odelstm_split.py [--seq-len 64 84 ...]
import argparse
import os
import sys
import tarfile
import tempfile

import numpy as np


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


def split_sizes(files, seq_len):
    shuffled = list(files)
    rng = np.random.RandomState(891374)
    np.random.RandomState(125487).shuffle(shuffled)
    test_n = int(0.15 * len(shuffled))
    valid_n = int((0.15 + 0.1) * len(shuffled))
    parts = {"train": shuffled[valid_n:], "valid": shuffled[test_n:valid_n], "test": shuffled[:test_n]}
    sizes = {}
    for name in ("train", "valid", "test"):  # the order the source perturbs them in
        windows = 0
        for f in parts[name]:
            steps = np.load(f).shape[0] - 1
            kept = sum(1 for _ in range(steps) if rng.rand() < 0.9)
            windows += len(range(0, kept - seq_len, seq_len // 4))
        sizes[name] = windows
    return sizes


def main():
    ap = argparse.ArgumentParser(description="ODE-LSTM's Walker2d split sizes per window length")
    ap.add_argument("--seq-len", type=int, nargs="+", default=[64, 84])
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    data_root = os.environ.get("PLASTIC_DATA", os.path.join(here, "..", "..", "..", "shared", "data"))
    tmp, files = rollouts(data_root)
    with tmp:
        print(f"{len(files)} rollouts; paper 003: 9684 / 1272 / 1937")
        for seq_len in args.seq_len:
            s = split_sizes(files, seq_len)
            print(f"seq_len {seq_len:4d}: train {s['train']:6d}  valid {s['valid']:5d}  test {s['test']:5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
