#!/usr/bin/env python3
"""ready_pace.py: how fast a captured backward moves through its repeated blocks against the
estimate, from the ready times: per ResNet stage the time per bottleneck block (consecutive
blocks' conv1 weights, the stage's first block left out: its downsample), per transformer the
time per layer (consecutive layers' first parameter in ready order). Where backward is
host-bound the pace is the host's per block, which the totals (compare_compute's cpuB) mix with
the rest of the step. Priced as compare_compute.py prices the capture (its reference step, else
its probe).  Usage: python3 tools/ready_pace.py CAPTURE.json [...] [--fusim F] [--profile P]"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_compute  # noqa: E402


def blocks(names):
    """{group: [param of each block, in ready order]}: ResNet stages' conv1 weights; for
    transformers one group, each layer's first parameter to become ready."""
    out = {}
    for n in names:
        m = re.match(r"(layer\d)\.(\d+)\.conv1\.weight$", n)
        if m:
            out.setdefault(m.group(1), []).append(n)
    if out:
        return out
    seen = {}
    for n in names:
        m = re.search(r"\.(?:layer|layers|h)\.(\d+)\.", n)
        if m and m.group(1) not in seen:
            seen[m.group(1)] = n
    return {"layers": list(seen.values())}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(compare_compute.ROOT, "build", "fusim"))
    ap.add_argument("--profile", default=os.path.join(compare_compute.ROOT, "data", "profiles", "h200-default.json"))
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for f in a.captures:
            try:
                cap = json.load(open(f))
                meta = cap["meta"]
            except (OSError, ValueError, KeyError) as e:
                print("ready_pace: %s: not a capture (%s)" % (f, e), file=sys.stderr)
                return 65
            out = os.path.join(tmp, "est.json")
            cmd = [a.fusim, "workload"] + compare_compute.args_for(meta) + ["--profile", a.profile, "--out", out]
            ref = meta.get("host_ref")
            if ref and ref.get("fwd_us") and ref.get("bwd_us"):
                cmd += ["--host-ref-fwd", str(ref["fwd_us"]), "--host-ref-bwd", str(ref["bwd_us"])]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("ready_pace: %s: fusim failed: %s" % (f, r.stderr.strip()), file=sys.stderr)
                return 70
            est = {g["name"]: g["ready_us"] for g in json.load(open(out))["grads"]}
            rc = compare_compute.ready_of(cap)
            names = [g["name"] for g in sorted(cap["grads"], key=lambda g: g["ready_us"])]
            cells = []
            for grp, ps in sorted(blocks(names).items(), reverse=True):
                ps = [p for p in ps if p in est]
                if grp.startswith("layer") and grp != "layers":
                    ps = [p for p in ps if not p.startswith(grp + ".0.")]
                if len(ps) < 2:
                    continue
                c = (rc[ps[-1]] - rc[ps[0]]) / (len(ps) - 1)
                e = (est[ps[-1]] - est[ps[0]]) / (len(ps) - 1)
                cells.append("%s %d: captured %.0f, estimate %.0f us (%.2f)" % (grp, len(ps), c, e, c / e))
            print("%s: %s" % (os.path.basename(f), "; ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
