#!/usr/bin/env python3
"""torch_decomp.py: where each real-PyTorch row's error comes from (issue 10), from what the run
measured and what fusim charged. Each run is predicted again (tools/store_torch_validation.py
--no-store --trace-dir) and every row's error, predicted minus measured over measured, is split
into parts that add up to it exactly:

  noise  the row's measured overhead as stored (median of the plan's iterations minus the median
         of compute-only's) against the median of same-round differences; a positive noise (the
         stored overhead larger) counts against the prediction (-noise / measured)
  base   the simulated compute-only step minus the measured one (the anchor's miss)
  fwd    the framework's host cost fusim charged before backward (DDP's forward) minus the
         loop's forward CPU time over compute-only's (median of same-round differences)
  bwd    the host cost charged from the first backward launch to backward's end (per-gradient
         hooks, bucket calls and issues from inside backward, DDP's finalize) minus the loop's
         backward() CPU time over compute-only's
  rest   the host cost charged after backward (the hook pattern's issues with overlap off)
         minus the loop's rest-of-step CPU time over compute-only's
  other  what is left: GPU and communication time the host does not hide, and the medians of
         the phases not adding up to the median of their sum

--misses adds, over all the runs given, the rows whose |error| is above 5% per sign: each part's
mean, how many rows each part leads (the part farthest in the error's direction) and the plans.

On a host-bound step (every slow lease: compute-only's step equals the sum of its phases' CPU
times within 0.2 ms) the measured overhead is the CPU time the plan adds, so fwd / bwd / rest
say which framework cost was mispriced.

    python3 tools/torch_decomp.py data/validation/torch_h200_run21 [RUNDIR ...]
    python3 tools/torch_decomp.py --summary data/validation/torch_h200_run{11,18,19,20,21}
    python3 tools/torch_decomp.py --summary --misses data/validation/torch_h200_run{11..27}
    python3 tools/torch_decomp.py data/validation/torch_h200_run29 -- --plan-jitter

Options after `--` go to the store's prediction (tools/store_torch_validation.py: a variant).

A RUNDIR that is not a validation run, or whose rounds lack their CPU times (runs before 8): one
line on stderr, exit 65, before anything is predicted.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

from torch_run_report import load_run, paired

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STORE = os.path.join(ROOT, "tools", "store_torch_validation.py")
PARTS = ("noise", "base", "fwd", "bwd", "rest", "other")


def host_charges(events, after_backward_issues):
    """(before backward, in backward, after backward) sums of the framework's host costs (trace
    events of category 'host' on the host thread; the workload's own host work there is
    'host,workload') in a fusim Chrome trace's event list. Backward
    starts at the first 'bwd' launch; an event after it counts as after backward only when it is
    an 'issue' and after_backward_issues (the hook pattern with overlap off issues every bucket
    after backward() returns, in the step's rest); DDP's finalize runs inside backward()."""
    tid = next((e["tid"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
                and e["args"]["name"] == "host thread"), None)
    host = [e for e in events if e.get("ph") == "X" and e.get("tid") == tid]
    t_bwd = min((e["ts"] for e in host if e["name"].startswith("bwd")), default=None)
    fwd = bwd = rest = 0.0
    for e in host:
        if e.get("cat") != "host":
            continue
        if t_bwd is None or e["ts"] < t_bwd:
            fwd += e["dur"]
        elif after_backward_issues and e["name"].startswith("issue"):
            rest += e["dur"]
        else:
            bwd += e["dur"]
    return fwd, bwd, rest


def split(meas, co, cpu, co_cpu, predicted, sim_compute, charged):
    """The error's parts (in us; their sum is predicted - median(meas)): meas, co the plan's and
    compute-only's iteration times per round; cpu, co_cpu their [forward, backward(), rest] CPU
    times per round; predicted, sim_compute fusim's iteration and compute-only step; charged
    host_charges()'s triple."""
    m_ov = statistics.median(meas) - statistics.median(co)
    p = {"noise": -(m_ov - paired(meas, co)),
         "base": sim_compute - statistics.median(co)}
    for k, name in enumerate(("fwd", "bwd", "rest")):
        p[name] = charged[k] - paired([c[k] for c in cpu], [c[k] for c in co_cpu])
    err = predicted - statistics.median(meas)
    p["other"] = err - sum(p[k] for k in PARTS[:-1])
    return p


def decompose(rundir, fusim, tmp, store_args=()):
    """[(workload, plan, measured, error, parts)] for one run, and per workload how far the
    compute-only step is above its host phases (median over rounds of the step minus its
    forward + backward() + rest CPU times: about 0 where the step is host-bound). store_args:
    more options for the store's prediction (a variant, e.g. --no-ddp-spacing)."""
    tdir = os.path.join(tmp, os.path.basename(os.path.normpath(rundir)))
    out = tdir + ".csv"
    p = subprocess.run([sys.executable, STORE, rundir, "--fusim", fusim, "--no-store", "--csv", out,
                        "--trace-dir", tdir] + list(store_args), capture_output=True, text=True)
    if p.returncode != 0:   # its last line says why (one line, or a traceback's last)
        sys.exit("torch_decomp: %s: store_torch_validation failed: %s"
                 % (rundir, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]))
    with open(out) as f:
        pred = {(r["workload"], r["plan"]): r for r in
                csv.DictReader(line for line in f if not line.startswith("#"))}
    run = load_run(rundir)
    rows, above = [], {}
    for m in run["models"]:
        co, co_cpu = m["compute_only_times_us"], m["compute_only_cpu_times_us"]
        above[m["workload"]] = paired(co, [sum(c) for c in co_cpu])
        for r in m["rows"]:
            pr = pred[(m["workload"], r["plan_label"])]
            with open(os.path.join(tdir, "%s__%s.json" % (m["workload"],
                                                          r["plan_label"].replace(" ", "_")))) as f:
                ev = json.load(f)
            ev = ev["traceEvents"] if isinstance(ev, dict) else ev
            iter_us = float(pr["predicted_us"])
            charged = host_charges(ev, r["framework"] == "hooks" and r["overlap"] == "off")
            parts = split(r["times_us"], co, r["cpu_times_us"], co_cpu, iter_us,
                          iter_us - float(pr["overhead_predicted_us"]), charged)
            meas = float(pr["measured_us"])
            rows.append((m["workload"], r["plan_label"], meas, iter_us - meas, parts))
    return rows, above


def misses(rows, bound=0.05):
    """The rows whose |error| is above bound (a fraction of the measured iteration), per sign
    ("fast": predicted too fast, "slow"): {sign: (count, {part: mean % of the iteration},
    {part: rows where it is the part farthest in the error's direction}, {plan: rows})}, from
    rows of decompose() (workload, plan, measured, error, parts), any runs together."""
    out = {}
    for sign, pick in (("fast", lambda e: e < -bound), ("slow", lambda e: e > bound)):
        sel = [r for r in rows if pick(r[3] / r[2])]
        if not sel:
            continue
        mean = {k: 100 * statistics.mean(r[4][k] / r[2] for r in sel) for k in PARTS}
        lead, plans = {}, {}
        for r in sel:
            k = (min if sign == "fast" else max)(PARTS, key=lambda k: r[4][k])
            lead[k] = lead.get(k, 0) + 1
            plans[r[1]] = plans.get(r[1], 0) + 1
        out[sign] = (len(sel), mean, lead, plans)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundirs", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    ap.add_argument("--summary", action="store_true",
                    help="per run and model only: the median |part| in %% of the iteration")
    ap.add_argument("--misses", action="store_true",
                    help="then, over all the runs given, the rows above 5%% per sign: the parts' "
                         "means, which part leads each row's error, and the plans")
    argv = sys.argv[1:]
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.store_args = argv[argv.index("--") + 1:] if "--" in argv else []
    for d in a.rundirs:   # every run readable, with its rounds' CPU times, before any output
        try:
            load_run(d)
        except ValueError as e:
            print("torch_decomp: %s" % e, file=sys.stderr)
            return 65
    with tempfile.TemporaryDirectory(prefix="torch-decomp-") as tmp:
        return show(a, tmp)


def show(a, tmp):
    """Prints every row of every run split into PARTS, and per model the median parts (only
    those with --summary); tmp: where the traces and matrices go."""
    print("%% of the measured iteration; error = %s" % " + ".join(PARTS))
    every = []
    for d in a.rundirs:
        rows, above = decompose(d, a.fusim, tmp, a.store_args)
        every += rows
        print("== %s" % os.path.basename(os.path.normpath(d)))
        for w in dict.fromkeys(r[0] for r in rows):
            rs = [r for r in rows if r[0] == w]
            if not a.summary:
                for _, plan, meas, err, p in rs:
                    print("%-30s %-24s err %+6.2f = %s" % (w[:30], plan, 100 * err / meas, " ".join(
                        "%s %+6.2f" % (k, 100 * p[k] / meas) for k in PARTS)))
            med = {k: statistics.median(abs(r[4][k]) / r[2] for r in rs) for k in PARTS}
            print("%-30s median |part|: err %5.2f  %s; compute-only step - host phases %.2f ms" % (
                w[:30], 100 * statistics.median(abs(r[3]) / r[2] for r in rs),
                "  ".join("%s %5.2f" % (k, 100 * med[k]) for k in PARTS), above[w] / 1e3))
    if a.misses:
        print("== rows above 5%%, %d runs, %d rows" % (len(a.rundirs), len(every)))
        for sign, (n, mean, lead, plans) in misses(every).items():
            print("too %s %d: mean %s" % (sign, n, "  ".join("%s %+.2f" % (k, mean[k])
                                                             for k in PARTS)))
            print("  led by: %s" % ", ".join("%s %d" % kv for kv in
                                              sorted(lead.items(), key=lambda kv: -kv[1])))
            print("  plans: %s" % ", ".join("%s %d" % kv for kv in
                                             sorted(plans.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
