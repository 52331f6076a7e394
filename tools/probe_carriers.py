#!/usr/bin/env python3
"""probe_carriers.py: which of a capture's host-speed readings carries each phase's host time.
For every capture with the main thread's probe (meta.host_probes_us): its forward() and
backward() CPU times (meta.cpu_forward_call_us, cpu_backward_call_us) over the estimate's host
issue time for the same phase at the profile's own host speed (fusim workload with no host
flag, its --ops listing's sums), over the host speed each reading gives (over the profile's):
  fastest    the main thread's fastest reading over the profile's fastest (host_probe_min_us)
  median     the main thread's median over the profile's median (host_probe_us)
  autograd   the autograd thread's median (meta.host_bwd_probes_us) over the profile's median
  reference  the reference step (meta.host_ref) over the profile's time for it
1.0 with no spread: that reading carries the phase. Per group of captures (between: readings
taken between the steps, 3 + meta.iters + 3; around: before and after only), phase and reading:
how many captures, the median ratio and the standard deviation of its log, over all captures
and over those whose phase the estimate finds host-bound (there the CPU time is the host's work;
elsewhere the call may also wait on a full launch queue).

--by-arch splits each group by architecture (bert, gpt2, llama, resnet): a ratio whose median
sits away from 1.0 in one architecture only is that architecture's host rows, not the host's speed.

Usage: python3 tools/probe_carriers.py [--fusim build/fusim] [--profile P] [--by-arch] DIR [DIR...]"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bad_input  # noqa: E402
import compare_compute  # noqa: E402
from host_ref_range import capture_ref  # noqa: E402

READINGS = ("fastest", "median", "autograd", "reference")


def speeds(pc, ops, meta):
    """{reading: (forward, backward)} over the profile's, for the readings the capture has."""
    pr, bp, ref = meta["host_probes_us"], meta.get("host_bwd_probes_us"), meta.get("host_ref")
    out = {"fastest": (min(pr) / pc["host_probe_min_us"],) * 2,
           "median": (statistics.median(pr) / pc["host_probe_us"],) * 2}
    if bp:
        out["autograd"] = (None, statistics.median(bp) / pc["host_probe_us"])
    if ref and ref.get("fwd_us") and ref.get("bwd_us"):
        p = capture_ref(ops, meta)[1]
        if p:
            out["reference"] = (ref["fwd_us"] / p[0], ref["bwd_us"] / p[1])
    return out


def family(meta):
    """The capture's architecture as its host rows are named: bert, gpt2, llama, or resnet for
    every torchvision CNN fusim builds (they share tv_resnet50_held); "?" where meta has none."""
    arch = meta.get("arch") or "?"
    return "resnet" if compare_compute.is_cnn(arch) else arch


def host_sums(a, meta, tmp):
    """(forward, backward) host issue time of the estimate at the profile's speed, and its
    host-bound phases ("F", "B", "FB", "-")."""
    out, ops = os.path.join(tmp, "e.json"), os.path.join(tmp, "o.csv")
    r = subprocess.run([a.fusim, "workload"] + compare_compute.args_for(meta) +
                       ["--profile", a.profile, "--out", out, "--ops", ops], capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError("fusim workload: " + (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1])
    hb = compare_compute.host_bound(json.load(open(out)).get("notes", ""))
    return compare_compute.ops_host_sums(ops) + (hb,)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fusim", default=os.path.join(os.path.dirname(HERE), "build", "fusim"))
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(HERE), "data", "profiles", "h200-default.json"))
    ap.add_argument("--by-arch", action="store_true", help="each group by architecture too")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    pc = json.load(open(a.profile))["compute"]
    ops = {(t["op"], t["dtype"]): t for t in pc["ops"]}
    got = {}   # (group, phase, reading, host-bound only) -> [log ratio]
    with tempfile.TemporaryDirectory() as tmp:
        for f in compare_compute.captures_in(a.dirs):
            meta = json.load(open(f)).get("meta", {})
            pr = meta.get("host_probes_us")
            if not pr or not meta.get("cpu_forward_call_us") or not meta.get("cpu_backward_call_us"):
                continue
            group = "between" if compare_compute.probes_between(meta) else "around"
            if a.by_arch:
                group += "/" + family(meta)
            hf, hb, bound = host_sums(a, meta, tmp)
            cpu = (meta["cpu_forward_call_us"] / hf, meta["cpu_backward_call_us"] / hb)
            for reading, k in speeds(pc, ops, meta).items():
                for i, phase in enumerate(("forward", "backward")):
                    if k[i] is None:
                        continue
                    v = math.log(cpu[i] / k[i])
                    got.setdefault((group, phase, reading, False), []).append(v)
                    if "FB"[i] in bound:
                        got.setdefault((group, phase, reading, True), []).append(v)
    w = max([8] + [len(k[0]) for k in got])
    print("%-*s %-9s %-10s %22s %22s" % (w, "group", "phase", "reading", "all: n median sd", "host-bound: n median sd"))
    for group in sorted({k[0] for k in got}):  # "around..." before "between..."
        for phase in ("forward", "backward"):
            for reading in READINGS:
                cells = []
                for hb in (False, True):
                    v = got.get((group, phase, reading, hb), [])
                    cells.append("%4d %6.3f %6.3f" % (len(v), math.exp(statistics.median(v)), statistics.pstdev(v))
                                 if v else "%4d %6s %6s" % (0, "-", "-"))
                if any(got.get((group, phase, reading, hb)) for hb in (False, True)):
                    print("%-*s %-9s %-10s %22s %22s" % (w, group, phase, reading, cells[0], cells[1]))
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("probe_carriers", main, sys.argv[1:]))
