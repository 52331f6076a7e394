#!/usr/bin/env python3
"""offload_increment.py: what DDP's offload comm hook costs inside backward() over DDP's own
all-reduce with the same buckets, in the validation loop and as fusim charges it (issue 10: the
"ddp offload 4MiB" rows priced too fast; no GPU). Per model-run and bucket cap (4 MiB, DDP's
default 25 MiB), us a bucket:
  loop off   `ddp offload X` less `ddp X` (copy mode both, the same buckets), backward() CPU
             paired by round, over the buckets (torch_run_report.pair_gap)
  loop hk    the hook pattern's in-backward issue at about the same spacing: `hooks 4MiB` /
             `hooks 25MiB` less `hooks 25MiB overlap off`, paired, over its buckets
             (torch_run_report.hooks_spacing)
  charged    what the store's prediction charges for the same difference: the mean host 'issue'
             of `ddp offload X`'s trace less `ddp X`'s (fusim's DDP bucket call, comm hook or
             all-reduce; every other host cost of the two plans is the same)
  own        (charged - loop off) x buckets over the offload row's measured iteration, in %: the
             part of the row's error this difference makes (below 0: priced too fast)
Then, over the model-runs: loop off / loop hk (the two Python paths make the same calls: an
event, the side stream's wait, the copy into pinned memory), charged / loop off, and the own
part's mean and how often it is below 0. --whatif FUSIM prices the same runs with a second fusim
binary (e.g. built with offload_ddp_rise.patch) beside the first.

    python3 data/validation/offload_increment.py [--fusim F] [--whatif F2] RUNDIR...
        (offload_increment.txt)

A RUNDIR that is not a validation run with per-round CPU times: one line on stderr, exit 65.
"""
import argparse
import csv
import json
import os
import statistics as st
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import bad_input  # noqa: E402
from torch_run_report import load_run, pair_gap, hooks_spacing  # noqa: E402

STORE = os.path.join(ROOT, "tools", "store_torch_validation.py")
PAIRS = (("4MiB", "ddp offload 4MiB", "ddp 4MiB", "4MiB"),
         ("default", "ddp offload default", "ddp default", "25MiB"))


def issue_mean(events):
    """The mean duration of the host 'issue' tasks in a fusim Chrome trace's event list (fusim's
    DDP bucket calls, fu__hg_issue), or None without any."""
    xs = [e["dur"] for e in events if e.get("ph") == "X" and e.get("cat") == "host"
          and e.get("name", "").startswith("issue")]
    return sum(xs) / len(xs) if xs else None


def increments(m, charged):
    """Per bucket cap of one model-run (runs.json's model m): (cap, buckets, us apart, loop off,
    loop hk or None, charged or None, measured offload iteration). charged(plan): the mean issue
    fusim charges that plan, or None."""
    bwd = st.median(c[1] for c in m["compute_only_cpu_times_us"])
    hk = {h[0]: h[3] for h in hooks_spacing(m)}
    rows = {r["plan_label"]: r for r in m["rows"]}
    out = []
    for cap, off, ar, hcap in PAIRS:
        g = pair_gap(m, (off, ar))
        if g is None:
            continue
        a, b = charged(off), charged(ar)
        out.append((cap, g[1], bwd / g[1], g[0], hk.get(hcap),
                    a - b if a is not None and b is not None else None,
                    rows[off]["measured_us"]))
    return out


def capture_points(fm):
    """The capture's whole DDP bucket in view mode (torch_modelcost's variants, backward() CPU
    over the framework-free step's, paired by round, less ddpv_1's: one bucket's worth of the
    per-parameter work), us a bucket, at one bucket per parameter and at the every-16 spacing:
    (P, dense all-reduce, dense offload, buckets, us apart, all-reduce, offload), or None
    where the capture lacks ddpv_n, ddpo_n, ddpv_e16 or ddpo_e16."""
    if not fm:
        return None
    raw = fm.get("raw") or {}
    nb = ((fm.get("issue_spacing") or {}).get("buckets") or {}).get("ddpo_e16")
    if not nb or nb < 2 or not all(raw.get(v) for v in
                                   ("none", "ddpv_1", "ddpv_n", "ddpo_n", "ddpv_e16", "ddpo_e16")):
        return None

    def d(v):
        return st.median(a - b for a, b in zip(raw[v], raw["none"]))
    P, one = fm["P"], d("ddpv_1")
    return (P, (d("ddpv_n") - one) / (P - 1), (d("ddpo_n") - one) / (P - 1), nb,
            fm["bwd_cpu_us"] / nb, (d("ddpv_e16") - one) / (nb - 1),
            (d("ddpo_e16") - one) / (nb - 1))


def own_part(charged, loop, buckets, measured):
    """The row's error part (%) of the difference as charged against the loop's."""
    return 100.0 * (charged - loop) * buckets / measured


def predicted(rundir, fusim, tmp):
    """charged(workload, plan) for one run priced by the store with fusim (traces in tmp)."""
    tdir = os.path.join(tmp, os.path.basename(os.path.normpath(rundir)) + "_" +
                        str(abs(hash(fusim))))
    p = subprocess.run([sys.executable, STORE, rundir, "--fusim", fusim, "--no-store",
                        "--csv", tdir + ".csv", "--trace-dir", tdir],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise ValueError("store_torch_validation failed: %s"
                         % (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1])

    def charged(w, plan):
        path = os.path.join(tdir, "%s__%s.json" % (w, plan.replace(" ", "_")))
        if not os.path.exists(path):
            return None
        with open(path) as f:
            ev = json.load(f)
        return issue_mean(ev["traceEvents"] if isinstance(ev, dict) else ev)
    return charged


def quartiles(xs):
    q = st.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return "%.2f [%.2f, %.2f]" % (st.median(xs), q[0], q[2])


def summary(rows, cap, k):
    """Lines for one cap over rows [(run, w, cap, n, apart, loop, hk, [charged per binary],
    measured)], binary k: charged / loop, the own part."""
    sel = [r for r in rows if r[2] == cap and r[7][k] is not None]
    if not sel:
        return "  %s: no model-runs" % cap
    ratio = [r[7][k] / r[5] for r in sel if r[5] > 0]
    own = [own_part(r[7][k], r[5], r[3], r[8]) for r in sel]
    return ("  %-7s charged / loop off %s (%d); own part mean %+.2f%%, median %+.2f%%, below 0 "
            "in %d of %d, sum |own| %.1f" % (cap, quartiles(ratio), len(ratio), st.mean(own),
                                             st.median(own), sum(o < 0 for o in own), len(own),
                                             sum(abs(o) for o in own)))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundirs", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    ap.add_argument("--whatif", help="a second fusim binary priced beside the first")
    a = ap.parse_args(argv)
    runs = [(d, load_run(d)) for d in a.rundirs]   # every run readable before any output
    bins = [a.fusim] + ([a.whatif] if a.whatif else [])
    rows = []
    with tempfile.TemporaryDirectory(prefix="offload-inc-") as tmp:
        for d, run in runs:
            ch = [predicted(d, b, tmp) for b in bins]
            for m in run["models"]:
                w = m["workload"]
                per = [increments(m, lambda p, c=c: c(w, p)) for c in ch]
                for i, (cap, n, apart, loop, hk, _, meas) in enumerate(per[0]):
                    rows.append((os.path.basename(os.path.normpath(d)), w, cap, n, apart, loop, hk,
                                 [x[i][5] for x in per], meas))
    print("us a bucket: DDP's offload comm hook over DDP's all-reduce (loop off), the hook "
          "pattern's in-backward issue (loop hk), fusim's charge for the first (charged: %s); own: "
          "(charged - loop off) x buckets, %% of the offload row's iteration"
          % ", ".join(bins))
    for r in rows:
        ch = " ".join("%7.1f (%+5.2f%%)" % (c, own_part(c, r[5], r[3], r[8])) if c is not None
                      else "      -" for c in r[7])
        print("%-18s %-26s %-7s n%4d %6.0f apart  loop off %7.1f  loop hk %s  charged %s" % (
            r[0], r[1][:26], r[2], r[3], r[4], r[5],
            "%7.1f" % r[6] if r[6] is not None else "      -", ch))
    print("== over %d model-run caps" % len(rows))
    for cap in ("4MiB", "default"):
        both = [r[5] / r[6] for r in rows if r[2] == cap and r[6] and r[6] > 0 and r[5] > 0]
        if both:
            print("  %-7s loop off / loop hk %s (%d model-runs with both above 0)"
                  % (cap, quartiles(both), len(both)))
    print("the capture's whole DDP bucket, view mode (us a bucket): all-reduce / offload / "
          "their difference, dense and every 16 gradients")
    cap = []
    for d, run in runs:
        for m in run["models"]:
            path = os.path.join(d, "wl_%s.json" % m["workload"])
            if not os.path.exists(path):
                continue
            with open(path) as f:
                c = capture_points((json.load(f).get("meta") or {}).get("framework_on_model"))
            if c:
                cap.append(c)
                print("  %-18s %-26s dense (P %3d) %6.1f %6.1f %+6.1f | e16 (%2d, %5.0f apart) "
                      "%6.1f %6.1f %+6.1f" % (os.path.basename(os.path.normpath(d)),
                                              m["workload"][:26], c[0], c[1], c[2], c[2] - c[1],
                                              c[3], c[4], c[5], c[6], c[6] - c[5]))
    if cap:
        print("  median over %d captures: dense %.1f / %.1f / %+.1f, e16 %.1f / %.1f / %+.1f" % (
            len(cap), st.median(c[1] for c in cap), st.median(c[2] for c in cap),
            st.median(c[2] - c[1] for c in cap), st.median(c[5] for c in cap),
            st.median(c[6] for c in cap), st.median(c[6] - c[5] for c in cap)))
    for k, b in enumerate(bins):
        print("charged by %s:" % b)
        for cap in ("4MiB", "default"):
            print(summary(rows, cap, k))
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("offload_increment", main, sys.argv[1:]))
