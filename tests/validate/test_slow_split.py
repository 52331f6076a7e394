#!/usr/bin/env python3
"""test_slow_split.py: data/validation/slow_split.py on hand-made torch_decomp rows.

Model A (run 1): p1 err +8 = noise 1, fwd 1, bwd 5, other 1; p2 err +2 = bwd 1, other 1; p3 err
-1 = bwd -1. Model B (run 2): p1 err +6 = noise 4, bwd 2; p2 and p3 err 0, bwd 2 each.
Medians over each model's rows: bwd A 1 (of 5, 1, -1), B 2; err A 2 (of 8, 2, -1), B 0.
slow rows (above 5%): A p1 and B p1, 2. A p1: bwd (model) 1, bwd (row) 5 - 1 = 4, noise 1, fwd 1,
base + rest + other 1: led by bwd (row). B p1: noise 4, bwd (model) 2, bwd (row) 0: led by noise.
Means: noise (1 + 4) / 2 = 2.5, bwd (5 + 2) / 2 = 3.5, fwd 0.5, other 0.5.
by plan, bwd less the model's median: p1 [4, 0], p2 [0, 0], p3 [-2, 0]; err: p1 [6, 6], p2
[0, 0], p3 [-3, 0].

ddp_lines: one model of P = 4 parameters, compute-only backward() CPU 100 us in both rounds, each
row measured at 10000 us. The loop's backward() over compute-only (same-round differences) is 100
+ 50 x buckets: 1MiB 4 buckets 300, 4MiB and default 2 buckets 200, 100MiB 1 bucket 150; fusim
charged 120 + 30 x buckets: 240, 180, 180, 150, so the bwd parts (charged - loop over 10000 us, in
points) are -0.6, -0.2, -0.2, 0. Lines: loop 50 us a bucket, intercept 100 / 4 = 25 us a
parameter; charged 30 and 120 / 4 = 30. DDP default view (2 buckets): loop 150, bwd part -0.3, so
charged 120: copy a parameter loop (200 - 150) / 4 = 12.5, charged (180 - 120) / 4 = 15.

A run whose rows are all within 5% and that has no DDP copy plans is a valid input: main prints
"0 rows above 5%" and says the DDP lines have no model-run, exit 0 (it ended in a KeyError /
StatisticsError, which bad_input reported as "not its input", exit 65)."""
import contextlib
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                                "validation"))
import slow_split as ss  # noqa: E402

FAIL = 0


def check(what, got, want):
    global FAIL
    ok = got == want
    print("%s %s: %r (want %r)" % ("ok  " if ok else "FAIL", what, got, want))
    FAIL += not ok


def row(run, wl, plan, err, noise=0.0, fwd=0.0, bwd=0.0, other=0.0):
    return (run, wl, plan, err, {"noise": noise, "base": 0.0, "fwd": fwd, "bwd": bwd, "rest": 0.0,
                                 "other": other})


ROWS = [row(1, "A", "p1", 8.0, noise=1.0, fwd=1.0, bwd=5.0, other=1.0),
        row(1, "A", "p2", 2.0, bwd=1.0, other=1.0), row(1, "A", "p3", -1.0, bwd=-1.0),
        row(2, "B", "p1", 6.0, noise=4.0, bwd=2.0), row(2, "B", "p2", 0.0, bwd=2.0),
        row(2, "B", "p3", 0.0, bwd=2.0)]
n, mean, lead, where = ss.slow_rows(ROWS)
check("slow rows", n, 2)
check("slow means (noise, fwd, bwd, other)",
      (mean["noise"], mean["fwd"], mean["bwd"], mean["other"]), (2.5, 0.5, 3.5, 0.5))
check("slow leaders", dict(lead), {"bwd (row)": 1, "noise": 1})
check("slow model-runs", dict(where), {(1, "A"): 1, (2, "B"): 1})
check("by plan, bwd", dict(ss.by_plan(ROWS, "bwd")),
      {"p1": [4.0, 0.0], "p2": [0.0, 0.0], "p3": [-2.0, 0.0]})
check("by plan, err", dict(ss.by_plan(ROWS, "err")),
      {"p1": [6.0, 6.0], "p2": [0.0, 0.0], "p3": [-3.0, 0.0]})


def ddp_row(plan, nb, loop, part):
    """A runs.json row of nb buckets over the 4 parameters whose backward() CPU is loop over
    compute-only's, and its torch_decomp row with the given bwd part."""
    names = [["w%d" % i for i in range(4)][k::nb] for k in range(nb)]
    return ({"plan_label": plan, "buckets": names, "measured_us": 10000.0,
             "cpu_times_us": [[0.0, 100.0 + loop, 0.0]] * 2},
            row(1, "M", plan, 0.0, bwd=part))


PLANS = [ddp_row("ddp 1MiB", 4, 300.0, -0.6), ddp_row("ddp 4MiB", 2, 200.0, -0.2),
         ddp_row("ddp default", 2, 200.0, -0.2), ddp_row("ddp 100MiB", 1, 150.0, 0.0),
         ddp_row("ddp default view", 2, 150.0, -0.3)]
RUN = {1: {"models": [{"workload": "M", "compute_only_cpu_times_us": [[0.0, 100.0, 0.0]] * 2,
                       "rows": [p[0] for p in PLANS]}]}}
lines, copies = ss.ddp_lines([p[1] for p in PLANS], RUN)
check("ddp line (loop, charged a bucket; loop, charged a parameter)",
      [tuple(round(x, 9) for x in t) for t in lines], [(50.0, 30.0, 25.0, 30.0)])
check("ddp copy (loop, charged)", [tuple(round(x, 9) for x in t) for t in copies], [(12.5, 15.0)])

with tempfile.TemporaryDirectory() as tmp:
    os.mkdir(os.path.join(tmp, "torch_h200_run3"))
    with open(os.path.join(tmp, "torch_h200_run3", "runs.json"), "w") as f:
        json.dump({"models": [{"workload": "M", "compute_only_cpu_times_us": [[0.0, 100.0, 0.0]],
                               "rows": []}]}, f)
    decomp = os.path.join(tmp, "decomp.txt")
    with open(decomp, "w") as f:
        f.write("== data/validation/torch_h200_run3\n"
                "M  hooks none  err  +1.00 = noise  +0.50 base  +0.00 fwd  +0.00 bwd  +0.50 "
                "rest  +0.00 other  +0.00\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = ss.main([decomp], tmp)
    check("no slow row, no DDP plans: exit", code, 0)
    check("no slow row: said", "slow: 0 rows above 5% too slow\n" in out.getvalue(), True)
    check("no DDP plans: said", "ddp: no model-run has the copy plans" in out.getvalue(), True)
sys.exit(1 if FAIL else 0)
