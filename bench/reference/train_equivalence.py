#!/usr/bin/env python3
# Step-for-step equivalence of `plastic train` (f64) with a PyTorch reference.
#
# What is checked. A run made with
#     plastic train MODEL.ode --data DATA --dtype f64 --log-steps --out RUN ...
# leaves in RUN the parameters before the first step (initial.safetensors),
# one line per batch (steps.jsonl: the batch's sample ids "file:line" in
# batch order, mean loss, learning rate, gradient 2-norm before clipping,
# whether the step was taken), the parameters after the last step
# (last.safetensors), the options (run.json) and the preprocessing
# (data.json). This script starts from initial.safetensors and replays the
# run in PyTorch, independently of Plastic's code:
#   * it reads the raw data file(s) named in run.json itself (a minimal UEA
#     .ts reader: no timestamps, no missing values), prepends the time
#     channel (the observation index 0..n-1, as Plastic's .ts reader gives)
#     and normalises with data.json's statistics: time * time_scale, other
#     channels (x - channel_mean) / channel_scale. It also re-fits those
#     statistics on the training set (every sample of epoch 1) the way
#     runtime/data/normalise.cpp defines them (mean, sample std + 1e-5,
#     1 / mean span, unit increments) and checks data.json against them;
#   * the solver runs in the data's own time, shifted to start at 0
#     (PrepareOptions::align_start): knots at 0, 1, ..., n-1, while the time
#     channel's values are scaled by time_scale (so its dx/dt is time_scale);
#   * the control path is torchcde's natural cubic spline (runtime/paths/
#     natural_cubic.cpp; the reference's own paths.NaturalCubic, which solves
#     for second derivatives instead of knot slopes: the same spline);
#   * the fixed-step solver takes exactly Plastic's steps: the grid t0 + j h
#     of runtime/solvers/timeline.h FixedGrid::next, split (never shifted) at
#     the timeline's events, a step ending on an event landing on it exactly
#     (step_end), a stage with c = 1 evaluated at the step's end; the
#     tableau is runtime/solvers/tableau_data.h's. A batch is cut into tiles
#     of L consecutive samples (L = the compiled model's lanes) whose lanes
#     share one timeline: its events are the union of the lanes' end times,
#     so with series of different lengths a lane's grid is split at the ends
#     of the shorter series of its tile (runtime/batch/tile.h says so). L is
#     not recorded in the run (compiler/driver/run_compiled.cpp tile_lanes
#     picks it from the batch, --threads and the CPU): when a batch mixes
#     lengths, train with PLASTIC_LANES=L and pass --lanes L; equal-length
#     data need neither;
#   * the gradient is autograd through every solver step (`gradient direct`;
#     `checkpoint N` gives the same gradient in exact arithmetic, `adjoint`
#     does not and is refused);
#   * the batch loss is the mean of the per-sample losses, the gradient that
#     of the mean (runtime/batch/batch_gradient.cpp);
#   * clipping is torch.nn.utils.clip_grad_norm_ (coefficient
#     max_norm / (norm + 1e-6), applied when < 1: runtime/train/clip.cpp), the
#     optimiser torch.optim.Adam / AdamW / SGD (foreach=False) with run.json's
#     hyper-parameters and Plastic's defaults (AdamW weight decay 1e-2,
#     runtime/train/optimizer.cpp), the schedule stepped once per epoch
#     (runtime/train/train_loop.cpp): constant, cosine over --epochs
#     (lr_schedule.cpp), plateau (factor 0.1, patience 15, torch's
#     ReduceLROnPlateau rules; driven by the reference's own train loss, or by
#     train.jsonl's validation values when there is a validation split, which
#     the reference does not re-evaluate);
#   * the batches are visited exactly as steps.jsonl lists them; a step
#     Plastic did not take (non-finite loss or gradient) is not taken either.
# Per step it compares the loss (relative difference), the learning rate and
# the gradient norm (relative difference); at the end every parameter tensor
# against last.safetensors, measured as
#     max_i |ref_i - plastic_i| / max_i |plastic_i|     (per tensor),
# the largest over tensors reported. Tolerances: loss 1e-8, gradient norm
# 1e-7, parameters 1e-7, learning rate 1e-15 (all relative). It prints a table
# (step, Plastic's loss, the reference's, relative difference, ...) and a JSON
# summary line; exit 0 when everything is within tolerance, 1 otherwise
# (naming the first step that differs), 2 when the run cannot be replayed
# (unsupported model, solver, data or option: the message says which).
#
# Models (--model): a dict of builders keyed by name (MODELS below). Each
# checks that RUN/model.ode has the equations it implements (so a reference
# is never compared with another model) and reads its sizes from the
# parameter shapes.
#   ncde   examples/ncde_character.ode: neural CDE, Morrill et al. (paper 002)
#          Sec. 1.2 Eq. 3 (z(t0) = zeta(x(t0)), readout l(z(T))) solved as the
#          ODE of Eqs. 4-5 (z' = f(z) dX/dt), f an mlp with final tanh.
#   gnode  examples/gnode_character.ode: gated neural ODE, Eq. 1
#          h' = sigmoid(Wz [h, x(t)] + bz) * (F([h, x(t)]) - h) / tau.
#   delta  examples/fwp_delta_cde_character.ode: the Delta-rule CDE fast
#          weight programmer of paper 000, Eqs. 24 + 32 (post-delta field)
#          and Eq. 25 (Delta readout).
# examples/ncde_character.ode as shipped solves with dopri5 and the
# continuous adjoint, which no reference matches to 1e-8; replay a variant
# with `solve rk4 step H` (any fixed-step method) and `gradient direct`.
#
# Run (Debian's python3, which has torch and numpy):
#     sed -e 's/^solve .*/solve rk4 step 0.1/' -e 's/^gradient .*/gradient direct/' \
#         examples/ncde_character.ode > /tmp/eq/ncde_rk4.ode
#     ./build/plastic train /tmp/eq/ncde_rk4.ode --data /tmp/eq/toy_TRAIN.ts --dtype f64 \
#         --epochs 3 --batch 10 --seed 0 --log-steps --no-progress --out /tmp/eq/run_rk4 --force
#     /usr/bin/python3 bench/reference/train_equivalence.py /tmp/eq/run_rk4 --model ncde
# Series of different lengths (e.g. a subset of CharacterTrajectories):
#     PLASTIC_LANES=4 ./build/plastic train ... --out RUN ...
#     /usr/bin/python3 bench/reference/train_equivalence.py RUN --model ncde --lanes 4
# The shipped examples/gnode_character.ode (euler step 1, checkpoint 16) and
# examples/fwp_delta_cde_character.ode (rk4 step 1, direct) replay as they are
# (--model gnode, --model delta). --steps N compares the first N steps only
# (then the final parameters are not compared).
import argparse
import glob
import json
import math
import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LOSS_TOL = 1e-8
GRAD_NORM_TOL = 1e-7
PARAM_TOL = 1e-7
LR_TOL = 1e-15
NORMALISER_TOL = 1e-12


class Refused(Exception):
    """The run cannot be replayed exactly by this reference (exit 2)."""


# --- files ------------------------------------------------------------------

_ST_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}


def read_safetensors(path):
    """{name: np.ndarray}, metadata dict; the safetensors layout: an 8-byte
    little-endian header length, a JSON header, then the raw tensor bytes."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    base = 8 + n
    meta = header.pop("__metadata__", {})
    out = {}
    for name, e in header.items():
        if e["dtype"] not in _ST_DTYPES:
            raise Refused(f"{path}: tensor {name} has dtype {e['dtype']}")
        lo, hi = e["data_offsets"]
        a = np.frombuffer(blob[base + lo:base + hi], dtype=_ST_DTYPES[e["dtype"]])
        out[name] = a.reshape(e["shape"]).astype(np.float64 if e["dtype"].startswith("F") else np.int64)
    return out, meta


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def read_ts(path):
    """A minimal UEA .ts reader: (stem, classes, {line: (values [n, d], label)}).
    Line numbers are 1-based over the whole file, as Plastic's sample ids.
    Refuses timestamps and missing values ('?')."""
    stem = os.path.splitext(os.path.basename(path))[0]
    classes, samples, in_data, dims = [], {}, False, None
    with open(path) as f:
        for number, raw in enumerate(f, start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if not in_data:
                if not line.startswith("@"):
                    raise Refused(f"{path}:{number}: expected a header line")
                key, _, value = line[1:].partition(" ")
                key, value = key.lower(), value.strip()
                if key == "data":
                    in_data = True
                elif key == "timestamps" and value.split()[0].lower() == "true":
                    raise Refused(f"{path}: @timeStamps true is not supported by this reference")
                elif key == "classlabel":
                    words = value.split()
                    if words and words[0].lower() == "true":
                        classes = words[1:]
                elif key == "targetlabel" and value.split()[0].lower() == "true":
                    raise Refused(f"{path}: regression targets are not supported by this reference")
                continue
            fields = line.split(":")
            if not classes:
                raise Refused(f"{path}: no @classLabel: only classification is supported")
            label, fields = fields[-1].strip(), fields[:-1]
            if dims is None:
                dims = len(fields)
            if len(fields) != dims:
                raise Refused(f"{path}:{number}: {len(fields)} dimensions, expected {dims}")
            cols = []
            for fld in fields:
                toks = [t.strip() for t in fld.split(",")]
                if "?" in toks:
                    raise Refused(f"{path}:{number}: missing values ('?') are not supported by this reference")
                cols.append([float(t) for t in toks])
            if len({len(c) for c in cols}) != 1:
                raise Refused(f"{path}:{number}: dimensions of different lengths")
            if label not in classes:
                raise Refused(f"{path}:{number}: unknown class {label!r}")
            samples[number] = (np.array(cols, dtype=np.float64).T.copy(), label)
    return stem, classes, samples


def read_data(run, run_dir, stems):
    """{sample id: (values [n, d], label name)} of the .ts files the run names
    (a file, or a folder's *.ts) whose stems are in `stems`."""
    specs = [run["data"]["spec"]] + ([run["data"]["valid"]] if run["data"].get("valid") else [])
    files = []
    for spec in specs:
        if not os.path.isabs(spec) and not os.path.exists(spec):
            spec = os.path.join(run_dir, spec)
        if os.path.isdir(spec):
            files += sorted(glob.glob(os.path.join(spec, "*.ts")))
        elif spec.endswith(".ts"):
            files.append(spec)
        else:
            raise Refused(f"data {spec!r}: only .ts files or folders of .ts files are supported")
    out, seen = {}, {}
    for path in files:
        if os.path.splitext(os.path.basename(path))[0] not in stems:
            continue
        stem, classes, samples = read_ts(path)
        if stem in seen and seen[stem] != path:
            raise Refused(f"two data files have the stem {stem!r}: sample ids would be ambiguous")
        seen[stem] = path
        for line, s in samples.items():
            out[f"{stem}:{line}"] = s
    return out


# --- the model file ---------------------------------------------------------

def ode_statements(text):
    """The model's lines without comments, whitespace collapsed."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(re.sub(r"\s+", " ", line))
    return out


def find_statement(stmts, pattern, what):
    for s in stmts:
        m = re.fullmatch(pattern, s)
        if m:
            return m
    raise Refused(f"model.ode has no {what} of the form /{pattern}/")


# Fixed-step tableaus of runtime/solvers/tableau_data.h: (A rows, b, c).
TABLEAUS = {
    "euler": ([[]], [1.0], [0.0]),
    "midpoint": ([[], [0.5]], [0.0, 1.0], [0.0, 0.5]),
    "heun": ([[], [1.0]], [0.5, 0.5], [0.0, 1.0]),
    "rk3": ([[], [0.5], [-1.0, 2.0]], [1 / 6, 2 / 3, 1 / 6], [0.0, 0.5, 1.0]),
    "rk4": ([[], [0.5], [0.0, 0.5], [0.0, 0.0, 1.0]], [1 / 6, 1 / 3, 1 / 3, 1 / 6], [0.0, 0.5, 0.5, 1.0]),
    "rk4_38": ([[], [1 / 3], [-1 / 3, 1.0], [1.0, -1.0, 1.0]], [1 / 8, 3 / 8, 3 / 8, 1 / 8],
               [0.0, 1 / 3, 2 / 3, 1.0]),
}


def solver_of(stmts, run):
    m = find_statement(stmts, r"solve (\w+)(.*)", "solve line")
    method, rest = m.group(1), m.group(2).split()
    if method not in TABLEAUS:
        raise Refused(f"solve {method}: only fixed-step methods replay exactly ({', '.join(TABLEAUS)}); "
                      "use e.g. `solve rk4 step H`")
    opts = dict(zip(rest[::2], rest[1::2]))
    if "step" not in opts:
        raise Refused(f"solve {method} without `step H`")
    g = find_statement(stmts, r"gradient (\w+)(.*)", "gradient line").group(1)
    override = run["options"].get("--gradient") or ""
    for name in (g, override.split()[0] if override else ""):
        if name and name not in ("direct", "checkpoint"):
            raise Refused(f"gradient {name}: only direct (or checkpoint) gradients replay exactly")
    return method, float(opts["step"])


# --- Plastic's step grid ----------------------------------------------------

def grid_next(t0, h, t, limit):
    """runtime/solvers/timeline.h FixedGrid::next."""
    j = math.floor((t - t0) / h + 1e-9) + 1
    g = t0 + j * h
    if g <= t:
        g = t0 + (j + 1) * h
    return limit if g >= limit - 1e-9 * h else g


def merge_events(times):
    """Sorted event times merged as build_timeline does: within
    1e-13 * max(1, |t|) of the previous one is the same event."""
    out = []
    for t in times:
        if out and t - out[-1] <= 1e-13 * max(1.0, abs(out[-1]), abs(t)):
            out[-1] = t  # a lane end keeps its exact time
            continue
        out.append(t)
    return out


def plastic_steps(t0, events, h):
    """The (t, h, t1) of every step of Plastic's fixed-step integrator from t0
    through the sorted event times (Integrator::fixed_step, step_end)."""
    steps, t = [], t0
    for target in events:
        while t != target:
            hh = grid_next(t0, h, t, target) - t
            t1 = target if hh == target - t else t + hh
            steps.append((t, hh, t1))
            t = t1
    return steps


# --- preprocessing ----------------------------------------------------------

def preprocess(raw, prep):
    """Time channel (the .ts observation index, not shifted), then the recorded
    normaliser: time * time_scale, others (x - mean) / scale."""
    n = raw.shape[0]
    x = raw
    if prep["time_channel"]:
        x = np.concatenate([np.arange(n, dtype=np.float64)[:, None], raw], axis=1)
    norm = prep["normaliser"]
    if norm is not None:
        x = x.copy()
        for k in range(x.shape[1]):
            if prep["time_channel"] and k == 0:
                x[:, k] = x[:, k] * norm["time_scale"]
            else:
                x[:, k] = (x[:, k] - norm["channel_mean"][k]) / norm["channel_scale"][k]
    return x


def refit_normaliser(train_raw, prep, epsilon=1e-5):
    """runtime/data/normalise.cpp fit_normaliser on the training samples
    (raw values [n, d] in data-set order), to check data.json against."""
    tc = 1 if prep["time_channel"] else 0
    d = train_raw[0].shape[1]
    mean, scale = [0.0] * tc, [1.0] * tc
    for k in range(d):
        col = np.concatenate([s[:, k] for s in train_raw])
        m = float(col.sum() / col.size)
        mean.append(m)
        scale.append(math.sqrt(float(((col - m) ** 2).sum()) / (col.size - 1)) + epsilon
                     if col.size >= 2 else 1.0)
    out = {"channel_mean": mean, "channel_scale": scale}
    if tc:
        spans = [s.shape[0] - 1.0 for s in train_raw if s.shape[0] >= 2]
        ms = sum(spans) / len(spans) if spans else 0.0
        out["time_scale"] = 1.0 / ms if ms > 0 else 1.0
    rms = 1.0
    if prep["normaliser"] and prep["normaliser"].get("increment_rms", 1.0) != 1.0:
        sq, cnt = 0.0, 0
        for k in range(d):
            for s in train_raw:
                step = np.diff(s[:, k]) / scale[tc + k]
                sq += float((step * step).sum())
                cnt += step.size
        rms = math.sqrt(sq / cnt) if cnt else 1.0
        for k in range(d):
            scale[tc + k] *= rms
    out["increment_rms"] = rms
    return out


def rel(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(b), 1e-300)


# --- models -----------------------------------------------------------------

class Model:
    """A model builder. `equations` are regexes that model.ode (comments
    stripped, whitespace collapsed to one space) must contain, so that the
    reference is never compared with another model; `P` maps Plastic's tensor
    names to torch leaves, which the builder's layers read directly."""
    equations = []

    def __init__(self, torch, common, stmts, params):
        self.torch, self.common, self.stmts, self.P = torch, common, stmts, params
        self.text = " ".join(stmts)
        for pattern in self.equations:
            if not re.search(pattern, self.text):
                raise Refused(f"model.ode is not the {type(self).__name__} model: no /{pattern}/")

    def const(self, name):
        m = re.search(rf"\bconst {name} = ([-+0-9.eE]+)", self.text)
        if not m:
            raise Refused(f"model.ode has no `const {name} = NUMBER`")
        return float(m.group(1))

    def bind(self, module, prefix, names):
        """Makes module's parameters the tensors of P (Plastic's names)."""
        for torch_name, plastic_name in names.items():
            owner = module
            *path, leaf = torch_name.split(".")
            for p in path:
                owner = getattr(owner, p) if not p.isdigit() else owner[int(p)]
            t = self.P[prefix + plastic_name]
            if tuple(getattr(owner, leaf).shape) != tuple(t.shape):
                raise Refused(f"{prefix}{plastic_name}: shape {tuple(t.shape)}, the reference "
                              f"expects {tuple(getattr(owner, leaf).shape)}")
            setattr(owner, leaf, t)  # an nn.Parameter: the module now reads Plastic's tensor

    def mlp(self, name):
        """`param name : mlp[...]` of dsl/layers.cpp synthesize_mlp (depth hidden
        layers of width, then a linear map to n_out; `activation` between,
        `final` after), as common.make_layers' MLP over Plastic's tensors
        name.layer{i}.weight / .bias."""
        decl = find_statement(self.stmts, rf"param {name} : (mlp\[.*\])", f"mlp {name}").group(1)
        prefix = name + "."
        act = re.search(r"activation = (\w+)", decl)
        fin = re.search(r"final = (\w+)", decl)
        act, fin = act.group(1) if act else "relu", fin.group(1) if fin else "none"
        for a in (act, fin):
            if a not in ("relu", "tanh", "sigmoid", "none"):
                raise Refused(f"mlp activation {a} is not in the reference")
        layers = sorted(int(k[len(prefix) + 5:].split(".")[0]) for k in self.P
                        if k.startswith(prefix + "layer") and k.endswith(".weight"))
        if layers != list(range(len(layers))) or not layers:
            raise Refused(f"{prefix}: expected tensors {prefix}layer0..N")
        sizes = [self.P[f"{prefix}layer0.weight"].shape[1]] + \
                [self.P[f"{prefix}layer{i}.weight"].shape[0] for i in layers]
        width = sizes[1] if len(layers) > 1 else 1
        if any(s != width for s in sizes[1:-1]):
            raise Refused(f"{prefix}: hidden layers of different widths")
        L = self.common.make_layers(self.torch)
        m = L["MLP"](sizes[0], sizes[-1], width, len(layers) - 1, act, fin)
        names = {}
        for i in layers:
            names[f"layers.{i}.weight"] = f"layer{i}.weight"
            names[f"layers.{i}.bias"] = f"layer{i}.bias"
        self.bind(m, prefix, names)
        return m

    def linear(self, name):
        """linear[n_in, n_out] of dsl/prelude.ode: x W^T + b (common's Linear)."""
        W = self.P[name + ".weight"]
        m = self.common.make_layers(self.torch)["Linear"](W.shape[1], W.shape[0])
        self.bind(m, name + ".", {"weight": "weight", "bias": "bias"})
        return m

    def ffn(self, name):
        """ffn[d, d_ff] of dsl/prelude.ode: x + down(relu(up(layernorm(x) * gain + bias)))
        with layernorm's eps 1e-5 (common's FFN)."""
        d_ff, d = self.P[name + ".up.weight"].shape
        m = self.common.make_layers(self.torch)["FFN"](d, d_ff)
        self.bind(m, name + ".", {k: k for k in ("norm.gain", "norm.bias", "up.weight", "up.bias",
                                                 "down.weight", "down.bias")})
        return m


class NCDE(Model):
    """examples/ncde_character.ode: the neural CDE of Morrill et al. (paper 002)
    Sec. 1.2, Eq. 3 (z(t0) = zeta(x(t0)), Y = l(z(T))) solved as the ODE of
    Eqs. 4-5: z' = reshape(f(z), [hidden, d_in]) @ dx/dt(t); cross-entropy."""
    equations = [
        r"input x : path\[\w+\] cubic with time",
        r"param zeta : linear\[",
        r"param out : linear\[",
        r"state z : \[\w+\] = zeta\(x\(t0\)\)",
        r"flow z' = reshape\(f\(z\), \[\w+, \w+\]\) @ dx\(t\)(?= |$)",
        r"output logits = out\(z\(T\)\)(?= |$)",
        r"loss cross_entropy\(logits, y\)",
    ]

    def __init__(self, torch, common, stmts, params):
        super().__init__(torch, common, stmts, params)
        self.f = self.mlp("f")
        self.zeta, self.out = self.linear("zeta"), self.linear("out")
        self.hidden, self.d_in = params["zeta.weight"].shape
        if params["f.layer0.weight"].shape[1] != self.hidden or \
                self.f.layers[-1].weight.shape[0] != self.hidden * self.d_in:
            raise Refused("f is not mlp[hidden, hidden * d_in, ...]")
        self.matvec = common.matvec_fn(torch, argparse.Namespace(matvec="matmul", tuned=False))

    def initial_state(self, path):
        return self.zeta(path.evaluate(path.knots[0]))

    def field(self, t, z, path):
        return self.matvec(self.f(z).view(z.shape[0], self.hidden, self.d_in), path.derivative(t))

    def logits(self, zT, path):
        return self.out(zT)


class GNODE(Model):
    """examples/gnode_character.ode: the gated neural ODE, Eq. 1,
    h' = sigmoid(Wz [h, x(t)] + bz) * (F([h, x(t)]) - h) / tau, h(t0) = h0(x(t0)),
    logits = out(h(T)); cross-entropy. (Its `gradient checkpoint 16`
    recomputes the same steps: the gradient is the direct one.)"""
    equations = [
        r"input x : path\[\w+\] cubic with time",
        r"param Wz : \[\w+, \w+\]",
        r"param bz : \[\w+\]",
        r"param h0 : linear\[",
        r"param out : linear\[",
        r"state h : \[\w+\] = h0\(x\(t0\)\)",
        r"flow h' = let hx = concat\(h, x\(t\)\) sigmoid\(Wz @ hx \+ bz\) \* \(F\(hx\) - h\) / tau(?= |$)",
        r"output logits = out\(h\(T\)\)(?= |$)",
        r"loss cross_entropy\(logits, y\)",
    ]

    def __init__(self, torch, common, stmts, params):
        super().__init__(torch, common, stmts, params)
        self.F = self.mlp("F")
        self.h0, self.out = self.linear("h0"), self.linear("out")
        self.Wz, self.bz, self.tau = params["Wz"], params["bz"], self.const("tau")

    def initial_state(self, path):
        return self.h0(path.evaluate(path.knots[0]))

    def field(self, t, h, path):
        hx = self.torch.cat([h, path.evaluate(t)], dim=-1)
        gate = self.torch.sigmoid(self.torch.nn.functional.linear(hx, self.Wz, self.bz))
        return gate * (self.F(hx) - h) / self.tau

    def logits(self, hT, path):
        return self.out(hT)


class DeltaCDE(Model):
    """examples/fwp_delta_cde_character.ode: the Delta-rule CDE fast weight
    programmer of paper 000 (Eqs. 24 + 32, post-delta; Eq. 25, Delta readout):
        beta = beta_scale * sigmoid(Wb u), u = x(t);  k = softmax(Wk dx/dt(t))
        W' = beta * outer(tanh(Wv u - W k), k),  W(t0) = 0   (per head)
        logits = out(ff(reshape(W(T) softmax(Wq dx/dt(T)), [d_model]))).
    softmax over each head's d_head entries."""
    equations = [
        r"input x : path\[\w+\] cubic with time",
        r"param Wb : \[\w+, \w+\]",
        r"param ff : ffn\[",
        r"param out : linear\[",
        r"state W : \[\w+, \w+, \w+\] = 0(?= |$)",
        r"flow W' = let u = x\(t\) let beta = reshape\(beta_scale \* sigmoid\(Wb @ u\), \[\w+, 1, 1\]\) "
        r"let k = softmax\(Wk @ dx\(t\)\) beta \* outer\(tanh\(Wv @ u - W @ k\), k\)(?= |$)",
        r"output logits = let q = softmax\(Wq @ dx\(T\)\) out\(ff\(reshape\(W\(T\) @ q, \[\w+\]\)\)\)(?= |$)",
        r"loss cross_entropy\(logits, y\)",
    ]

    def __init__(self, torch, common, stmts, params):
        super().__init__(torch, common, stmts, params)
        self.Wb, self.Wk, self.Wv, self.Wq = (params[k] for k in ("Wb", "Wk", "Wv", "Wq"))
        self.heads, self.d_head, self.d_in = self.Wk.shape
        self.ff, self.out = self.ffn("ff"), self.linear("out")
        self.beta_scale = self.const("beta_scale")

    def initial_state(self, path):
        B = path.a.shape[1]
        return self.torch.zeros(B, self.heads, self.d_head, self.d_head)

    def field(self, t, W, path):
        torch = self.torch
        u, du = path.evaluate(t), path.derivative(t)                       # [B, d_in]
        beta = (self.beta_scale * torch.sigmoid(torch.einsum("hi,bi->bh", self.Wb, u)))[..., None, None]
        k = torch.softmax(torch.einsum("hdi,bi->bhd", self.Wk, du), dim=-1)  # [B, heads, d_head]
        v = torch.einsum("hdi,bi->bhd", self.Wv, u)
        Wk = torch.einsum("bhde,bhe->bhd", W, k)
        return beta * torch.tanh(v - Wk)[..., :, None] * k[..., None, :]

    def logits(self, WT, path):
        torch = self.torch
        q = torch.softmax(torch.einsum("hdi,bi->bhd", self.Wq, path.derivative(path.knots[-1])), dim=-1)
        r = torch.einsum("bhde,bhe->bhd", WT, q).reshape(WT.shape[0], self.heads * self.d_head)
        return self.out(self.ff(r))


MODELS = {"ncde": NCDE, "gnode": GNODE, "delta": DeltaCDE}


# --- the replay -------------------------------------------------------------

def rk_step(field, t, h, t1, z, tableau):
    """One explicit RK step as runtime/solvers/rk_stepper.cpp: stage i at
    t + c_i h, except c_i = 1 at the step's end t1."""
    A, b, c = tableau
    ks = []
    for i in range(len(b)):
        y = z
        terms = [a * k for a, k in zip(A[i], ks) if a != 0.0]
        if terms:
            y = z + h * sum(terms[1:], terms[0])
        ks.append(field(t1 if c[i] == 1.0 else t + c[i] * h, y))
    terms = [bi * k for bi, k in zip(b, ks) if bi != 0.0]
    return z + h * sum(terms[1:], terms[0])


class Schedule:
    """The learning rate of each epoch (runtime/train/lr_schedule.cpp,
    plateau.cpp; app/train_app.cpp schedule_config)."""

    def __init__(self, kind, base, epochs):
        self.kind, self.base, self.epochs = kind, base, max(epochs, 1)
        self.k, self.lr_now = 0, base
        self.best, self.bad = math.inf, 0
        self.mode = "min"

    def lr(self):
        if self.kind == "cosine":
            if self.k >= self.epochs:
                return 0.0
            return 0.0 + (self.base - 0.0) * (1.0 + math.cos(math.pi * (self.k / self.epochs))) / 2.0
        return self.lr_now

    def step(self, metric):
        self.k += 1
        if self.kind != "plateau":
            return
        if self.k == 1 and self.mode == "max":
            self.best = -math.inf
        thr = 1e-4  # torch ReduceLROnPlateau defaults: rel threshold, cooldown 0, min_lr 0, eps 1e-8
        better = metric < self.best * (1 - thr) if self.mode == "min" else metric > self.best * (1 + thr)
        if better:
            self.best, self.bad = metric, 0
        else:
            self.bad += 1
        if self.bad > 15:
            new = max(self.lr_now * 0.1, 0.0)
            if self.lr_now - new > 1e-8:
                self.lr_now = new
            self.bad = 0


def main():
    ap = argparse.ArgumentParser(description="Replays a `plastic train --log-steps` run (f64) in PyTorch "
                                             "and compares it step for step (see the file's header).")
    ap.add_argument("run_dir")
    ap.add_argument("--model", choices=sorted(MODELS), required=True)
    ap.add_argument("--steps", type=int, default=None, help="compare only the first N steps")
    ap.add_argument("--quiet", action="store_true", help="no per-step table")
    ap.add_argument("--lanes", type=int, default=None,
                    help="the tile width L the run used (train it with PLASTIC_LANES=L); needed when a "
                         "batch mixes series lengths")
    args = ap.parse_args()
    try:
        return replay(args)
    except Refused as e:
        print(f"train_equivalence: cannot replay {args.run_dir}: {e}", file=sys.stderr)
        print(json.dumps({"run": args.run_dir, "model": args.model, "ok": False, "refused": str(e)}))
        return 2


def replay(args):
    import torch
    import common
    import paths
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)
    R = args.run_dir
    for name in ("run.json", "data.json", "model.ode", "initial.safetensors", "steps.jsonl"):
        if not os.path.exists(os.path.join(R, name)):
            raise Refused(f"{name} is missing (train with --log-steps)")
    run = json.load(open(os.path.join(R, "run.json")))
    prep = json.load(open(os.path.join(R, "data.json")))
    stmts = ode_statements(open(os.path.join(R, "model.ode")).read())
    steps = read_jsonl(os.path.join(R, "steps.jsonl"))
    if not steps or steps[0]["epoch"] != 1 or steps[0]["batch"] != 0:
        raise Refused("steps.jsonl does not start at epoch 1, batch 0")
    opts = run["options"]
    if run["model"]["dtype"] != "f64":
        raise Refused("the run is not f64 (--dtype f64): the tolerances are for f64")
    if prep.get("observational_intensity") or opts.get("--oi"):
        raise Refused("observational-intensity channels are not supported")
    if prep.get("data_flags"):
        raise Refused(f"data flags {prep['data_flags']} are not supported")
    if opts.get("--folds", 0):
        raise Refused("cross-validation runs are not supported")
    method, H = solver_of(stmts, run)

    # Data and preprocessing.
    data = read_data(run, R, {s.rsplit(":", 1)[0] for st in steps for s in st["samples"]})
    classes = prep["classes"]
    if len(prep["channels"]) != prep["raw_channels"] + (1 if prep["time_channel"] else 0):
        raise Refused("data.json: channel count and raw_channels disagree")
    missing = sorted({s for st in steps for s in st["samples"] if s not in data})
    if missing:
        raise Refused(f"steps.jsonl names samples not in the data: {missing[:5]}")
    checks = []  # (name, ok, detail)
    train_ids = [s for st in steps if st["epoch"] == 1 for s in st["samples"]]
    if len(set(train_ids)) != len(train_ids):
        checks.append(("epoch 1 visits each training sample once", False, "a sample repeats"))
    for e in sorted({st["epoch"] for st in steps}):
        ids = [s for st in steps if st["epoch"] == e for s in st["samples"]]
        if e < steps[-1]["epoch"] and sorted(ids) != sorted(train_ids):
            checks.append((f"epoch {e} visits the training set", False, "another set of samples"))
        sizes = [len(st["samples"]) for st in steps if st["epoch"] == e]
        want = opts.get("--batch")
        if want and any(n != want for n in sizes[:-1]):
            checks.append((f"epoch {e} batch sizes", False, f"{sizes} for --batch {want}"))
    # data.json against statistics re-fitted on the training set (data-set order).
    if prep["normaliser"] is not None:
        def order(i):
            stem, line = i.rsplit(":", 1)
            return stem, int(line)
        train_raw = [data[i][0] for i in sorted(set(train_ids), key=order)]
        fit = refit_normaliser(train_raw, prep)
        worst = 0.0
        for key in ("channel_mean", "channel_scale"):
            for a, b in zip(fit[key], prep["normaliser"][key]):
                worst = max(worst, abs(a - b) / max(abs(b), 1.0))
        for key in ("time_scale", "increment_rms"):
            if key in fit:
                worst = max(worst, rel(fit[key], prep["normaliser"][key]))
        checks.append(("data.json normaliser = statistics of the training samples", worst <= NORMALISER_TOL,
                       f"max rel diff {worst:.2e}"))

    def batch_groups(ids):
        """The batch as groups of samples that take the same solver steps:
        [(ids, path, labels, steps)]. Each series runs from its first time
        (0 after align_start) to its last, n - 1. The events of a tile of L
        lanes (consecutive samples of the batch, batch_gradient.cpp) are the
        union of its lanes' end times (each also the final readout's
        observation), and a lane steps on the grid split by every event
        before its own end (timeline.h); no path knots (a natural cubic
        spline is C2: prepared_data.cpp)."""
        raws = [data[i][0] for i in ids]
        for r in raws:
            if r.shape[1] != prep["raw_channels"]:
                raise Refused(f"the data have {r.shape[1]} channels, data.json {prep['raw_channels']}")
        ends = [float(r.shape[0] - 1) for r in raws]
        if len(set(ends)) > 1 and not args.lanes:
            raise Refused(f"a batch mixes series lengths {sorted(set(int(e) + 1 for e in ends))}: a tile's "
                          "lane ends split the other lanes' steps, so the replay needs the tile width: "
                          "train with PLASTIC_LANES=L and pass --lanes L")
        L = args.lanes or len(ids)
        groups = {}
        for j, i in enumerate(ids):
            tile = ends[(j // L) * L:(j // L + 1) * L]
            events = merge_events(sorted(set(tile)))
            mine = tuple(e for e in events if e <= ends[j])
            groups.setdefault((raws[j].shape[0], mine), []).append(j)
        out = []
        for (n, events), members in groups.items():
            values = torch.tensor(np.stack([preprocess(raws[j], prep) for j in members]))
            labels = torch.tensor([classes.index(data[ids[j]][1]) for j in members])
            knots = [float(k) for k in range(n)]  # the .ts times 0..n-1, shifted by times[0] = 0
            out.append(([ids[j] for j in members], paths.NaturalCubic(torch, knots, values), labels,
                        plastic_steps(0.0, list(events), H)))
        return out

    # Parameters.
    init, _ = read_safetensors(os.path.join(R, "initial.safetensors"))
    P = {k: torch.nn.Parameter(torch.tensor(v)) for k, v in init.items()}
    model = MODELS[args.model](torch, common, stmts, P)
    params = list(P.values())

    # Optimiser and schedule.
    kind, lr = opts.get("--optimizer", "adam"), float(opts.get("--lr", 1e-3))
    wd = opts.get("--weight-decay", -1.0)
    wd = None if wd is None or wd < 0 else float(wd)
    if kind == "adam":
        opt = torch.optim.Adam(params, lr=lr, weight_decay=wd or 0.0, foreach=False)
    elif kind == "adamw":
        opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-2 if wd is None else wd, foreach=False)
    elif kind == "sgd":
        opt = torch.optim.SGD(params, lr=lr, momentum=float(opts.get("--momentum", 0.0)),
                              weight_decay=wd or 0.0, foreach=False)
    else:
        raise Refused(f"optimizer {kind}")
    sched_kind = opts.get("--schedule", "constant")
    if sched_kind not in ("constant", "cosine", "plateau"):
        raise Refused(f"schedule {sched_kind}")
    sched = Schedule(sched_kind, lr, int(opts.get("--epochs", 30)))
    clip = float(opts.get("--clip", 0.0) or 0.0)
    epochs_log = {r["epoch"]: r for r in read_jsonl(os.path.join(R, "train.jsonl"))} \
        if os.path.exists(os.path.join(R, "train.jsonl")) else {}
    if sched_kind == "plateau":
        select = opts.get("--select", "loss")
        if select not in ("loss",):
            sched.mode = "max"

    tableau = TABLEAUS[method]
    limit = len(steps) if args.steps is None else min(args.steps, len(steps))
    rows, first_bad = [], None
    worst = {"loss": 0.0, "grad_norm": 0.0, "lr": 0.0}
    epoch, epoch_loss, epoch_n = 1, 0.0, 0
    for i, st in enumerate(steps[:limit]):
        while st["epoch"] > epoch:  # end of epoch: the schedule steps once
            rec = epochs_log.get(epoch, {})
            if sched_kind == "plateau":
                if "valid_loss" in rec and rec["valid_loss"] is not None:
                    metric = rec["valid_loss"] if sched.mode == "min" else rec.get("valid_metric")
                else:
                    metric = epoch_loss / epoch_n if epoch_n else math.nan
                sched.step(metric)
            else:
                sched.step(None)
            epoch, epoch_loss, epoch_n = epoch + 1, 0.0, 0
        lr_now = sched.lr()
        for g in opt.param_groups:
            g["lr"] = lr_now
        opt.zero_grad(set_to_none=True)
        loss_sum, solver_steps = 0.0, 0
        for _, path, labels, grid in batch_groups(st["samples"]):
            z = model.initial_state(path)
            f = lambda t, y: model.field(t, y, path)  # noqa: E731
            for (t, h, t1) in grid:
                z = rk_step(f, t, h, t1, z, tableau)
            logits = model.logits(z, path)
            loss_sum = loss_sum + torch.nn.functional.cross_entropy(logits, labels, reduction="sum")
            solver_steps = max(solver_steps, len(grid))
        loss = loss_sum / len(st["samples"])  # the mean over the batch's target terms
        loss.backward()
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
        norm = float(torch.sqrt(sum((g * g).sum() for g in grads)))
        ref_loss = float(loss)
        finite = math.isfinite(ref_loss) and math.isfinite(norm)
        p_loss = st["loss"] if st["loss"] is not None else math.nan
        p_norm = st["grad_norm"] if st["grad_norm"] is not None else math.nan
        d_loss = rel(ref_loss, p_loss) if finite else (0.0 if not math.isfinite(p_loss) else math.inf)
        d_norm = rel(norm, p_norm) if finite else (0.0 if not math.isfinite(p_norm) else math.inf)
        d_lr = rel(lr_now, st["lr"])
        worst["loss"], worst["grad_norm"], worst["lr"] = (max(worst["loss"], d_loss),
                                                          max(worst["grad_norm"], d_norm),
                                                          max(worst["lr"], d_lr))
        bad = []
        if not d_loss <= LOSS_TOL:
            bad.append("loss")
        if not d_norm <= GRAD_NORM_TOL:
            bad.append("grad_norm")
        if not d_lr <= LR_TOL:
            bad.append("lr")
        if st["taken"] != finite:
            bad.append("taken")
        if bad and first_bad is None:
            first_bad = {"step": i, "epoch": st["epoch"], "batch": st["batch"], "what": bad}
        rows.append((i, st["epoch"], st["batch"], p_loss, ref_loss, d_loss, d_norm, st["lr"], lr_now,
                     solver_steps, "" if not bad else "DIFF " + ",".join(bad)))
        if not args.quiet:
            r = rows[-1]
            if i == 0:
                print(f"{'step':>4} {'ep':>3} {'b':>3} {'plastic loss':>22} {'reference loss':>22} "
                      f"{'loss rel':>9} {'gnorm rel':>9} {'lr':>9} {'solver':>6}")
            print(f"{r[0]:4d} {r[1]:3d} {r[2]:3d} {r[3]:22.16g} {r[4]:22.16g} {r[5]:9.2e} {r[6]:9.2e} "
                  f"{r[7]:9.3g} {r[9]:6d} {r[10]}")
        if st["taken"]:  # Plastic steps on finite loss and gradient only
            if clip > 0:
                torch.nn.utils.clip_grad_norm_(params, clip)
            opt.step()
            epoch_loss += ref_loss * len(st["samples"])
            epoch_n += len(st["samples"])

    # Parameters after the last step.
    param_cmp = None
    if limit == len(steps) and os.path.exists(os.path.join(R, "last.safetensors")):
        last, _ = read_safetensors(os.path.join(R, "last.safetensors"))
        per = {}
        for k, v in last.items():
            ref = P[k].detach().numpy()
            scale = float(np.abs(v).max()) or 1.0
            per[k] = float(np.abs(ref - v).max()) / scale
        name = max(per, key=per.get)
        param_cmp = {"max_rel": per[name], "tensor": name, "per_tensor": per}
        if set(last) != set(P):
            checks.append(("last.safetensors has the initial tensors", False, f"{sorted(set(last) ^ set(P))}"))
    elif limit == len(steps):
        checks.append(("last.safetensors exists", False, "missing"))

    ok = first_bad is None and all(c[1] for c in checks) and \
        (param_cmp is None or param_cmp["max_rel"] <= PARAM_TOL)
    print()
    for name, good, detail in checks:
        print(f"{'ok  ' if good else 'FAIL'} {name}: {detail}")
    print(f"steps compared: {limit} of {len(steps)}; solver {method} step {H:g}, "
          f"{rows[-1][9] if rows else 0} steps per solve")
    print(f"max rel diff: loss {worst['loss']:.2e} (tol {LOSS_TOL:g}), grad norm {worst['grad_norm']:.2e} "
          f"(tol {GRAD_NORM_TOL:g}), lr {worst['lr']:.2e}")
    if param_cmp:
        print(f"parameters after the last step: max over tensors of max|ref - plastic| / max|plastic| = "
              f"{param_cmp['max_rel']:.2e} ({param_cmp['tensor']}; tol {PARAM_TOL:g})")
    elif limit < len(steps):
        print("parameters not compared: --steps stops before the last step")
    if first_bad:
        print(f"first step that differs: step {first_bad['step']} (epoch {first_bad['epoch']}, batch "
              f"{first_bad['batch']}): {', '.join(first_bad['what'])}")
    summary = {"run": R, "model": args.model, "ok": ok, "steps": limit, "solver": f"{method} step {H:g}",
               "max_rel_loss": worst["loss"], "max_rel_grad_norm": worst["grad_norm"],
               "max_rel_lr": worst["lr"],
               "max_rel_params": param_cmp["max_rel"] if param_cmp else None,
               "worst_param_tensor": param_cmp["tensor"] if param_cmp else None,
               "first_difference": first_bad,
               "checks": {c[0]: c[1] for c in checks}}
    print(json.dumps(summary))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
