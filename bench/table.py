#!/usr/bin/env python3
# Prints the JSON lines of the benchmark scripts as a table.
#   table.py reference FILE.jsonl   one row per (model, gradient): plain, tuned and
#                                   tuned + torch.jit.script (jit)
#   table.py compare FILE.jsonl     Plastic vs the tuned reference, eager and scripted:
#                                   medians of repeats; the speed-up is taken
#                                   against the faster of the two (issue 16)
# Lines with "skipped" are listed as such; anything that is not JSON is ignored.
import json
import statistics
import sys
from collections import defaultdict


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return rows


def reference(rows):
    cell = defaultdict(dict)
    for r in rows:
        if "skipped" in r:
            print(f"{r.get('model', '?')}: skipped: {r['skipped']}")
            continue
        cell[(r["model"], r["gradient"], r["batch"], r["threads"], r["dtype"])][r["variant"]] = r
    print("load = 1-minute load average after the plain/tuned/jit run (above the thread count: a shared machine)")
    print(f"{'model':16} {'gradient':8} {'batch':>5} {'thr':>3} {'dtype':5} {'steps':>5} "
          f"{'plain s/step':>12} {'tuned s/step':>12} {'jit s/step':>10} {'speed-up':>8} "
          f"{'plain MB':>9} {'tuned MB':>9} {'load':>14}")
    for key, v in cell.items():
        p, t, j = v.get("plain"), v.get("tuned"), v.get("jit")
        s = lambda r: f"{r['median_s']:.4f}" if r else "-"  # noqa: E731
        best = min((r for r in (t, j) if r), key=lambda r: r["median_s"], default=None)
        sp = f"{p['median_s'] / best['median_s']:.2f}x" if p and best else "-"
        steps = (t or j or p)["steps"]
        print(f"{key[0]:16} {key[1]:8} {key[2]:>5} {key[3]:>3} {key[4]:5} {steps:>5} {s(p):>12} {s(t):>12} "
              f"{s(j):>10} {sp:>8} {(p or {}).get('peak_rss_mb', '-'):>9} {(t or {}).get('peak_rss_mb', '-'):>9} "
              f"{'/'.join(str(x.get('load_avg', '?')) for x in (p, t, j) if x):>14}")
    print("speed-up = plain time / the faster of tuned and jit")


def compare(rows):
    runs = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if "median_s" not in r or "side" not in r:
            continue
        runs[(r["config"], r["gradient"])][r["side"]].append(r)
    print(f"{'config':16} {'gradient':8} {'runs':>4} {'plastic s/step':>14} {'torch s/step':>12} "
          f"{'jit s/step':>10} {'speed-up':>8} {'plastic MB':>10} {'torch MB':>9} {'mem ratio':>9}")
    for (cfg, grad), sides in runs.items():
        p = sides.get("plastic", [])
        # The reference's runs by variant (older files have no jit runs).
        t = [r for r in sides.get("reference", []) if r.get("variant", "tuned") == "tuned"]
        j = [r for r in sides.get("reference", []) if r.get("variant") == "jit"]
        med = lambda xs, k: statistics.median(x[k] for x in xs) if xs else None  # noqa: E731
        ps, ts, js = med(p, "median_s"), med(t, "median_s"), med(j, "median_s")
        best = min((x for x in (ts, js) if x is not None), default=None)
        pm = med(p, "peak_rss_mb")
        tm = med(t if best == ts else j, "peak_rss_mb")
        f = lambda x, fmt: format(x, fmt) if x is not None else "-"  # noqa: E731
        speed = f"{best / ps:.2f}x" if ps and best else "-"
        mem = f"{tm / pm:.2f}x" if pm and tm else "-"
        print(f"{cfg:16} {grad:8} {max(len(p), len(t)):>4} {f(ps, '.4f'):>14} {f(ts, '.4f'):>12} "
              f"{f(js, '.4f'):>10} {speed:>8} {f(pm, '.0f'):>10} {f(tm, '.0f'):>9} {mem:>9}")
    print("speed-up = the faster torch time (eager tuned or torch.jit.script) / Plastic time;")
    print("mem ratio = that torch variant's peak RSS / Plastic peak RSS")


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    (reference if mode == "reference" else compare)(load(path))
