#!/usr/bin/env python3
"""ddp_forward_carry.py: how well DDP's forward cost measured on the model at capture
(meta.framework_on_model.ddp_forward, tools/torch_modelcost.py) matches the validation loop's own,
carried three ways. A diagnostic: it prints, it changes nothing.

The loop's own: per model, the median over its DDP plans of (the plan's forward CPU time - the
compute-only runner's), medians over rounds (runs.json cpu_times_us). Against it, the capture's
forward_us F:
  - as measured (no carry);
  - times the forward factor tools/store_torch_validation.py forward_factor applies (the loop's
    framework-free forward CPU time over the capture's);
  - times the backward() factor the other on-model costs take.

Session 46 (every one-GPU run with the measurement, 58 models): median |difference| 343 us with no
carry, 523 with the forward factor, 362 with backward()'s; sums 48.1, 55.2 and 49.1 ms. In the
bench (tests/bench/torch_validation_bench.py, runs 11 on; before the one-rank all-reduce change of
the same session) either change was a wash (median 1.88%
-> 1.89 or 1.96%, overhead 708 -> 716 or 708 of 1214), so the forward factor was kept. Some
loops' forwards wait on the GPU (ALBERT's forward CPU time in run 41b, 15.5 ms, is its GPU time),
so a forward CPU time is not always the host's speed.

Usage: python3 tools/ddp_forward_carry.py RUNDIR [RUNDIR ...]
"""
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import store_torch_validation  # noqa: E402
import torch_runs  # noqa: E402


def rows(rundir):
    """(workload, loop's DDP forward cost, F, forward factor, backward() factor) per model with the
    capture's measurement."""
    run = torch_runs.load(rundir)
    wls = {}
    for f in glob.glob(os.path.join(rundir, "wl_*.json")):
        with open(f) as fh:
            w = json.load(fh)
        wls[w["name"]] = w
    out = []
    for m in run["models"]:
        w = wls.get(m["workload"])
        fm = ((w or {}).get("meta") or {}).get("framework_on_model") or {}
        cpu = m.get("compute_only_cpu_fwd_bwd_rest_us")
        if not fm.get("forward_replaced") or not cpu or not m.get("compute_only_cpu_times_us"):
            continue
        co = statistics.median(c[0] for c in m["compute_only_cpu_times_us"])
        extra = [statistics.median(c[0] for c in r["cpu_times_us"]) - co for r in m["rows"]
                 if r["plan_label"].startswith("ddp") and r.get("cpu_times_us")]
        if not extra or not fm.get("bwd_cpu_us"):
            continue
        out.append((m["workload"], statistics.median(extra), w["host"]["ddp"]["forward_us"],
                    store_torch_validation.forward_factor(w, m), cpu[1] / fm["bwd_cpu_us"]))
    return out


def main(argv):
    if len(argv) < 2:
        print("usage: ddp_forward_carry.py RUNDIR [RUNDIR ...]", file=sys.stderr)
        return 64
    all_rows, lines = [], ["%-18s %-34s %8s %8s %8s %8s" % ("run", "workload", "loop", "F", "F*fwd", "F*bwd")]
    for d in argv[1:]:
        try:
            found = rows(d)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print("ddp_forward_carry: %s: not a validation run (%s)" % (d, e), file=sys.stderr)
            return 66
        for wl, loop, f, ff, fb in found:
            all_rows.append((loop, f, f * ff, f * fb))
            lines.append("%-18s %-34s %8.0f %8.0f %8.0f %8.0f" % (os.path.basename(os.path.normpath(d)), wl[:34],
                                                                 loop, f, f * ff, f * fb))
    if not all_rows:
        print("ddp_forward_carry: no model with DDP's forward measured at capture", file=sys.stderr)
        return 65
    print("\n".join(lines))
    for i, name in ((1, "no carry"), (2, "forward factor (store's)"), (3, "backward() factor")):
        e = [abs(r[i] - r[0]) for r in all_rows]
        print("%-26s %d models: median |difference| %.0f us, max %.0f, sum %.1f ms"
              % (name, len(e), statistics.median(e), max(e), sum(e) / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
