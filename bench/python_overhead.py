#!/usr/bin/env python3
# The overhead of Plastic's Python module (issue 18): one training step of a
# model through plastic.torch.PlasticModule (forward, torch's cross-entropy,
# backward through the compiled output VJP, torch's Adam), and through
# PlasticModule.loss (the model's own loss and gradient in one call), against
# `plastic bench-train` on the same model, batch, length, gradient method and
# threads. Not a test: timings on a shared machine vary; run it quiet.
#
#   PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--batch 32] [--length 161]
#
# What the Python step does beyond bench-train's: it converts and prepares
# the batch's series (splines) at every call, where bench-train prepares
# once; and the output-VJP path solves forward twice (predict, then the
# gradient method's own forward pass), since torch asks for the outputs
# before it knows their cotangent.
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

import plastic
import plastic.torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", default=os.path.join(ROOT, "examples", "fwp_delta_cde.ode"))
    p.add_argument("--plastic", default=os.path.join(ROOT, "build", "plastic"))
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--length", type=int, default=161)
    p.add_argument("--gradient", default="direct")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--dtype", default="f32", choices=("f32", "f64"))
    a = p.parse_args()

    cli = subprocess.run([a.plastic, "bench-train", a.model, "--batch", str(a.batch), "--length",
                          str(a.length), "--gradient", a.gradient, "--threads", str(a.threads),
                          "--steps", str(a.steps), "--dtype", a.dtype, "--json"],
                         check=True, capture_output=True, text=True)
    bench = json.loads(cli.stdout.strip().splitlines()[-1])

    torch.set_num_threads(1)
    model = plastic.compile(a.model, dtype="float32" if a.dtype == "f32" else "float64",
                            lanes=-1, gradient=a.gradient, threads=a.threads)
    module = plastic.torch.PlasticModule(model)
    d_in, classes = int(model.dims["d_in"]), int(model.dims["classes"])
    rng = np.random.default_rng(0)
    n = a.length
    times = np.arange(n, dtype=np.float64)
    feats = np.cumsum(rng.standard_normal((a.batch, n, d_in - 1)), 1) / n ** 0.5
    x = torch.from_numpy(np.concatenate([np.broadcast_to(times[None, :, None] / (n - 1),
                                                         (a.batch, n, 1)), feats], -1))
    t = torch.from_numpy(times)
    labels = torch.from_numpy(rng.integers(0, classes, a.batch))
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)

    def vjp_step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(module(x, t)[:, -1], labels)
        loss.backward()
        opt.step()

    def loss_step():
        opt.zero_grad()
        module.loss(x, labels, t).backward()
        opt.step()

    def median(step):
        step()  # warm-up
        seconds = []
        for _ in range(a.steps):
            start = time.perf_counter()
            step()
            seconds.append(time.perf_counter() - start)
        return statistics.median(seconds)

    base = bench["median_s"]
    rows = [("plastic bench-train", base), ("PlasticModule.loss", median(loss_step)),
            ("PlasticModule forward + backward", median(vjp_step))]
    print(f"{os.path.basename(a.model)}: batch {a.batch}, length {a.length}, {a.gradient}, "
          f"{a.dtype}, {a.threads} threads, median of {a.steps} steps")
    for name, s in rows:
        print(f"  {name:34s} {s:8.4f} s  {100 * (s / base - 1):+6.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
