#!/usr/bin/env python3
# Training equivalence with the PyTorch reference, end to end: `plastic
# train --dtype f64 --log-steps` for the three classifiers of the zoo (the
# neural CDE of paper 002, the gated neural ODE of paper 003 Eq. 1, the
# Delta-rule CDE of paper 000 Eqs. 24, 25, 32), then
# bench/reference/train_equivalence.py replays each run in PyTorch from the
# same initial parameters, batches, preprocessing, optimiser and schedule
# and must agree: every step's loss to 1e-8 and the final parameters to
# 1e-7 (relative).
#
#   train_equivalence.py PLASTIC            fast: a toy .ts file, small
#                                           sizes, 15 steps per model
#   train_equivalence.py PLASTIC --full     the models' own sizes, 50 steps
#                                           on 200 series of
#                                           CharacterTrajectories (mixed
#                                           lengths), skipped without the data
# Exit 0 when all agree, 1 when one does not, 77 (skipped) without torch or
# without the data.
#
# The neural CDE ships with dopri5 and the adjoint, which no reference can
# match to 1e-8 step for step (the adaptive controller's accept/reject
# decisions amplify rounding): it is run with `solve rk4 step 1` (one step per observation) and
# `gradient direct`, written into a copy of the model file. The other two
# ship with fixed steps (gnODE: euler with checkpointing, whose gradient is
# direct's).
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
REFERENCE = os.path.join(SOURCE, "bench", "reference", "train_equivalence.py")
SKIP = 77


def write_toy_ts(path, channels, classes, samples, length, seed=12345):
    """tests/support/toy_ts.h's set: noisy sinusoids whose frequency is the class's."""
    state = seed

    def noise():
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        return (state >> 11) / 9007199254740992.0 - 0.5

    with open(path, "w") as f:
        f.write("@problemName Toy\n@timeStamps false\n@missing false\n@univariate false\n"
                f"@dimensions {channels}\n@equalLength true\n@seriesLength {length}\n"
                "@classLabel true " + " ".join(f"c{c}" for c in range(classes)) + "\n@data\n")
        for i in range(samples):
            label = i % classes
            rows = [",".join(f"{math.sin(0.3 * t * (1 + label) + ch) + 0.3 * noise():.6f}"
                             for t in range(length)) for ch in range(channels)]
            f.write(":".join(rows) + f":c{label}\n")


def first_series(source, target, count):
    """The header and the first `count` series of a .ts file."""
    with open(source) as f, open(target, "w") as out:
        data = False
        kept = 0
        for line in f:
            if data:
                if not line.strip():
                    continue
                if kept == count:
                    break
                kept += 1
            elif line.strip().lower() == "@data":
                data = True
            out.write(line)


def fixed_step_ncde(work):
    """examples/ncde_character.ode with rk4 and the direct gradient."""
    with open(os.path.join(SOURCE, "examples", "ncde_character.ode")) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        if line.startswith("solve "):
            line = "solve    rk4 step 1"
        elif line.startswith("gradient "):
            line = "gradient direct"
        out.append(line)
    path = os.path.join(work, "ncde_rk4.ode")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return path


def run(command, env=None):
    r = subprocess.run(command, capture_output=True, text=True, env=env)
    return r.returncode, r.stdout + r.stderr


def main():
    if len(sys.argv) < 2:
        print("usage: train_equivalence.py PLASTIC [--full]")
        return 2
    plastic, full = sys.argv[1], "--full" in sys.argv[2:]
    try:
        import torch  # noqa: F401
    except ImportError:
        print("skipped: python3-torch is not installed")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="plastic-equivalence-") as work:
        return check_all(plastic, full, work)


def check_all(plastic, full, work):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    lanes = []
    if full:
        data_root = os.environ.get("PLASTIC_DATA", os.path.join(SOURCE, "..", "shared", "data"))
        train_ts = os.path.join(data_root, "uea", "CharacterTrajectories",
                                "CharacterTrajectories_TRAIN.ts")
        if not os.path.exists(train_ts):
            print(f"skipped: {train_ts} is not there (set PLASTIC_DATA)")
            return SKIP
        data = os.path.join(work, "character200.ts")
        first_series(train_ts, data, 200)
        # 200 series: 140 train, batch 14 -> 10 steps per epoch, 5 epochs.
        common = ["--batch", "14", "--epochs", "5"]
        sizes = {"ncde": [], "gnode": [], "delta": []}
        # Series of different lengths share a tile's time grid (runtime/batch/
        # tile.h): the lane count is pinned, and told to the reference.
        env["PLASTIC_LANES"] = "8"
        lanes = ["--lanes", "8"]
    else:
        data = os.path.join(work, "toy.ts")
        write_toy_ts(data, 2, 3, 60, 12)
        # 60 series: 42 train, batch 10 -> 5 steps per epoch, 3 epochs.
        common = ["--batch", "10", "--epochs", "3"]
        sizes = {"ncde": ["--set", "hidden=8", "--set", "d_f=16"],
                 "gnode": ["--set", "N=8", "--set", "H=16"],
                 "delta": ["--set", "heads=2", "--set", "d_head=4", "--set", "d_ff=16"]}
    models = {"ncde": fixed_step_ncde(work),
              "gnode": os.path.join(SOURCE, "examples", "gnode_character.ode"),
              "delta": os.path.join(SOURCE, "examples", "fwp_delta_cde_character.ode")}
    failed = []
    for name, model in models.items():
        out = os.path.join(work, name)
        code, text = run([plastic, "train", model, "--data", data, "--dtype", "f64", "--seed", "0",
                          "--threads", "1", "--log-steps", "--no-progress", "--out", out]
                         + common + sizes[name], env)
        if code != 0:
            print(f"FAIL {name}: plastic train exited {code}\n{text}")
            failed.append(name)
            continue
        code, text = run([sys.executable, REFERENCE, out, "--model", name, "--quiet"] + lanes, env)
        print(f"{'ok  ' if code == 0 else 'FAIL'} {name}: {text.strip().splitlines()[-1] if text.strip() else ''}")
        if code != 0:
            print(text)
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
