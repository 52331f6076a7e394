#!/usr/bin/env python3
"""test_validation_bench.py: torch_validation_bench's interval of the fastest-plan gap, by hand.

fastest_interval resamples a run's rounds, each plan's iteration of a round kept with the other's:
- pick [110, 110] against fastest [100, 100]: every resample gives 110 / 100 - 1 = 0.10, so the
  interval is (0.10, 0.10);
- pick [100, 130] against [100, 100]: a resample of two rounds takes round 0 twice (probability
  1/4: medians 100 / 100, gap 0), round 1 twice (1/4: 130 / 100, gap 0.30) or one of each (1/2:
  115 / 100, gap 0.15). The 5th percentile falls in the first quarter (0), the 95th in the last
  (0.30): (0.0, 0.30);
- one round (or none): no interval, None.
unresolved: a model 15% off whose interval is (0, 0.30) reaches 1%: the run cannot resolve it; one
10% off with (0.10, 0.10) is a miss the run resolves; one within 1% is no miss, with or without an
interval; one 2% off without an interval (no rounds) is not counted as unresolved. -> ["a"].

Plan groups (validate_torch.plan_groups: a model's plans timed in several loops, a runs.json entry
each): round i of one loop has nothing to do with round i of another, so plans of different groups
are resampled each on its own (paired=False):
- pick [100, 130] against fastest [100, 130], unpaired: each median is 100, 115 or 130 with
  probability 1/4, 1/2, 1/4, alone; the lowest gap 100 / 130 - 1 and the highest 130 / 100 - 1 each
  come with probability 1/16 > 5%: (100 / 130 - 1, 0.30); paired it is (0, 0);
- round_times gives each plan its loop: the group's index, None for a model timed in one loop;
- score: pick 'a' (group 1) 10% slower than 'b' round for round; as two groups its interval is the
  unpaired one, not the (0.10, 0.10) of a pairing across loops; in one group, (0.10, 0.10).

The measured overhead's interval (overhead_interval: median(plan) - median(compute-only) over the
loop's rounds resampled, a round's two iterations together), by the same counting:
- plan [110, 110] against compute-only [100, 100]: 10 in every resample, (10, 10);
- plan [100, 130] against [100, 100]: 0, 15 or 30 with probability 1/4, 1/2, 1/4: (0, 30).
overhead_unresolved counts the misses whose interval holds a value within max(15%, 300 us) of the
prediction: predicted 20 inside (0, 30): yes; 320 against (0, 30): 30 is 290 us away, yes; 350:
320 us, no; 1000 against (10, 10): no; a row that met the target or has no rounds: not counted -> 2.

rows_unresolved counts the rows above 5% whose measured iteration, compute-only's median (100) plus
that interval, (0, 30), can be within 5% of the prediction p, that is [p / 1.05, p / 0.95] meets
[100, 130]; every row measured 115 (overhead 15): p 136 ([129.5, 143.2], error +18.3%): yes; 140
([133.3, 147.4]): no; 104 ([99.0, 109.5], error -9.6%): yes; 90 ([85.7, 94.7]): no; 118 (error
+2.6%, no miss) and a row without rounds: not counted -> 2.

baseline_twins: a twin of [110, 110] beside compute-only [100, 100] is 10% apart and its overhead's
interval (10, 10) does not hold 0; [100, 130] beside [100, 100] is 115 / 100 - 1 = 15% apart by
the medians, yet (0, 30) holds 0; a model without a twin is left out. loop_spreads: compute-only
p5 90, p95 120 over a median of 100 -> 0.30 for each of the model's plans."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_validation_bench as tb  # noqa: E402

FAIL = 0


def check(what, got, want, tol=1e-12):
    global FAIL
    if isinstance(want, tuple) and got is not None:
        ok = len(got) == len(want) and all(abs(g - w) <= tol for g, w in zip(got, want))
    else:
        ok = got == want
    print("%s %s: %r (want %r)" % ("ok  " if ok else "FAIL", what, got, want))
    FAIL += not ok


check("fastest_interval, every round 10% slower", tb.fastest_interval([110, 110], [100, 100]),
      (0.10, 0.10))
check("fastest_interval, one round 30% slower", tb.fastest_interval([100, 130], [100, 100]),
      (0.0, 0.30))
check("fastest_interval, one round", tb.fastest_interval([110], [100]), None)
check("unresolved", tb.unresolved({"a": 0.15, "b": 0.10, "c": 0.005, "d": 0.02},
                                  {"a": (0.0, 0.30), "b": (0.10, 0.10), "c": (-0.02, 0.03),
                                   "d": None}), ["a"])

check("fastest_interval, paired", tb.fastest_interval([100, 130], [100, 130]), (0.0, 0.0))
check("fastest_interval, unpaired", tb.fastest_interval([100, 130], [100, 130], paired=False),
      (100 / 130 - 1, 0.30))
# unpaired plans of different loops keep all their own rounds: the fastest's third round (50)
# is drawn in some resamples, so the gap reaches 100 / 50 - 1; cut to the shorter plan's two
# rounds it never would (0.0, 0.0)
check("fastest_interval, unpaired, unequal rounds",
      tb.fastest_interval([100, 100], [100, 100, 50], paired=False), (0.0, 1.0))
fast, pick = [100, 130, 100, 130], [110, 143, 110, 143]
rows = {"a": pick, "b": fast, "c": [200, 200, 200, 200]}
entries = [{"workload": "w", "plan_group": [g, 2],
            "rows": [{"plan_label": p, "times_us": rows[p]} for p in plans]}
           for g, plans in ((1, ["a", "c"]), (2, ["b"]))] + \
    [{"workload": "v", "rows": [{"plan_label": "a", "times_us": pick}]}]
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump({"models": entries}, f)
    times = tb.round_times(d)
check("round_times: each plan's loop", {k: v[0] for k, v in times.items()},
      {("w", "a"): 1, ("w", "c"): 1, ("w", "b"): 2, ("v", "a"): None})


def row(plan, predicted):
    t = sorted(rows[plan])
    return {"workload": "w", "plan": plan, "predicted_us": predicted, "lo_us": 0.0,
            "hi_us": 1e9, "rel_err": 0.0, "inside": True, "overhead_ok": True, "iterations": 4,
            "iters_inside": 4, "measured_us": (t[1] + t[2]) / 2}


scored = [row("a", 90.0), row("b", 100.0), row("c", 150.0)]
check("score, pick and fastest in two groups: unpaired", tb.score("  w", scored, times)[4]["w"],
      tb.fastest_interval(pick, fast, paired=False))
one_loop = {k: (1, v[1]) for k, v in times.items()}
check("score, pick and fastest in one group: paired", tb.score("  w", scored, one_loop)[4]["w"],
      (0.10, 0.10))
check("overhead_interval, every round 10 us more", tb.overhead_interval([110, 110], [100, 100]), (10, 10))
check("overhead_interval, one round 30 us more", tb.overhead_interval([100, 130], [100, 100]), (0, 30))
check("overhead_interval, one round", tb.overhead_interval([110], [100]), None)
spread, steady = (None, [100, 130], [100, 100]), (None, [110, 110], [100, 100])
ov_times = {("w", "in"): spread, ("w", "near"): spread, ("w", "far"): spread, ("w", "steady"): steady,
            ("w", "met"): spread}


def ov_row(plan, predicted, ok=False):
    return {"workload": "w", "plan": plan, "overhead_predicted_us": predicted, "overhead_ok": ok}


check("overhead_unresolved", tb.overhead_unresolved(
    [ov_row("in", 20.0), ov_row("near", 320.0), ov_row("far", 350.0), ov_row("steady", 1000.0),
     ov_row("met", 20.0, ok=True), ov_row("no rounds", 20.0)], ov_times), 2)


def row_row(plan, predicted):
    return {"workload": "w", "plan": plan, "predicted_us": predicted, "measured_us": 115.0,
            "compute_only_us": 100.0, "rel_err": predicted / 115.0 - 1}


check("rows_unresolved", tb.rows_unresolved(
    [row_row("in", 136.0), row_row("near", 140.0), row_row("far", 104.0), row_row("steady", 90.0),
     row_row("met", 118.0), row_row("no rounds", 136.0)],
    {("w", "in"): spread, ("w", "near"): spread, ("w", "far"): spread, ("w", "steady"): spread,
     ("w", "met"): spread}), 2)
with tempfile.TemporaryDirectory() as d:
    def model(name, twin):
        return {"workload": name, "compute_only_us": 100.0, "compute_only_p5_us": 90.0,
                "compute_only_p95_us": 120.0, "compute_only_times_us": [100.0, 100.0],
                "rows": [{"plan_label": "p", "times_us": [100.0, 100.0]}],
                "loop_probes": {"baseline twin": {"times_us": twin}} if twin else {}}
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump({"models": [model("steady", [110.0, 110.0]), model("spread", [100.0, 130.0]),
                              model("none", None)]}, f)
    twins = tb.baseline_twins(d)
    check("baseline_twins: models", [w for w, _, _ in twins], ["steady", "spread"])
    check("baseline_twins: steady gap", round(twins[0][1], 12), 0.10)
    check("baseline_twins: steady holds 0", twins[0][2], False)
    check("baseline_twins: spread gap", round(twins[1][1], 12), 0.15)
    check("baseline_twins: spread holds 0", twins[1][2], True)
    check("loop_spreads", {k: round(v, 12) for k, v in tb.loop_spreads(d).items()},
          {("steady", "p"): 0.3, ("spread", "p"): 0.3, ("none", "p"): 0.3})
sys.exit(1 if FAIL else 0)
