# Shared harness of the PyTorch reference: command-line flags, the fairness
# settings (threads, BLAS, allocator), the prelude layers of dsl/prelude.ode
# re-written in torch with the same parameter shapes and initialisers, and the
# timing loop that prints one JSON line per run.
#
# Why the environment is set here, before torch is imported: OpenBLAS reads
# OPENBLAS_NUM_THREADS when it is loaded (torch loads it), and glibc's malloc
# options must be set before the allocations they should govern.
import argparse
import ctypes
import json
import math
import os
import resource
import statistics
import sys
import time


def parse_args(name, gradients=("direct", "adjoint"), default_gradient="direct", extra=None):
    p = argparse.ArgumentParser(description=f"PyTorch reference training step: {name}")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--threads", type=int, default=2, help="torch intra-op threads (OpenBLAS gets 1)")
    p.add_argument("--dtype", choices=("f32", "f64"), default="f32")
    p.add_argument("--steps", type=int, default=10, help="timed training steps")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    p.add_argument("--gradient", choices=gradients, default=default_gradient)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--tuned", dest="tuned", action="store_true",
                   help="broadcast mat-vecs where faster, fused solver updates, foreach Adam, no malloc trimming")
    g.add_argument("--plain", dest="tuned", action="store_false", help="straightforward PyTorch (default)")
    p.set_defaults(tuned=False)
    p.add_argument("--jit", action="store_true",
                   help="with --tuned: the field compiled by torch.jit.script (reference/scripted.py)")
    p.add_argument("--matvec", choices=("auto", "matmul", "broadcast"), default="auto",
                   help="per-sample mat-vec form; auto = matmul when plain, the model's faster form when tuned")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check", action="store_true", help="also print the loss of each step to stderr")
    if extra:
        extra(p)
    args = p.parse_args()
    if args.jit and not args.tuned:
        p.error("--jit scripts the tuned reference's field: give --tuned too")
    return args


def variant(args):
    """The name of the reference variant in the JSON line and the tables."""
    return "jit" if args.jit else "tuned" if args.tuned else "plain"


def setup_environment(args):
    """Applies the fairness settings; returns the torch module or None."""
    # One OpenBLAS thread per torch thread pool: torch parallelises over its own
    # pool (OpenMP); a second pool inside BLAS would oversubscribe the 2 cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    if args.tuned:
        keep_malloc_memory()
        widest_openblas_kernels()
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.set_default_dtype(torch.float32 if args.dtype == "f32" else torch.float64)
    return torch


def widest_openblas_kernels():
    """On a CPU with AVX-512, OpenBLAS's AVX-512 (SkylakeX) kernels.

    Plastic's kernels use 512-bit vectors there, so the tuned reference must
    too. An OPENBLAS_CORETYPE inherited from the environment (this workplace
    exports Haswell, the AVX2 kernels) would hold it back: measured here, the
    gNODE step takes 0.066 s with Haswell kernels and 0.051 s with SkylakeX,
    the NCDE 0.92 s and 0.80 s. Returns the core type chosen, or None."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "")
    except OSError:
        return None
    if " avx512f" in flags and " avx512vl" in flags:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
        return "SkylakeX"
    return None


def keep_malloc_memory():
    """Stops glibc from giving freed memory back to the kernel between steps.

    A training step frees hundreds of MB of saved activations and allocates
    them again in the next step; with glibc's defaults each large block is an
    mmap/munmap pair (page faults and zeroing every step) and the heap top is
    trimmed. Plastic's runtime keeps its buffers, so the tuned reference keeps
    them too."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
    ok = libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)
    ok &= libc.mallopt(M_TOP_PAD, 256 << 20)
    ok &= libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)  # glibc's maximum on 64-bit
    return bool(ok)


def skipped(name, args):
    print(json.dumps({"model": name, "skipped": "python3-torch is not installed (run bench/setup as root)",
                      "variant": variant(args), "gradient": args.gradient}))
    sys.exit(0)


# --- the prelude layers (dsl/prelude.ode), same shapes and initialisers -----

def make_layers(torch):
    nn = torch.nn

    def uniform_fan_in(t, fan_in):
        bound = 1.0 / math.sqrt(fan_in)
        with torch.no_grad():
            t.uniform_(-bound, bound)
        return t

    def glorot_uniform(t):
        # Leading dimensions beyond the last two are batch dimensions (heads):
        # fan-in is the last dimension, fan-out the one before (GRAMMAR.md).
        fan_in = t.shape[-1]
        fan_out = t.shape[-2] if t.dim() >= 2 else t.shape[-1]
        bound = math.sqrt(6.0 / (fan_in + fan_out))
        with torch.no_grad():
            t.uniform_(-bound, bound)
        return t

    class Linear(nn.Module):
        """linear[n_in, n_out]: weight [n_out, n_in], bias [n_out], both U(±1/√n_in)."""

        def __init__(self, n_in, n_out, init="uniform_fan_in", bias=True):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(n_out, n_in))
            if init == "glorot_uniform":
                glorot_uniform(self.weight)
            else:
                uniform_fan_in(self.weight, n_in)
            self.bias = nn.Parameter(uniform_fan_in(torch.empty(n_out), n_in)) if bias else None

        def forward(self, x):
            return torch.nn.functional.linear(x, self.weight, self.bias)

    class LayerNorm(nn.Module):
        """layernorm[d]: layernorm(x) * gain + bias, eps 1e-5, gain 1, bias 0."""

        def __init__(self, d):
            super().__init__()
            self.gain = nn.Parameter(torch.ones(d))
            self.bias = nn.Parameter(torch.zeros(d))
            self.d = d

        def forward(self, x):
            return torch.nn.functional.layer_norm(x, (self.d,), self.gain, self.bias, 1e-5)

    class FFN(nn.Module):
        """ffn[d, d_ff]: x + down(relu(up(norm(x))))."""

        def __init__(self, d, d_ff):
            super().__init__()
            self.norm = LayerNorm(d)
            self.up = Linear(d, d_ff)
            self.down = Linear(d_ff, d)

        def forward(self, x):
            return x + self.down(torch.relu(self.up(self.norm(x))))

    acts = {"relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "none": None}

    class MLP(nn.Module):
        """mlp[n_in, n_out, width, depth, activation, final, init]: `depth` hidden
        layers of `width`, then a linear map to n_out, then `final`. As in
        dsl/layers.cpp, init = glorot_uniform applies to the weights only; the
        biases keep linear's U(±1/√fan_in)."""

        def __init__(self, n_in, n_out, width, depth, activation="relu", final="none", init="uniform_fan_in"):
            super().__init__()
            sizes = [n_in] + [width] * depth + [n_out]
            self.layers = nn.ModuleList(Linear(a, b, init) for a, b in zip(sizes[:-1], sizes[1:]))
            self.act, self.final = acts[activation], acts[final]

        def forward(self, x):
            n = len(self.layers)
            for i, layer in enumerate(self.layers):
                x = layer(x)
                f = self.final if i == n - 1 else self.act
                if f is not None:
                    x = f(x)
            return x

    return dict(Linear=Linear, LayerNorm=LayerNorm, FFN=FFN, MLP=MLP, glorot_uniform=glorot_uniform,
                uniform_fan_in=uniform_fan_in)


def matvec_choice(args, tuned_choice="broadcast"):
    """"matmul" or "broadcast": --matvec, or the model's faster form when tuned."""
    return args.matvec if args.matvec != "auto" else (tuned_choice if args.tuned else "matmul")


def matvec_fn(torch, args, tuned_choice="broadcast"):
    """The per-sample mat-vec [..., m, n] x [..., n] -> [..., m]: torch.matmul
    (a batched GEMM of tiny matrices) or a broadcast multiply and a sum over
    the last axis (see matvec_probe.py for which is faster on a machine)."""
    if matvec_choice(args, tuned_choice) == "matmul":
        return lambda A, v: torch.matmul(A, v.unsqueeze(-1)).squeeze(-1)
    return lambda A, v: (A * v.unsqueeze(-2)).sum(-1)


# --- timing -----------------------------------------------------------------

def run_steps(torch, args, name, model, loss_fn, info=None):
    """Warm-up, then args.steps timed training steps (forward, backward, Adam);
    prints one JSON line with the median seconds per step and peak RSS."""
    # foreach Adam (one kernel per op over all parameters) is the tuned choice;
    # torch 1.13 defaults to the per-parameter loop on CPU.
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=bool(args.tuned))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        opt.step()
        return float(loss.detach())

    for _ in range(args.warmup):
        loss = step()
        if args.check:
            print(f"warm-up loss {loss:.6g}", file=sys.stderr)
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        loss = step()
        times.append(time.perf_counter() - t0)
        if args.check:
            print(f"loss {loss:.6g}  {times[-1]:.4f} s", file=sys.stderr)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB
    out = {
        "model": name,
        "variant": variant(args),
        "gradient": args.gradient,
        "batch": args.batch,
        "threads": args.threads,
        "dtype": args.dtype,
        "steps": args.steps,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "mean_s": statistics.fmean(times),
        "peak_rss_mb": round(rss_mb, 1),
        "params": sum(p.numel() for p in model.parameters()),
        "last_loss": loss,
        "torch": torch.__version__,
        # The 1-minute load average at the end: on a shared machine, a load
        # above the thread count means the numbers are inflated.
        "load_avg": round(os.getloadavg()[0], 2),
        "matvec": args.matvec,
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", "auto"),
    }
    if info:
        out.update(info)
    print(json.dumps(out), flush=True)
