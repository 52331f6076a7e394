#!/usr/bin/env python3
"""slow_split.py: what the rows fusim predicts too slow are made of, and which plans it charges
above or below the rest of their model (issue 10, session 27, torch19).

Reads torch_decomp's per-row output (each row's error split into noise, base, fwd, bwd, rest and
other, in points of the measured iteration) and prints:

  slow      the rows above 5% too slow: each part's mean; which part leads each row, with `bwd`
            split in two: the model's own (the median bwd part over that model-run's rows: the
            framework costs measured on the model and carried to the loop, shared by its plans)
            and the row's (its bwd less that median: what the plan adds); the model-runs that
            hold them
  by plan   per plan, over every model-run, a part less the model-run's median of it (err, bwd,
            fwd): mean, median and the share above 0. A plan a model's costs do not explain sits
            away from 0 in most model-runs.
  ddp       with --runs DIR (the folder of the torch_h200_runN folders), DDP's backward in us:
            what fusim charged (the bwd part x the measured iteration + the loop's own) and what
            the loop paid (backward() CPU over compute-only's, median of same-round differences),
            per model-run a line over the copy plans 1 MiB..100 MiB against their bucket count
            (us a bucket, and the intercept per parameter), medians over model-runs; and DDP's
            copy a parameter (DDP default less DDP default view, the same buckets).

    python3 data/validation/slow_split.py data/validation/torch_decomp_runs11-28.txt \
        --runs data/validation
"""
import argparse
import collections
import os
import re
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import bad_input  # noqa: E402
import torch_runs  # noqa: E402
from bwd_split import PARTS, parse  # noqa: E402
from torch_run_report import paired  # noqa: E402

SLOW = 5.0   # points: a row above it is a miss


def model_medians(rows, part):
    """{(run, workload): median of part over its rows}; part "err" is the error itself."""
    by = collections.defaultdict(list)
    for run, wl, _, err, p in rows:
        by[(run, wl)].append(err if part == "err" else p[part])
    return {k: st.median(v) for k, v in by.items()}


def slow_rows(rows):
    """(count, {part: mean}, {leader: rows}, {(run, workload): rows}) of the rows above SLOW too
    slow; the leader is the largest of noise, fwd, bwd (model), bwd (row) and the rest together
    (base + rest + other)."""
    med = model_medians(rows, "bwd")
    sel = [r for r in rows if r[3] > SLOW]
    lead, where = collections.Counter(), collections.Counter()
    for run, wl, _, _, p in sel:
        parts = {"noise": p["noise"], "fwd": p["fwd"], "bwd (model)": med[(run, wl)],
                 "bwd (row)": p["bwd"] - med[(run, wl)],
                 "base+rest+other": p["base"] + p["rest"] + p["other"]}
        lead[max(parts, key=parts.get)] += 1
        where[(run, wl)] += 1
    mean = {k: st.mean(r[4][k] for r in sel) for k in PARTS} if sel else {}
    return len(sel), mean, lead, where


def by_plan(rows, part):
    """{plan: [part less its model-run's median]}."""
    med = model_medians(rows, part)
    out = collections.defaultdict(list)
    for run, wl, plan, err, p in rows:
        out[plan].append((err if part == "err" else p[part]) - med[(run, wl)])
    return out


def ddp_lines(rows, runs):
    """[(bucket slope loop, charged, intercept a parameter loop, charged)] per model-run with the
    four DDP copy plans 1MiB, 4MiB, default, 100MiB, and [(copy a parameter loop, charged)] per
    model-run with DDP default and DDP default view; runs: {run number: runs.json's content}."""
    pct = {(r[0], r[1], r[2]): r[4]["bwd"] for r in rows}
    lines, copies = [], []
    for n, run in sorted(runs.items()):
        for m in run["models"]:
            co = [c[1] for c in m["compute_only_cpu_times_us"]]
            bw = {}
            for r in m["rows"]:
                key = (n, m["workload"], r["plan_label"])
                if key in pct and r.get("buckets"):
                    loop = paired([c[1] for c in r["cpu_times_us"]], co)
                    bw[r["plan_label"]] = (len(r["buckets"]), sum(len(b) for b in r["buckets"]),
                                           loop, pct[key] / 100 * r["measured_us"] + loop)
            plans = [bw.get(p) for p in ("ddp 1MiB", "ddp 4MiB", "ddp default", "ddp 100MiB")]
            if all(plans) and len({p[0] for p in plans}) > 1:
                P = plans[0][1]
                fit = [st.linear_regression([p[0] for p in plans], [p[k] for p in plans])
                       for k in (2, 3)]
                lines.append((fit[0][0], fit[1][0], fit[0][1] / P, fit[1][1] / P))
            a, b = bw.get("ddp default"), bw.get("ddp default view")
            if a and b:
                copies.append(((a[2] - b[2]) / a[1], (a[3] - b[3]) / a[1]))
    return lines, copies


def show_ddp(rows, folder):
    """The ddp section, from the runs.json of every run the rows name under folder."""
    runs = {}
    for n in sorted({r[0] for r in rows}):
        runs[n] = torch_runs.load(os.path.join(folder, "torch_h200_run%d" % n))
    lines, copies = ddp_lines(rows, runs)
    if not lines:   # runs without the four DDP copy plans (a valid input: nothing to fit)
        print("\nddp: no model-run has the copy plans 1MiB..100MiB")
    else:
        print("\nddp: copy plans 1MiB..100MiB, backward over compute-only against the buckets, %d "
              "model-runs (medians): loop %.1f us a bucket, charged %.1f; intercept loop %.1f us a "
              "parameter, charged %.1f" % ((len(lines),) + tuple(st.median(x[k] for x in lines)
                                                              for k in range(4))))
    d = [c - lp for lp, c in copies]
    if not copies:
        print("ddp: no model-run has DDP default and DDP default view")
        return
    print("ddp: copy a parameter (default less default view), %d model-runs: loop median %.1f us, "
          "charged %.1f; charged above the loop in %d, by %+.2f on average"
          % (len(copies), st.median(x[0] for x in copies), st.median(x[1] for x in copies),
             sum(x > 0 for x in d), st.mean(d)))


def main(files, folder=None):
    rows = []
    for path in files:
        with open(path) as f:
            rows += parse(f)
    if not rows:
        return bad_input.fail("slow_split", ", ".join(files), "no torch_decomp rows",
                              bad_input.DATAERR)
    runs = sorted({r[0] for r in rows})
    print("%d rows, %d model-runs, runs %d-%d" % (len(rows), len({r[:2] for r in rows}),
                                                   runs[0], runs[-1]))
    n, mean, lead, where = slow_rows(rows)
    # no row too slow is an answer, not bad input: no means then
    print("\nslow: %d rows above %.0f%% too slow%s" % (n, SLOW, "; mean " + "  ".join(
        "%s %+.2f" % (k, mean[k]) for k in PARTS) if n else ""))
    if n:
        print("  led by: %s" % ", ".join("%s %d" % kv for kv in lead.most_common()))
        print("  model-runs: %s" % ", ".join("run%d %s %d" % (k[0], re.sub(r"_torchva\w*$", "", k[1]), c)
                                             for k, c in where.most_common()))
    for part in ("err", "bwd", "fwd"):
        print("\nby plan: %s less the model-run's median (points): mean, median, share above 0"
              % part)
        for plan, xs in sorted(by_plan(rows, part).items(), key=lambda kv: st.mean(kv[1])):
            print("  %-24s %+6.2f %+6.2f %4.0f%%" % (plan, st.mean(xs), st.median(xs),
                                                     100.0 * sum(x > 0 for x in xs) / len(xs)))
    if folder:
        show_ddp(rows, folder)
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", help="the folder of the runs' folders (torch_h200_runN/runs.json)")
    a = ap.parse_args()
    sys.exit(bad_input.run("slow_split", main, a.files, a.runs))
