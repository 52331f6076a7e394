#!/usr/bin/env python3
"""spacing_compare.py: the capture's issue-spacing curve (host.issue_spacing, from torch_modelcost's
spacing variants) against the loop's own spacing points (torch_run_report's spacing section), per
model of a run (session 24, issue 10, helper torch11; run 23 is the first with the variants).

Both are carried to the loop's host speed as store_torch_validation carries them: the capture's
curve times f = the loop's framework-free backward() CPU over the capture's (both coordinates).
The curve is read as fusim reads it: linear between points, the end's value beyond the ends.
Per loop point: its spacing and cost, the carried curve there, and the spacing variants' own
points (all three, before spacing_curve drops those whose bootstrap p5 is not above 0).

    python3 data/validation/spacing_compare.py data/validation/torch_h200_run23
"""
import json
import os
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import torch_run_report as rr  # noqa: E402
from store_torch_validation import curve_at as at  # noqa: E402,F401  fusim's reading of a curve


def main(rundir):
    run = rr.load_run(rundir)   # ValueError: one line saying why
    for m in run["models"]:
        path = os.path.join(rundir, "wl_%s.json" % m["workload"])
        try:
            with open(path) as f:
                wl = json.load(f)
        except (OSError, ValueError) as e:
            raise ValueError("%s: %s" % (path, getattr(e, "strerror", None) or e))
        fm = (wl.get("meta") or {}).get("framework_on_model") or {}
        if not fm.get("bwd_cpu_us"):
            print("%s: no costs measured on the model (meta.framework_on_model)" % m["workload"])
            continue
        f_ = m["compute_only_cpu_fwd_bwd_rest_us"][1] / fm["bwd_cpu_us"]
        print("%s: carried x%.3f (loop backward() CPU %.0f / capture's %.0f us)"
              % (m["workload"], f_, m["compute_only_cpu_fwd_bwd_rest_us"][1], fm["bwd_cpu_us"]))
        curves = wl["host"].get("issue_spacing") or {}
        pts = fm.get("issue_spacing") or {}
        for key, loop in (("hooks", rr.hooks_spacing(m)),
                          ("ddp_offload", [p for p in rr.offload_spacing(m, fm)
                                           if p[0] != "model"])):
            var = "; ".join("%.0f us apart %.1f [%.0f, %.0f]" % (p[1] * f_, p[2] * f_, p[3][0] * f_,
                                                                 p[3][1] * f_)
                            for p in pts.get(key, []))
            print("  %-11s variants, carried: %s" % (key, var or "-"))
            c = curves.get(key)
            cc = [[x * f_, y * f_] for x, y in c] if c else None
            for lab, nb, apart, us in loop:
                print("  %-11s loop %-8s %4d buckets %6.0f us apart %7.1f us | curve %s"
                      % (key, lab, nb, apart, us, "%.1f" % at(cc, apart) if cc else
                         "none (fewer than two points with p5 > 0)"))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: spacing_compare.py RUNDIR ...")
    for d in sys.argv[1:]:
        try:
            main(d)
        except ValueError as e:
            print("spacing_compare: %s" % e, file=sys.stderr)
            sys.exit(65)
