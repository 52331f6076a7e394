#!/usr/bin/env python3
"""jitter_bias.py: the evidence behind store_torch_validation --plan-jitter (issue 10; the
data/validation/README section "A plan's median on the loop's step distribution"), from the
committed runs' rounds and a tools/torch_decomp.py output of the same runs (its rows' errors).

Per row: d, the plan's paired overhead (median of same-round differences); delta, how far the
plan's median sits above compute-only's median plus d (the decomposition's -noise); conv, the
same simulated in the run's own rounds: compute-only's rounds plus d plus the row's own residuals
(same-round difference less d) drawn independently (200 draws, seed 1, mean of the medians).
Prints: mean delta and conv and their correlation over rows; per model-run, the relative sd of
the overhead's jitter (a line through the rows' robust variances of the residuals against d
squared; its slope's square root), the median over model-runs; and the rows above 5% and the sum
of the model-runs' median |error| with each row's error moved by conv, by half of it, and by a
constant. In-sample: the residuals are the plans' own, so this is a diagnosis, not a prediction.

    python3 data/validation/jitter_bias.py data/validation/torch_decomp_runs11-29.txt [RUNS_DIR]

RUNS_DIR: where the decomposition's runs are (default: this folder).

A decomposition whose rows do not match the runs' (another set of runs), or with no rows: one line,
exit 65; a file that cannot be read: one line, exit 66.
"""
import collections
import json
import os
import random
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from miss_sources import load, score  # noqa: E402
import torch_runs  # noqa: E402


def rsd(x):
    """Robust standard deviation: the interquartile range over 1.349."""
    s = sorted(x)
    return (s[int(0.75 * (len(s) - 1))] - s[int(0.25 * (len(s) - 1))]) / 1.349


def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** 0.5


def rows_of_run(run, rng, draws=200):
    """Per model: [(plan, d, delta, conv, residuals)] in % of the plan's median, from runs.json."""
    out = {}
    for m in run["models"]:
        co = m["compute_only_times_us"]
        rs = []
        for r in m["rows"]:
            k = min(len(co), len(r["times_us"]))
            c, p = co[:k], r["times_us"][:k]
            d = st.median(a - b for a, b in zip(p, c))
            res = [a - b - d for a, b in zip(p, c)]
            meas = st.median(p)
            delta = st.median(p) - st.median(c) - d
            conv = st.mean(st.median(x + d + rng.choice(res) for x in c) - st.median(c) - d
                           for _ in range(draws))
            rs.append((r["plan_label"], d, 100 * delta / meas, 100 * conv / meas, res))
        out[m["workload"]] = rs
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: jitter_bias.py TORCH_DECOMP_OUTPUT [RUNS_DIR]")
    where = sys.argv[2] if len(sys.argv) == 3 else HERE
    rows = load(sys.argv[1], "jitter_bias")
    rng = random.Random(1)
    runs = {}
    for r in rows:
        if r["run"] not in runs:
            # None: rows before any "== RUN"
            path = torch_runs.find(os.path.join(where, r["run"] or "", "runs.json"))
            if not os.path.isfile(path):
                print("jitter_bias: %s: no %s (the decomposition's runs are committed ones)"
                      % (sys.argv[1], path), file=sys.stderr)
                return 65
            runs[r["run"]] = rows_of_run(torch_runs.load(path), rng)
    seen = collections.Counter()
    for r in rows:
        model = next((w for w in runs[r["run"]] if w.startswith(r["model"])), None)
        i = seen[(r["run"], model)]
        seen[(r["run"], model)] += 1
        got = runs[r["run"]].get(model) or []
        if i >= len(got) or got[i][0] != r["plan"]:
            print("jitter_bias: %s: row %s %s %s is not the run's" % (sys.argv[1], r["run"],
                                                                       r["model"], r["plan"]),
                  file=sys.stderr)
            return 65
        r["d"], r["delta"], r["conv"], r["res"] = got[i][1:]
    print("rows %d: mean delta %+.2f, conv %+.2f (%% of the plan's median), r %.2f"
          % (len(rows), st.mean(r["delta"] for r in rows), st.mean(r["conv"] for r in rows),
             corr([r["delta"] for r in rows], [r["conv"] for r in rows])))
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["run"], r["model"])].append(r)
    slopes = []
    for g in groups.values():
        x = [r["d"] ** 2 for r in g]
        y = [rsd(r["res"]) ** 2 for r in g]
        mx, my = st.mean(x), st.mean(y)
        sxx = sum((a - mx) ** 2 for a in x)
        b = sum((a - mx) * (c - my) for a, c in zip(x, y)) / sxx if sxx > 0 else 0.0
        slopes.append(max(b, 0.0) ** 0.5)
    print("the overhead's own jitter, relative sd: median %.2f over %d model-runs"
          % (st.median(slopes), len(slopes)))
    for label, f in (("as they are", lambda r: r["err"]),
                     ("moved by conv", lambda r: r["err"] + r["conv"]),
                     ("moved by half of conv", lambda r: r["err"] + r["conv"] / 2),
                     ("moved by +0.5", lambda r: r["err"] + 0.5)):
        n, s = score(groups, f)
        print("  %-24s rows above 5%% %4d  sum of medians %6.1f" % (label, n, s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
