#!/usr/bin/env python3
"""hook_per_tensor.py: what the hook pattern's per-tensor plan (`hooks none`, an issue per
gradient) pays in the validation loop against what the capture measured, per model-run of every
committed run with hk_0 (run 23 on; no GPU). All us a tensor, carried to the loop as the store
carries them (the loop's framework-free backward() CPU median over the capture's):
  loop tot   `hooks none`'s backward() CPU over compute-only's, paired by round
  loop off   the 25 MiB overlap-off plan's (the same hooks and copies, no issue inside backward)
  loop iss   tot - off: the in-backward issue as the loop pays it
  cap tot    (hk_n - none) / P, what the store charges the per-tensor plan
  cap hk0    (hk_0 - none) / P, the hooks and copies
  cap iss    tot - hk0: the issue, whole (the dense bucket the store prices)
  calls      the issue's own calls timed call by call at that spacing (captures from run 25 on)
Then, over the runs up to LAST_IN_SAMPLE and after it apart (held out, post hoc): the median of
loop / capture and the sd of its log, for the whole per-tensor cost, the issue whole, and the
issue's calls, with the calls times torch_modelcost.DENSE_WHOLE_OVER_CALLS (the loop probe's
whole over calls at one issue per gradient; store --dense-from-calls).
With torch_decomp outputs given: each model-run's `hooks none` error, its median, and its
offset from its model-run's median error (whether the per-tensor plan is biased).

    python3 data/validation/hook_per_tensor.py [TORCH_DECOMP.txt ...]   (hook_per_tensor.txt)
"""
import json
import math
import os
import re
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import bad_input  # noqa: E402
import torch_modelcost  # noqa: E402
import torch_runs  # noqa: E402
from copy_paired import paired_loop  # noqa: E402
from miss_sources import read  # noqa: E402

LAST_IN_SAMPLE = 29   # run 30 (Swin-S, ResNeXt-101 32x8d) was seen after: post hoc only


def model_runs(root=HERE):
    """(run, workload, figures) per model-run with hk_0 rounds and both hook rows."""
    runs = []
    for d in os.listdir(root):
        m = re.fullmatch(r"torch_h200_run(\d+)", d)
        if m and os.path.exists(torch_runs.find(os.path.join(root, d, "runs.json"))):
            runs.append(int(m.group(1)))
    for n in sorted(runs):
        path = os.path.join(root, "torch_h200_run%d" % n, "runs.json")
        models = torch_runs.load(path)["models"]
        for m in models:
            rows = {r["plan_label"]: r for r in m["rows"]}
            wl = os.path.join(os.path.dirname(path), "wl_%s.json" % m["workload"])
            if not os.path.exists(wl) or not {"hooks none", "hooks 25MiB overlap off"} <= set(rows):
                continue
            with open(wl) as f:
                fm = ((json.load(f).get("meta") or {}).get("framework_on_model")) or {}
            raw = fm.get("raw") or {}
            if not raw.get("hk_n") or not raw.get("hk_0"):
                continue
            P, c = fm["P"], m["compute_only_cpu_fwd_bwd_rest_us"][1] / fm["bwd_cpu_us"]

            def cap(v):
                return st.median(h - z for h, z in zip(raw[v], raw["none"])) / P * c
            co = m["compute_only_cpu_times_us"]
            calls = (fm.get("issue_direct") or {}).get("hooks")
            yield n, m["workload"], {
                "P": P, "loop_tot": paired_loop(rows["hooks none"]["cpu_times_us"], co, P)[0],
                "loop_off": paired_loop(rows["hooks 25MiB overlap off"]["cpu_times_us"], co, P)[0],
                "cap_tot": cap("hk_n"), "cap_hk0": cap("hk_0"),
                "calls": calls[0][2] * c if calls else None}


def summary(name, xs):
    return "%-34s %2d model-runs, loop / capture median %.2f, sd of log %.3f" % (
        name, len(xs), math.exp(st.median(xs)), st.pstdev(xs)) if xs else "%-34s none" % name


def decomp_errors(paths):
    """{(run, workload): {plan: error}} of torch_decomp outputs (miss_sources.read's rows)."""
    out = {}
    for p in paths:
        for r in read(p):
            if r["run"] is not None:   # rows before any "== RUN" line name no run
                n = int(re.search(r"run(\d+)", r["run"]).group(1))
                out.setdefault((n, r["model"]), {})[r["plan"]] = r["err"]
    if not out:
        raise ValueError("no torch_decomp rows")
    return out


def main(decomps, root=HERE):
    errs = decomp_errors(decomps) if decomps else None   # bad input before any line
    r = torch_modelcost.DENSE_WHOLE_OVER_CALLS
    logs = {k: {"in": [], "post": []} for k in ("tot", "iss", "tot_timed", "calls", "rcalls")}
    print("run model                          P  loop: tot   off   iss | cap: tot   hk0   iss  calls")
    for n, wl, f in model_runs(root):
        li, ci = f["loop_tot"] - f["loop_off"], f["cap_tot"] - f["cap_hk0"]
        print("%3d %-28s %4d  %6.1f %5.1f %5.1f | %6.1f %5.1f %5.1f %s" % (
            n, wl[:28], f["P"], f["loop_tot"], f["loop_off"], li, f["cap_tot"], f["cap_hk0"], ci,
            "%6.1f" % f["calls"] if f["calls"] else "     -"))
        part = logs["tot"]["in" if n <= LAST_IN_SAMPLE else "post"]
        part.append(math.log(f["loop_tot"] / f["cap_tot"]))
        logs["iss"]["in" if n <= LAST_IN_SAMPLE else "post"].append(math.log(li / ci))
        if f["calls"]:
            k = "in" if n <= LAST_IN_SAMPLE else "post"
            logs["tot_timed"][k].append(math.log(f["loop_tot"] / f["cap_tot"]))
            logs["calls"][k].append(math.log(li / f["calls"]))
            logs["rcalls"][k].append(math.log(f["loop_tot"] / (f["cap_hk0"] + r * f["calls"])))
    names = {"tot": "per tensor whole (the store's)", "iss": "issue whole (cap iss)",
             "tot_timed": "per tensor whole, where calls timed",
             "calls": "issue's calls (calls)", "rcalls": "hk0 + %.2f x calls (--dense-from-calls)" % r}
    for part, label in (("in", "runs <= %d" % LAST_IN_SAMPLE), ("post", "held out after, post hoc")):
        print(label)
        for k in logs:
            print("  " + summary(names[k], logs[k][part]))
    if errs:
        hn, off = [], []
        for (n, wl), d in sorted(errs.items()):
            if "hooks none" in d and n <= LAST_IN_SAMPLE:
                hn.append(d["hooks none"])
                off.append(d["hooks none"] - st.median(d.values()))
        print("hooks none over %d model-runs (runs <= %d): error mean %+.2f median %+.2f; less its "
              "model-run's median: mean %+.2f median %+.2f, above 0 in %d" % (
                  len(hn), LAST_IN_SAMPLE, st.mean(hn), st.median(hn), st.mean(off),
                  st.median(off), sum(o > 0 for o in off)))
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("hook_per_tensor", main, sys.argv[1:]))
