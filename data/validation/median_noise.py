#!/usr/bin/env python3
"""median_noise.py: is a change to the model worse on a run by more than the run's own noise?
(issue 10; the landing rule "no run's median worse by more than noise").

Each committed run (torch_h200_run11 on, or --runs, or the RUNDIRs given) is predicted twice through
tools/store_torch_validation.py --no-store: as the store stands, and with the options after `--`
(the variant). Both are scored against the same rounds, so what separates the two run medians
(median |error| over the run's rows) is the model; what blurs the difference is which rounds the
run happened to draw. The run's rounds are resampled with replacement (every runner's iteration of
a round kept together, as the loop interleaves them; 2000 resamples, seed 1); in each resample
every row's measured median and compute-only's median are taken again, each prediction moves with
compute-only's median (the store anchors the simulated compute-only step to it; the predicted
overhead is held), and the difference of the two run medians is taken again. Its 90% interval
says whether the run resolves the change: "worse" where the interval's low end is above 0,
"better" where its high end is below 0, else "within noise".

    python3 data/validation/median_noise.py [--runs 11-29 | RUNDIR ...] [--fusim F] -- --no-ddp-spacing

Prints a line per run and the runs resolved each way. Exit 0; 64 for bad options; a run that
cannot be predicted stops it with the store's own line.
"""
import argparse
import json
import os
import random
import statistics as st
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from torch_validation_bench import matrix  # noqa: E402
import torch_runs  # noqa: E402

BOOT = 2000


def run_rounds(rundir):
    """{workload: (compute-only's per-round times, {plan: per-round times})} from runs.json."""
    run = torch_runs.load(rundir)
    return {m["workload"]: (m["compute_only_times_us"],
                            {r["plan_label"]: r["times_us"] for r in m["rows"]})
            for m in run["models"]}


def run_median(preds, rounds, idx=None):
    """The run's median |error| over its rows. preds: predictions(); rounds: run_rounds(); idx:
    {workload: round indices} of a resample (None: the rounds as measured). Each prediction moves
    with compute-only's median."""
    errs = []
    for w, (co, plans) in rounds.items():
        ix = idx[w] if idx else range(min(len(co), *(len(t) for t in plans.values())))
        co_med = st.median(co[i] for i in ix)
        for plan, pred in preds[w].items():
            meas = st.median(plans[plan][i] for i in ix)
            errs.append(abs(pred[0] - pred[1] + co_med - meas) / meas)
    return st.median(errs)


def predictions(rows):
    """{workload: {plan: (predicted us, the compute-only median it was anchored to)}}."""
    out = {}
    for r in rows:
        out.setdefault(r["workload"], {})[r["plan"]] = (r["predicted_us"],
                                                        float(r["compute_only_us"]))
    return out


def compare(a, b, rounds, boot=BOOT, seed=1):
    """(run median of a, of b, the 90% interval (p5, p95) of b's less a's over resampled
    rounds)."""
    rng = random.Random(seed)
    n = {w: min(len(co), *(len(t) for t in plans.values())) for w, (co, plans) in rounds.items()}
    d = []
    for _ in range(boot):
        idx = {w: [rng.randrange(k) for _ in range(k)] for w, k in n.items()}
        d.append(run_median(b, rounds, idx) - run_median(a, rounds, idx))
    d.sort()
    return (run_median(a, rounds), run_median(b, rounds),
            (d[int(0.05 * (boot - 1))], d[int(round(0.95 * (boot - 1)))]))


def verdict(lo, hi):
    return "worse" if lo > 0 else "better" if hi < 0 else "within noise"


def main():
    args = sys.argv[1:]
    variant = args[args.index("--") + 1:] if "--" in args else []
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundirs", nargs="*", help="runs to compare (default: the committed ones of "
                    "--runs)")
    ap.add_argument("--runs", default="11-",
                    help="N, FIRST-LAST or FIRST- (on): the runs (default 11 on)")
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    a = ap.parse_args(args[:args.index("--")] if "--" in args else args)
    try:
        lo, dash, hi = a.runs.partition("-")
        first = int(lo)
        last = int(hi) if hi else 10**6 if dash else first
    except ValueError:
        print("median_noise: --runs %s: expected N, FIRST-LAST or FIRST- run numbers" % a.runs, file=sys.stderr)
        return 64
    runs = list(a.rundirs)
    n = first if not runs else last + 1
    while n <= last and os.path.isfile(torch_runs.find(os.path.join(
            ROOT, "data/validation/torch_h200_run%d/runs.json" % n))):
        runs.append(os.path.join(ROOT, "data/validation/torch_h200_run%d" % n))
        n += 1
    if not runs:
        print("median_noise: no committed run in %s" % a.runs, file=sys.stderr)
        return 64
    print("variant: %s; run median |error| as is -> variant, difference [90%% over rounds]"
          % (" ".join(variant) or "(none)"))
    tally = {}
    with tempfile.TemporaryDirectory(prefix="median-noise-") as tmp:
        for d in ("a", "b"):
            os.mkdir(os.path.join(tmp, d))
        for rundir in runs:
            rows_a = matrix(a.fusim, rundir, os.path.join(tmp, "a"))
            rows_b = matrix(a.fusim, rundir, os.path.join(tmp, "b"), variant)
            ma, mb, (dlo, dhi) = compare(predictions(rows_a), predictions(rows_b),
                                         run_rounds(rundir))
            v = verdict(dlo, dhi)
            tally[v] = tally.get(v, 0) + 1
            print("%-16s %5.2f%% -> %5.2f%%  %+5.2f [%+5.2f, %+5.2f]  %s"
                  % (os.path.basename(rundir), 100 * ma, 100 * mb, 100 * (mb - ma), 100 * dlo,
                     100 * dhi, v))
    print("runs: %s" % ", ".join("%s %d" % kv for kv in sorted(tally.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
