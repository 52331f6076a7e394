#!/usr/bin/env python3
"""loop_issue_probe.py: the in-backward issue's own calls timed inside the validation loop itself
(issue 10, session 26, torch17; an experiment, used by no prediction).

The loops of runs 11-28 pay per in-backward issue more than fusim charges (the plan's backward()
CPU over the 25 MiB overlap-off plan's, paired by round, over its buckets), and more the farther
apart the issues are; the captures time each issue's own calls (torch_modelcost.issue_direct)
and price them, but a loop has never timed them. Whether the excess is (a) the issue's own calls
dearer in the loop than at capture, or (b) backward's own host work slowed after each issue
(only a whole-backward difference sees it), this decides: the loop of validate_torch (compute-only
and every plan of PLANS, each on its own copy of the model, in a new random order every round)
with every hook-pattern issue's own calls timed (perf_counter_ns around HookFuser._issue, as the
capture times them) and its start, so each issue's spacing (host time since the previous issue
of the step ended) is known.

Per model and hook plan it prints: buckets, the loop's whole-backward cost per issue (backward()
CPU over the overlap-off plan's, median of same-round differences, over the buckets), the issues'
own calls (median, a step's first apart), and what is left: (b).

    python3 tools/loop_issue_probe.py --models mnasnet1_0:64,convnext_small:32 --rounds 30 --out p.json
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HOOK_PLANS = ("hooks none", "hooks 4MiB", "hooks 25MiB", "hooks 25MiB overlap off")


def timed(fuser, rec):
    """Wraps fuser._issue so that each call appends (start, end) perf_counter_ns to rec[0]."""
    inner = fuser._issue

    def issue(b):
        t0 = time.perf_counter_ns()
        inner(b)
        rec[0].append((t0, time.perf_counter_ns()))
    fuser._issue = issue


def run_model(name, batch, seq, rounds, warmup, seed, log):
    import torch
    import validate_torch as V
    torch.manual_seed(0)
    base, inputs, loss_fn, desc = V.build_model(name, batch, seq)
    runners = [V.Runner(base, None, inputs, loss_fn)] + [V.Runner(base, p, inputs, loss_fn)
                                                        for p in V.PLANS]
    recs = {}
    for r in runners:
        if r.label in HOOK_PLANS:
            recs[r.label] = [[]]
            timed(r.fuser, recs[r.label])
    ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = {r.label: {"cpu": [], "issues": []} for r in runners}
    rng = random.Random(seed)
    t_start = time.time()
    for k in range(warmup + rounds):
        order = list(range(len(runners)))
        rng.shuffle(order)
        for i in order:
            r = runners[i]
            rec = recs.get(r.label)
            if rec is not None:
                rec[0] = []
            r.step(ev0, ev1)
            if k < warmup:
                continue
            out[r.label]["cpu"].append([round(x, 1) for x in r.last_cpu])
            if rec is not None:
                out[r.label]["issues"].append([[t0, t1 - t0] for t0, t1 in rec[0]])
    log("%s b%d: %d rounds in %.1f s" % (name, batch, rounds, time.time() - t_start))
    return {"model": name, "batch": batch, "desc": desc,
            "P": sum(1 for p in base.parameters() if p.requires_grad), "runs": out}


def summarize(res, log):
    """Per hook plan: buckets a step, whole-backward us per issue over overlap off (paired), the
    issues' own calls (median of every issue but a step's first, and of the firsts), spacing."""
    runs = res["runs"]
    co = [c[1] for c in runs["compute-only"]["cpu"]]
    off = [c[1] for c in runs["hooks 25MiB overlap off"]["cpu"]]
    bwd = statistics.median(co)
    lines = []
    for lab in ("hooks none", "hooks 4MiB", "hooks 25MiB"):
        x = runs[lab]
        nb = statistics.median(len(s) for s in x["issues"])
        whole = statistics.median(a[1] - b for a, b in zip(x["cpu"], off)) / nb
        rest = [d / 1e3 for s in x["issues"] for _, d in s[1:]]
        first = [s[0][1] / 1e3 for s in x["issues"] if s]
        apart = [(s[j][0] - s[j - 1][0] - s[j - 1][1]) / 1e3 for s in x["issues"]
                 for j in range(1, len(s))]
        calls = (statistics.mean(first) + (nb - 1) * (statistics.mean(rest) if rest else 0)) / nb
        lines.append({"plan": lab, "buckets": nb, "us_apart_loop": round(bwd / nb, 1),
                      "us_apart_issues": round(statistics.median(apart), 1) if apart else None,
                      "whole_us_per_issue": round(whole, 1),
                      "calls_us": round(statistics.median(rest), 1) if rest else None,
                      "first_calls_us": round(statistics.median(first), 1),
                      "calls_mean_per_issue": round(calls, 1),
                      "left_us_per_issue": round(whole - calls, 1)})
        log("  %-12s %4d buckets, %7.0f us apart: whole %7.1f us an issue, own calls %s (first %.1f; "
            "mean a step %.1f), left %.1f" % (lab, nb, bwd / nb, whole, lines[-1]["calls_us"],
                                              lines[-1]["first_calls_us"], calls, whole - calls))
    res["summary"] = lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="mnasnet1_0:64")
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import validate_torch as V
    models = V.parse_models(a.models)
    import calib_torch
    torch = calib_torch.import_torch("loop_issue_probe")
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    import torch_host
    torch_host.ensure_process_group()

    def log(msg):
        print(msg, flush=True)

    res = {"machine": V.machine_info(), "command": " ".join([sys.executable] + sys.argv),
           "models": []}
    for n, b in models:
        m = run_model(n, b, a.seq, a.rounds, a.warmup, a.seed, log)
        summarize(m, log)
        res["models"].append(m)
        with open(a.out, "w") as fh:
            json.dump(res, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
