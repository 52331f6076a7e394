#!/usr/bin/env python3
"""ref_over_probe.py: how far a capture's reference step (meta.host_ref: tools/host_ref.py, timed
between its steps) moved from what its host-speed probe predicts, forward and backward apart: the
reference over the profile's own reference step (hf_<arch>_rest_tiny + REF_LAYERS x
hf_<arch>_layer_tiny; a CNN: tv_resnet50_held), over the host speed the capture's main-thread probe
gives that phase as compare_compute prices it (compare_compute.probe_speeds: forward by the median
of readings taken between the steps, else the fastest; backward by the fastest), over the
profile's. 1.0: the probe carries that thread's host speed; above: the reference ran slower than
the probe says, as a probe-priced capture's host would be priced short. Per capture, then the
median and range per architecture. Where the capture also has the autograd thread's probe
(meta.host_bwd_probes_us), backward again over what that probe predicts (bwd/thread: the
reference's backward over the profile's, over the median of those readings over the profile's
median probe, as probe_speeds gives it), and over every such capture the spread (standard deviation
of the log) of backward's ratio by each probe: which thread's probe carries backward's host speed;
forward's spread over every capture by the main thread's probe.

Usage: python3 tools/ref_over_probe.py [--profile P] DIR [DIR...]   (captures with both)"""
import argparse
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bad_input  # noqa: E402
from compare_compute import captures_in, probe_speeds  # noqa: E402
from host_ref_range import capture_ref  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(HERE), "data", "profiles", "h200-default.json"))
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    profile = json.load(open(a.profile))
    pc = profile["compute"]
    ops = {(t["op"], t["dtype"]): t for t in pc["ops"]}
    by_arch, by_thread, pooled = {}, {}, []
    for f in captures_in(a.dirs):
        meta = json.load(open(f)).get("meta", {})
        ref, ks = meta.get("host_ref"), probe_speeds(pc, meta)
        if not (isinstance(ref, dict) and ref.get("fwd_us") and ref.get("bwd_us") and ks):
            continue
        fam, pr = capture_ref(ops, meta)
        if not pr:
            continue
        rf, rb = ref["fwd_us"] / pr[0] / ks[0], ref["bwd_us"] / pr[1] / ks[1]
        by_arch.setdefault(fam, []).append((rf, rb))
        tb = ""
        if ks[2]:
            rt = ref["bwd_us"] / pr[1] / ks[2]
            by_thread.setdefault(fam, []).append(rt)
            pooled.append((rb, rt))
            tb = " bwd/thread %.2f" % rt
        print("%-60s %-7s fwd %.2f bwd %.2f%s" % (os.path.relpath(f), fam, rf, rb, tb))
    for fam, v in sorted(by_arch.items()):
        for k, what in ((0, "fwd"), (1, "bwd")):
            x = [t[k] for t in v]
            print("%-7s %s median %.2f (%.2f-%.2f), %d captures" % (fam, what, statistics.median(x), min(x), max(x), len(x)))
        x = by_thread.get(fam)
        if x:
            print("%-7s bwd/thread median %.2f (%.2f-%.2f), %d captures" % (
                fam, statistics.median(x), min(x), max(x), len(x)))
    fw = [math.log(t[0]) for v in by_arch.values() for t in v]
    if len(fw) > 1:
        print("all     fwd spread (sd of log) %.3f by the main thread's probe, %d captures" % (statistics.pstdev(fw), len(fw)))
    if len(pooled) > 1:
        sd = [statistics.pstdev([math.log(t[i]) for t in pooled]) for i in (0, 1)]
        print("all     bwd spread (sd of log) %.3f by the main thread's probe, %.3f by the autograd thread's, "
              "%d captures" % (sd[0], sd[1], len(pooled)))
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("ref_over_probe", main, sys.argv[1:]))
