#!/usr/bin/env python3
# The overhead of Plastic's Python module (issue 18): one training step of a
# model through plastic.torch.PlasticModule against `plastic bench-train` on
# the same model, batch size, length, dtype, lanes, gradient method and
# threads (torch's own ops on one thread). Not a test: timings on a shared
# machine vary; run it quiet.
#
#   PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--batch 32] [--length 161]
#
# bench-train prepares one synthetic batch once and takes every step on it
# (loss_and_gradient + Adam in C++). The Python steps run, after a warm-up,
# on one random batch of the same shape (the solver takes fixed steps, so
# the values do not change the work):
#   loss            PlasticModule.loss (the model's own loss and gradient) + torch's Adam
#   fwd+bwd         module(x), torch's cross-entropy, backward through the
#                   output VJP (the forward pass's tape kept), torch's Adam
# each on
#   prepared        a PreparedBatch made once (module.prepare), as bench-train
#   cached          the same tensors every step: the module's cache finds them
#   unprepared      preparing the series at every step (cache off): what a
#                   DataLoader yielding new tensors costs; prepare the data set
#                   once and select minibatches (data[idx]) to avoid it
#
# The machine may be shared: the measurement is paired. Each of --rounds
# rounds runs bench-train twice (--steps and 3 x --steps steps) and then
# --steps steps of every Python variant, interleaved step by step. Wall: the
# median over rounds of (the variant's median step) / (bench-train's median
# step in the same round). CPU: seconds of CPU per step of all threads of the
# process (time.process_time) against bench-train's, which is the difference
# of its two runs' CPU time (getrusage of the children) over their 2 x
# --steps extra steps, so its compile and warm-up cancel out. Fastest: the
# fastest of the rounds x --steps steps of each (of bench-train's shorter
# runs). CPU time counts the work; wall time and the fastest step also
# count how the other programs on the machine interrupt the threads.
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

import plastic
import plastic.torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench_train(a, steps):
    """bench-train's median and fastest step (wall seconds), and the CPU seconds of the run."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cli = subprocess.run([a.plastic, "bench-train", a.model, "--batch", str(a.batch), "--length",
                          str(a.length), "--gradient", a.gradient, "--threads", str(a.threads),
                          "--steps", str(steps), "--dtype", a.dtype, "--json"],
                         check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)
    out = json.loads(cli.stdout.strip().splitlines()[-1])
    return out["median_s"], out["min_s"], cpu


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", default=os.path.join(ROOT, "examples", "fwp_delta_cde.ode"))
    p.add_argument("--plastic", default=os.path.join(ROOT, "build", "plastic"))
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--length", type=int, default=161)
    p.add_argument("--gradient", default="direct")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--dtype", default="f32", choices=("f32", "f64"))
    a = p.parse_args()

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
    prepared = module.prepare(x, y=labels, t=t)
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)

    def loss_step(*args):
        def step():
            opt.zero_grad()
            module.loss(*args).backward()
            opt.step()
        return step

    def vjp_step(*args):
        def step():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(module(*args)[:, -1], labels)
            loss.backward()
            opt.step()
        return step

    def uncached(step):
        def run():
            module.cache_batches = 0
            try:
                step()
            finally:
                module.cache_batches = 16
        return run

    rows = [("loss, prepared", loss_step(prepared)),
            ("loss, cached", loss_step(x, labels, t)),
            ("loss, unprepared", uncached(loss_step(x, labels, t))),
            ("fwd+bwd, prepared", vjp_step(prepared)),
            ("fwd+bwd, cached", vjp_step(x, t)),
            ("fwd+bwd, unprepared", uncached(vjp_step(x, t)))]
    for _, step in rows:
        step()  # warm-up
    ratios = {name: [] for name, _ in rows}
    cpu = {name: [] for name, _ in rows}
    fastest = {name: float("inf") for name, _ in rows}
    base_wall, base_cpu, base_fastest = [], 0.0, float("inf")
    for _ in range(a.rounds):
        short, short_min, cpu_short = bench_train(a, a.steps)
        long, _, cpu_long = bench_train(a, 3 * a.steps)
        base_cpu += cpu_long - cpu_short
        base_fastest = min(base_fastest, short_min)  # --steps steps a round, as each variant
        base = (short + long) / 2
        base_wall.append(base)
        wall = {name: [] for name, _ in rows}
        for _ in range(a.steps):
            for name, step in rows:
                start, start_cpu = time.perf_counter(), time.process_time()
                step()
                wall[name].append(time.perf_counter() - start)
                fastest[name] = min(fastest[name], wall[name][-1])
                cpu[name].append(time.process_time() - start_cpu)
        for name, _ in rows:
            ratios[name].append(statistics.median(wall[name]) / base)
    base_cpu /= 2 * a.steps * a.rounds

    print(f"{os.path.basename(a.model)}: batch {a.batch}, length {a.length}, {a.gradient}, "
          f"{a.dtype}, {model.lanes} lanes, {a.threads} threads; {a.rounds} rounds of "
          f"{a.steps} steps, load average {os.getloadavg()[0]:.1f}")
    print(f"  {'':22s} {'wall s':>8s} {'vs b-t':>8s} {'CPU s':>8s} {'vs b-t':>8s} "
          f"{'fastest s':>9s} {'vs b-t':>8s}")
    print(f"  {'plastic bench-train':22s} {statistics.median(base_wall):8.4f} {'':8s} "
          f"{base_cpu:8.4f} {'':8s} {base_fastest:9.4f}")
    for name, _ in rows:
        r = statistics.median(ratios[name])
        c = statistics.median(cpu[name])
        f = fastest[name]
        print(f"  {name:22s} {r * statistics.median(base_wall):8.4f} {100 * (r - 1):+7.1f}% "
              f"{c:8.4f} {100 * (c / base_cpu - 1):+7.1f}% {f:9.4f} "
              f"{100 * (f / base_fastest - 1):+7.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
