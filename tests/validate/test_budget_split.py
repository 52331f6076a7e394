#!/usr/bin/env python3
"""data/validation/budget_split.py on hand-made data, answers by hand: disjoint blocks of rounds
(in time, interleaved), variances and covariances pooled within groups, the two noise curves fitted
through exact points (a power law; A / n + C, and through the origin where C would be negative),
the best split of a budget between loop and model-cost rounds, the costs of a round and their fit
over captures with and without the cold experiment, a log's phase seconds, one model-run's loop
blocks (and anchored on a twin as well), and bad input (a run without its log: one line, 65)."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vcheck  # noqa: E402
from vcheck import ROOT, check, finish  # noqa: E402  (data/validation on sys.path)
import budget_split as B  # noqa: E402


def near(a, b, tol=1e-9):
    return abs(a - b) <= tol


check("blocks of 3 of 10 rounds in time: 0-2, 3-5, 6-8 (round 9 left out)",
      B.blocks(10, 3, "time") == [[0, 1, 2], [3, 4, 5], [6, 7, 8]])
check("blocks of 3 of 10 rounds interleaved: every third round",
      B.blocks(10, 3, "every") == [[0, 3, 6], [1, 4, 7], [2, 5, 8]])

# group 1: x 1, 3 (mean 2), y 2, 6 (mean 4); group 2: x 5, 5, 8 (mean 6), y 0, 0, 3 (mean 1).
# Within-group squares of x: 1 + 1 and 1 + 1 + 4: 8 over 1 + 2 degrees of freedom; products of
# x and y: 2 + 2 and 1 + 1 + 4: 10 over 3; one value alone adds nothing.
p = B.Pool()
p.add(x=[1, 3], y=[2, 6])
p.add(x=[5, 5, 8], y=[0, 0, 3])
p.add(x=[7], y=[9])
check("pooled variance 8/3, covariance 10/3 (got %r, %r)" % (p.cov("x"), p.cov("x", "y")),
      near(p.cov("x"), 8 / 3) and near(p.cov("x", "y"), 10 / 3) and near(p.cov("y", "x"), 10 / 3))

# exact points of 120 n^-0.5: 60 at 4, 30 at 16
c = B.fit_power([(4, 60.0, 3), (16, 30.0, 1)])
check("power law through 60 at 4 and 30 at 16: A 120, g 0.5 (got %r)" % c,
      near(c[0][0], 120.0, 1e-9) and near(c[0][1], 0.5, 1e-12))
# exact points of 60 / n + 5: 25 at 3, 15 at 6, 10 at 12
c = B.fit_inverse([(3, 25.0, 4), (6, 15.0, 2), (12, 10.0, 1)])
check("A / n + C through 25, 15, 10 at 3, 6, 12: 60 and 5 (got %r)" % c,
      len(c) == 2 and near(c[0][0], 60.0, 1e-9) and near(c[1][0], 5.0, 1e-9)
      and B.curve_at(c, 12) == c[0][0] / 12 + c[1][0] and near(B.curve_at(c, 30), 7.0, 1e-9))
# 60 / n - 2: 18 at 3, 8 at 6; the line's C below 0, so A / n through the origin, weights 1:
# A = (18 / 3 + 8 / 6) / (1 / 9 + 1 / 36) = (22 / 3) / (5 / 36) = 52.8
c = B.fit_inverse([(3, 18.0, 1), (6, 8.0, 1)])
check("A / n + C with C below 0: A / n alone, A 52.8 (got %r)" % c,
      len(c) == 1 and near(c[0][0], 52.8, 1e-9) and c[0][1] == 1.0)

# 100 / N + 100 / M with N + M = 40 (a round of each 1 s; 45 s less the warm-ups' 2 + 3):
# N = M = 20, variance 10. With a model-cost round of 4 s and 60 s left (74 s): N / M =
# sqrt((100 x 4) / (100 x 1)) = 2, N + 4 M = 60: M 10, N 20, variance 5 + 10 = 15.
got = B.best_split([(100.0, 1.0)], [(100.0, 1.0)], 1.0, 1.0, 45.0)
check("equal costs, equal noise: 20 and 20, variance 10 (got %r)" % (got,),
      got[:2] == (20, 20) and near(got[2], 10.0))
got = B.best_split([(100.0, 1.0)], [(100.0, 1.0)], 1.0, 4.0, 74.0)
check("a model-cost round 4 x dearer: 20 loop and 10 model-cost rounds, variance 15 (got %r)"
      % (got,), got[:2] == (20, 10) and near(got[2], 15.0))
check("a budget below the minima (4 rounds each and the warm-ups): None",
      B.best_split([(100.0, 1.0)], [(100.0, 1.0)], 1.0, 1.0, 12.9) is None)

# a step of 0.1 s, a variant's step 1.2 x it: a loop round of 13 runners 1.3 s; a model-cost round
# of 15 variants x (2 x 0.12 + 0.01) = 3.75 s with the cold experiment, 15 x 0.12 = 1.8 s without
lc, mc = B.round_costs(0.1, 1.2, 0.01, 13, True)
check("round costs with the cold step: 1.3 and 3.75 s (got %r, %r)" % (lc, mc),
      near(lc, 1.3) and near(mc, 3.75))
check("a model-cost round without it: 1.8 s", near(B.round_costs(0.1, 1.2, 0.01, 13, False)[1], 1.8))

# a round's seconds per variant 0.9 x (steps x step) + 0.01 s where the cold experiment ran (x 0.2,
# 0.4: y 0.19, 0.37) and 0.9 x step alone where it did not (x 0.1, 0.3: y 0.09, 0.27): k 0.9, f
# 0.01 (one line through all four, as costs() fitted them, gives k 0.92 and f 0: the rewrite
# lost); cold points alone: statistics.linear_regression's line; warm alone: through the origin
pts = [(0.2, 0.19, True), (0.4, 0.37, True), (0.1, 0.09, False), (0.3, 0.27, False)]
k, f = B.fit_round_cost(pts)
check("round cost fit over cold and warm captures: k 0.9, f 0.01 (got %r, %r)" % (k, f),
      near(k, 0.9, 1e-12) and near(f, 0.01, 1e-12))
check("cold captures only: the least-squares line (0.9, 0.01)",
      all(near(a, b, 1e-12) for a, b in zip(B.fit_round_cost(pts[:2]), (0.9, 0.01))))
check("warm captures only: through the origin (0.9, 0)",
      all(near(a, b, 1e-12) for a, b in zip(B.fit_round_cost(pts[2:]), (0.9, 0.0))))

# one model-run, 4 rounds in two time blocks: compute-only 100 100 | 110 110 (median 105), the
# plan 200 200 | 200 220 (median 200) predicted 2% high (204). Block 1: anchor 100, the
# prediction moves by -5 to 199 against 200: -0.5%; block 2: anchor 110, +5 to 209 against 210:
# -0.476190...%; the anchor part 100 x (-5) / 200 = -2.5 and +2.5, the row's own 0 and +5.
M = {"compute_only_times_us": [100.0, 100.0, 110.0, 110.0],
     "rows": [{"plan_label": "p", "times_us": [200.0, 200.0, 200.0, 220.0]}]}
pools = {k: B.Pool() for k in ("row", "med", "rel")}
B.loop_blocks(M, {"p": 2.0}, B.blocks(4, 2, "time"), pools)
e1, e2 = -0.5, 100 * (209 - 210) / 210
check("the row's error over the two blocks: variance of %.4f and %.4f (got %r)"
      % (e1, e2, pools["row"].cov("e")), near(pools["row"].cov("e"), (e1 - e2) ** 2 / 2, 1e-12))
check("anchor part -2.5 / +2.5: variance 12.5; own part 0 / 5: 12.5; covariance +12.5",
      near(pools["row"].cov("a"), 12.5) and near(pools["row"].cov("r"), 12.5)
      and near(pools["row"].cov("a", "r"), 12.5))
check("one row: the model-run median's variance is the row's",
      near(pools["med"].cov("e"), pools["row"].cov("e"), 1e-12))
# in parts of their whole-run medians: compute-only 100/105, 110/105; the plan 1, 1.05
rel = pools["rel"]
check("rho: the plan's block draw over compute-only's, 0.025 / (5 / 105) = 0.525",
      near(rel.cov("co", "row") / rel.cov("co"), 0.525, 1e-12))

# the same model-run with a twin 104 104 | 106 106: the anchor on both is the median of the
# block's four iterations, 102 and 108 (105 over all eight), so the prediction moves by -3 to 201
# against 200 (+0.5%) and by +3 to 207 against 210 (-1.428571%); rho: the twin's block draw
# (+-1/105) over compute-only's (+-5/105), 0.2
M["loop_probes"] = {"baseline twin": {"times_us": [104.0, 104.0, 106.0, 106.0]}}
tp = B.Pool()
B.twin_blocks(M, {"p": 2.0}, B.blocks(4, 2, "time"), tp)
check("anchored on both: variance of +0.5 and -1.4286 (got %r); on compute-only as before"
      % tp.cov("both"), near(tp.cov("both"), (0.5 + 300 / 210) ** 2 / 2, 1e-12)
      and near(tp.cov("co"), pools["row"].cov("e"), 1e-12))
check("rho measured 0.2 (got %r)" % (tp.cov("c", "t") / tp.cov("c")),
      near(tp.cov("c", "t") / tp.cov("c"), 0.2, 1e-12))

tmp = tempfile.mkdtemp(prefix="fusim-budget-split-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
with open(os.path.join(tmp, "log.txt"), "w") as f:
    f.write("tower costs (31.2 s, 6 rounds)\n"
            "  on the model (16.9 s, 16 rounds, P 142): ddp param 10.3 us\n"
            "  beside a D2H (1.5 s, 5 rounds, 128 MiB chunks)\n"
            "m_b8: captured in 21.0 s (fwd 4766 bwd 13814 opt 115 us, 142 tensors)\n"
            "m_b8: 26 rounds x 13 runners in 9.3 s\n"
            "n_b4: captured in 2.0 s (fwd 1 bwd 1 opt 1 us, 2 tensors)\n"
            "n_b4: out of GPU memory, skipped\n")
ph = B.phase_seconds(tmp)
check("the log's phases: m_b8's model-cost 16.9 s over 16 rounds, capture 21.0, loop 9.3 s of "
      "26 x 13; n_b4 (no loop) left out (got %r)" % ph,
      ph == {"m_b8": {"mc": [(16.9, 16)], "capture_s": 21.0, "loop_rounds": 26, "runners": 13,
                      "loop_s": 9.3}})

# a capture's model-cost shape: 2 variants of 3 rounds, two steps a variant with the cold
# experiment, one without
for cold, steps in ((True, 2), (False, 1)):
    fm = {"raw": {"none": [1.0, 2.0, 3.0], "ddpv_1": [4.0, 5.0, 6.0]}}
    if cold:
        fm["cold"] = {}
    with open(os.path.join(tmp, "wl_w.json"), "w") as f:
        json.dump({"meta": {"framework_on_model": fm}}, f)
    got = B.model_cost_shape(tmp, "w")
    check("model-cost shape, cold %s: 2 variants, 3 rounds, %d steps (got %r)" % (cold, steps, got),
          got == (2, 3, steps))

# a run without its log.txt: one line, 65
with open(os.path.join(tmp, "runs.json"), "w") as f:
    json.dump({"format": "fusim-torch-validation-1", "models": [
        {"workload": "w", "compute_only_cpu_times_us": [], "rows": []}]}, f)
os.remove(os.path.join(tmp, "log.txt"))
p = subprocess.run([sys.executable, os.path.join(ROOT, "data", "validation", "budget_split.py"), tmp],
                   capture_output=True, text=True)
check("a run without its log: exit 65, one line (got %d, %r)" % (p.returncode, p.stderr),
      p.returncode == 65 and len(p.stderr.strip().splitlines()) == 1
      and p.stderr.startswith("budget_split: ") and "log.txt" in p.stderr)

print("%d failed" % vcheck.fails)
finish()
