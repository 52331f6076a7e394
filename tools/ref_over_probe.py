#!/usr/bin/env python3
"""ref_over_probe.py: how far a capture's reference step (meta.host_ref: tools/host_ref.py, timed
between its steps) moved from what its host-speed probe predicts, forward and backward apart: the
reference over the profile's own reference step (hf_<arch>_rest_tiny + REF_LAYERS x
hf_<arch>_layer_tiny; a CNN: tv_resnet50_held), over the probe's ratio (the capture's probe
reading that compare_compute passes, over the profile's). 1.0: the probe carries that thread's
host speed; above: the reference ran slower than the probe says, as a probe-priced capture's
host would be priced short. Per capture, then the median and range per architecture.

Usage: python3 tools/ref_over_probe.py [--profile P] DIR [DIR...]   (captures with both)"""
import argparse
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bad_input  # noqa: E402
from compare_compute import probe_of  # noqa: E402
from host_ref import HF_ARCHS  # noqa: E402
from host_ref_range import profile_ref  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(HERE), "data", "profiles", "h200-default.json"))
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    profile = json.load(open(a.profile))
    pc = profile["compute"]
    prof_probe = pc.get("host_probe_min_us") or pc["host_probe_us"]
    ops = {(t["op"], t["dtype"]): t for t in pc["ops"]}
    by_arch = {}
    for d in a.dirs:
        files = sorted(glob.glob(os.path.join(d, "*.json")))
        if not files:
            raise OSError(2, "no captures (*.json)", d)
        for f in files:
            meta = json.load(open(f)).get("meta", {})
            ref, probe = meta.get("host_ref"), probe_of(pc, meta)
            if not (isinstance(ref, dict) and ref.get("fwd_us") and ref.get("bwd_us") and probe):
                continue
            arch = meta.get("arch") or meta["model"]
            pr = profile_ref(ops, arch if arch in HF_ARCHS else "resnet",
                             "bf16" if meta["amp"] == "bf16" else "fp32")
            if not pr:
                continue
            k = probe / prof_probe
            rf, rb = ref["fwd_us"] / pr[0] / k, ref["bwd_us"] / pr[1] / k
            fam = arch if arch in HF_ARCHS else "resnet"
            by_arch.setdefault(fam, []).append((rf, rb))
            print("%-60s %-7s fwd %.2f bwd %.2f" % (os.path.relpath(f), fam, rf, rb))
    for fam, v in sorted(by_arch.items()):
        for k, what in ((0, "fwd"), (1, "bwd")):
            x = [t[k] for t in v]
            print("%-7s %s median %.2f (%.2f-%.2f), %d captures" % (fam, what, statistics.median(x), min(x), max(x), len(x)))
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("ref_over_probe", main, sys.argv[1:]))
