#!/usr/bin/env python3
# Which way of writing a per-sample mat-vec is faster in this machine's torch:
# torch.matmul (a batched GEMM of many tiny matrices) or a broadcast multiply
# followed by a sum over the last axis? The --tuned reference variant uses the
# winner for each model's shape; rerun this after changing torch or BLAS.
# Times forward + backward (both operands need gradients, as in training).
#     /usr/bin/python3 bench/reference/matvec_probe.py [--threads 2] [--batch 128]
import argparse
import json
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--reps", type=int, default=200)
    args = p.parse_args()
    try:
        import torch
    except ImportError:
        print(json.dumps({"skipped": "python3-torch is not installed (run bench/setup as root)"}))
        return
    torch.set_num_threads(args.threads)
    B = args.batch
    shapes = {  # state matrix [B, ..., m, n] times vector [B, ..., n]
        "fwp_delta_cde W@k": ((B, 4, 20, 20), (B, 4, 20)),
        "ncde f(z)@dx": ((B, 90, 21), (B, 21)),
        "nrde f(z)@logsig": ((B, 32, 15), (B, 15)),
    }
    ways = {
        "matmul": lambda A, v: torch.matmul(A, v.unsqueeze(-1)).squeeze(-1),
        "broadcast_sum": lambda A, v: (A * v.unsqueeze(-2)).sum(-1),
        "einsum": lambda A, v: torch.einsum("...mn,...n->...m", A, v),
    }
    for name, (sa, sv) in shapes.items():
        row = {"shape": name}
        for way, fn in ways.items():
            A = torch.randn(*sa, requires_grad=True)
            v = torch.randn(*sv, requires_grad=True)
            g = torch.randn(*sa[:-1])
            for _ in range(20):
                fn(A, v).backward(g)
            t0 = time.perf_counter()
            for _ in range(args.reps):
                fn(A, v).backward(g)
            row[way + "_us"] = round((time.perf_counter() - t0) / args.reps * 1e6, 1)
        print(json.dumps(row))


if __name__ == "__main__":
    main()
