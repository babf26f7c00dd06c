#!/usr/bin/env python3
"""Result lines and tables of the comparison scripts (standard library only).

The scripts that compare models over seeds (tanks_sii.sh, flipflop_gating.sh)
train one run folder per model x seed and need, for each, one JSON line with
what the run reached, then mean +- std per model over the seeds. This file
does both, so each script does not carry its own copy:

  results.py record RUN_DIR KEY=VALUE...   one JSON line on stdout: the keys
      given (model, init, solver, step, seed, seconds, status ...; numbers are
      kept as numbers) and what the run folder holds: epochs, best_epoch,
      first/final train loss, best/final validation loss, the median wall
      seconds of an epoch (train.jsonl; compilation excluded) and the
      summary's kept epoch (kept_epoch, as --select chose it) and
      validation/test loss and metrics (summary.json, absent when training
      stopped, e.g. diverged).
  results.py table FILE.jsonl --by k1,k2 --metric KEY [--dat DIR]
      a Markdown table: per group, mean +- std (the value alone for one run)
      and median of KEY over the runs that finished (failed runs are
      counted, not averaged), the number of runs and of failed ones, the
      mean wall time;
      --dat DIR also writes, per group of all keys but the last, DIR/<group>.dat:
      the last key, mean, std, median, finished and failed runs, for gnuplot.
  results.py compare FILE.jsonl --metric KEY --better A=V --worse B=V [--by k] [--where k=v]
      exit 1 unless, on the same seeds (and --by groups), the runs with A=V
      have a lower mean KEY than those with B=V (a run that failed counts as
      worse than any finished one); --where keeps only the runs with k=v;
      used by the slow CTest checks.
  results.py below FILE.jsonl --metric KEY --than A=V
      exit 1 unless every other run finished with KEY below that of the
      line with A=V (a baseline such as persistence, one line).
  results.py improved FILE.jsonl [--loss train]
      exit 1 unless every run finished and its best validation loss is below
      its first epoch's (training did something); --loss train: its last
      epoch's training loss below its first (for validation splits of a few
      samples, whose loss says little about a handful of epochs).
  results.py curves OUT.dat RUN_DIR...
      the learning curves of runs of one model, for gnuplot: per epoch, the
      mean training and validation loss over the runs that reached it, and
      how many did.
  results.py merge FILE.jsonl NEW.jsonl --key k1,k2
      replaces, in FILE, the lines whose k1,k2... values equal those of a
      line of NEW by that line (in FILE's order) and appends the other lines
      of NEW: a script re-running some of its cells (MERGE=1) updates their
      results and keeps the others'.
"""
import json
import math
import statistics
import sys
from pathlib import Path


def number_or_text(text):
    try:
        v = float(text)
        return int(v) if v.is_integer() and "." not in text and "e" not in text.lower() else v
    except ValueError:
        return text


def finite_or_none(v):
    return v if isinstance(v, (int, float)) and math.isfinite(v) else None


def record(run_dir, pairs):
    line = {}
    for p in pairs:
        key, _, value = p.partition("=")
        line[key] = number_or_text(value)
    run = Path(run_dir)
    epochs = []
    log = run / "train.jsonl"
    if log.exists():
        for text in log.read_text().splitlines():
            try:
                e = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(e, dict) and "epoch" in e:
                epochs.append(e)
    train = [finite_or_none(e.get("train_loss")) for e in epochs]
    valid = [finite_or_none(e.get("valid_loss")) for e in epochs]
    finite_valid = [v for v in valid if v is not None]
    line["epochs"] = len(epochs)
    line["first_train_loss"] = train[0] if train else None
    line["final_train_loss"] = train[-1] if train else None
    line["first_valid_loss"] = valid[0] if valid else None
    line["best_valid_loss"] = min(finite_valid) if finite_valid else None
    line["best_epoch"] = valid.index(min(finite_valid)) + 1 if finite_valid else None
    line["final_valid_loss"] = valid[-1] if valid else None
    # The median, not the mean: the first epoch also pays for warm-up.
    secs = [s for s in (finite_or_none(e.get("seconds")) for e in epochs) if s is not None]
    line["epoch_seconds"] = statistics.median(secs) if secs else None
    summary = run / "summary.json"
    if summary.exists():
        s = json.loads(summary.read_text())
        line["skipped_steps"] = s.get("skipped_steps", 0)
        # The epoch the run kept (by --select; best_epoch above is the
        # lowest validation loss's, whatever the run selected by).
        line["kept_epoch"] = s.get("best_epoch")
        for split in ("validation", "test"):
            if split in s:
                for k, v in s[split].items():
                    if k != "samples":
                        line[f"{split}_{k}"] = finite_or_none(v)
    print(json.dumps(line))


def read_lines(path):
    return [json.loads(t) for t in Path(path).read_text().splitlines() if t.strip()]


def value_of(line, metric):
    if line.get("status", "ok") != "ok":
        return None
    return finite_or_none(line.get(metric))


def mean_std(values):
    if not values:
        return None, None
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def sort_key(key):
    # Numbers in numeric order (4 before 16), and before text.
    return tuple((0, x, "") if isinstance(x, (int, float)) else (1, 0, str(x)) for x in key)


def table(path, by, metric, dat):
    groups = {}
    for line in read_lines(path):
        groups.setdefault(tuple(line.get(k) for k in by), []).append(line)
    print("| " + " | ".join(by) +
          f" | {metric} (mean ± std) | median | runs | failed | seconds per run |")
    print("|" + "---|" * (len(by) + 5))
    rows = []
    for key in sorted(groups, key=sort_key):
        lines = groups[key]
        values = [v for v in (value_of(x, metric) for x in lines) if v is not None]
        m, s = mean_std(values)
        secs = statistics.fmean(float(x.get("seconds", 0)) for x in lines)
        # One run has no spread: its value alone, not "± 0".
        if m is None:
            shown = "—"
        else:
            shown = f"{m:.4g} ± {s:.2g}" if len(values) > 1 else f"{m:.4g}"
        median = f"{statistics.median(values):.4g}" if values else "—"
        failed = len(lines) - len(values)
        print("| " + " | ".join(str(k) for k in key) +
              f" | {shown} | {median} | {len(lines)} | {failed} | {secs:.0f} |")
        rows.append((key, m, s, statistics.median(values) if values else None, len(values), failed))
    if dat:
        # One file per group of all keys but the last, which is the x column.
        Path(dat).mkdir(parents=True, exist_ok=True)
        series = {}
        for key, *stats in rows:
            series.setdefault("_".join(str(k) for k in key[:-1]) or metric, []).append(
                (key[-1], *stats))
        for name, points in series.items():
            with open(Path(dat) / f"{name}.dat", "w") as f:
                f.write(f"# {by[-1]} mean std median (of {metric}) finished failed\n")
                for point in points:
                    f.write(" ".join("nan" if v is None else str(v) for v in point) + "\n")


def compare(path, metric, better, worse, by, where=None):
    bk, _, bv = better.partition("=")
    wk, _, wv = worse.partition("=")
    lines = read_lines(path)
    if where:
        k, _, v = where.partition("=")
        lines = [x for x in lines if str(x.get(k)) == v]
    groups = {}
    for line in lines:
        groups.setdefault(tuple(line.get(k) for k in by), []).append(line)
    ok = True
    for key, group in sorted(groups.items(), key=lambda kv: str(kv[0])):
        a = {x["seed"]: x for x in group if str(x.get(bk)) == bv}
        b = {x["seed"]: x for x in group if str(x.get(wk)) == wv}
        seeds = sorted(set(a) & set(b))
        if not seeds:
            print(f"FAIL: {key}: no seed ran with both {better} and {worse}")
            ok = False
            continue
        # A failed run is worse than any finished one: rank it above the largest finite value.
        values = [value_of(x, metric) for s in seeds for x in (a[s], b[s])]
        worst = max([v for v in values if v is not None], default=1.0) * 10 + 1
        def ranked(x):
            v = value_of(x, metric)
            return worst if v is None else v

        ma = statistics.fmean(ranked(a[s]) for s in seeds)
        mb = statistics.fmean(ranked(b[s]) for s in seeds)
        verdict = "PASS" if ma < mb else "FAIL"
        ok = ok and ma < mb
        print(f"{verdict}: {dict(zip(by, key))} mean {metric} over seeds {seeds}: "
              f"{better} {ma:.4g}, {worse} {mb:.4g}")
    return ok


def below(path, metric, than):
    key, _, value = than.partition("=")
    lines = read_lines(path)
    base = [x for x in lines if str(x.get(key)) == value]
    if len(base) != 1 or value_of(base[0], metric) is None:
        print(f"FAIL: expected one finished line with {than} and a {metric}, got {len(base)}")
        return False
    limit = value_of(base[0], metric)
    ok = True
    for line in lines:
        if str(line.get(key)) == value:
            continue
        v = value_of(line, metric)
        fell = v is not None and v < limit
        ok = ok and fell
        print(f"{'PASS' if fell else 'FAIL'}: {line.get('name')} seed {line.get('seed')} "
              f"({line.get('status')}): {metric} {v} {'<' if fell else 'not <'} {than} {limit:.4g}")
    return ok


def improved(path, loss):
    ok = True
    later = "best_valid_loss" if loss == "valid" else "final_train_loss"
    for line in read_lines(path):
        first, best = value_of(line, f"first_{loss}_loss"), value_of(line, later)
        fell = first is not None and best is not None and best < first
        ok = ok and fell
        what = "best" if loss == "valid" else "last epoch"
        # The keys that tell runs of one model apart, where a script has them.
        setting = "".join(f" {k} {line[k]}" for k in ("init", "solver", "step", "sig_depth", "lr")
                          if k in line)
        who = line.get("model", line.get("name"))
        print(f"{'PASS' if fell else 'FAIL'}: {who}{setting} seed {line.get('seed')} "
              f"({line.get('status')}): {loss} loss epoch 1 {first}, {what} {best}")
    return ok


def curves(out, run_dirs):
    per_epoch = {}
    for run in run_dirs:
        log = Path(run) / "train.jsonl"
        if not log.exists():
            continue
        for text in log.read_text().splitlines():
            try:
                e = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(e, dict) and "epoch" in e:
                per_epoch.setdefault(e["epoch"], []).append(
                    (finite_or_none(e.get("train_loss")), finite_or_none(e.get("valid_loss"))))
    with open(out, "w") as f:
        f.write("# epoch mean_train_loss mean_valid_loss runs\n")
        for epoch in sorted(per_epoch):
            rows = per_epoch[epoch]
            train = [t for t, _ in rows if t is not None]
            valid = [v for _, v in rows if v is not None]
            f.write(f"{epoch} {statistics.fmean(train) if train else 'nan'} "
                    f"{statistics.fmean(valid) if valid else 'nan'} {len(rows)}\n")


def merge(path, new_path, keys):
    old = read_lines(path) if Path(path).exists() else []
    new = read_lines(new_path)
    ident = lambda line: tuple(json.dumps(line.get(k)) for k in keys)
    fresh = {ident(line): line for line in new}
    out = [fresh.pop(ident(line), line) for line in old]
    out += [line for line in new if ident(line) in fresh]
    Path(path).write_text("".join(json.dumps(line) + "\n" for line in out))


def option(args, name, default=None):
    if name in args:
        return args[args.index(name) + 1]
    return default


def main(argv):
    if len(argv) >= 2 and argv[0] == "record":
        record(argv[1], argv[2:])
        return 0
    if len(argv) >= 2 and argv[0] == "table":
        by = option(argv, "--by", "model").split(",")
        table(argv[1], by, option(argv, "--metric", "best_valid_loss"), option(argv, "--dat"))
        return 0
    if len(argv) >= 2 and argv[0] == "compare":
        by = [k for k in option(argv, "--by", "").split(",") if k]
        ok = compare(argv[1], option(argv, "--metric", "best_valid_loss"),
                     option(argv, "--better"), option(argv, "--worse"), by, option(argv, "--where"))
        return 0 if ok else 1
    if len(argv) >= 2 and argv[0] == "below":
        return 0 if below(argv[1], option(argv, "--metric", "test_mse"), option(argv, "--than")) else 1
    if len(argv) >= 2 and argv[0] == "improved":
        loss = option(argv, "--loss", "valid")
        if loss not in ("valid", "train"):
            print("--loss: valid or train", file=sys.stderr)
            return 2
        return 0 if improved(argv[1], loss) else 1
    if len(argv) >= 3 and argv[0] == "curves":
        curves(argv[1], argv[2:])
        return 0
    if len(argv) >= 3 and argv[0] == "merge":
        merge(argv[1], argv[2], option(argv, "--key", "model").split(","))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
