#!/usr/bin/env python3
"""issue_cold_whatif.py: what the in-backward issue's cold-cache extra (tools/issue_probe.py)
would do to runs captured before the capture timed issues call by call (a sensitivity for issue
10, session 26). Since session 27 the store prices those captures with the probe's curve by
default (store_torch_validation.probe_spacing, from torch_modelcost.ISSUE_COLD_EXTRA, this
script's first line): after the loop's scaling and with its rise times k, where this injects it
before scaling as the calls' rise (marked "direct", so the store's whole_rise then multiplies it).

The probe (issue_probe_run1/) timed the hook pattern's issue inside a real backward() at a bucket
every 1, 4, 16 and 64 gradients on ResNet-50 and GPT-2: the issue's own CPU time rises with
backward's own host work since the previous issue (its data evicted from the CPU caches), the
same on both models. From it, one curve of the extra over the densest issue against that work
(per model: the framework-free backward() CPU over the buckets, as torch_modelcost.issue_direct
puts it; the models averaged at each N). Each workload of the runs given then gets, as a capture
from session 25 on would, host.issue_spacing with the hook pattern's curve at hooks.bucket_us
plus the extra and DDP's offload hook's at (hook_bucket_us - bucket_us) plus the same extra
(the offload hook makes the same calls), the extra counted from the workload's own dense
spacing (backward's framework-free CPU over its tensors, where its per-bucket costs were
measured), marked as timed call by call, and the run is benched
again (tests/bench/torch_validation_bench.py) from a scratch copy. The probe's curve is taken at
each capture's host speed as it is (not carried from the probe's lease: no model is common to
both), then carried to the loop by the store as any cost measured on the model.

    python3 data/validation/issue_cold_whatif.py data/validation/issue_probe_run1/issue_probe.json \\
        data/validation/torch_h200_run22 [...] [--fusim build/fusim]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from spacing_compare import at   # fusim's reading of a curve (beside this script)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import torch_runs  # noqa: E402


def die(msg, status=65):
    print("issue_cold_whatif: " + msg, file=sys.stderr)
    sys.exit(status)


def probe_curve(probe):
    """[[us apart, extra us], ...] from issue_probe's part B: per model and hk_eN, the framework-
    free backward() CPU over the buckets against the median over rounds of each step's issues but
    its first, less hk_e1's; averaged over the models at each N."""
    per_n = {}
    for mb in probe.get("part_b", []):
        raw = mb["raw"]
        none = statistics.median(x["bwd_us"] for x in raw["none"])
        pts = {}
        for v, steps in raw.items():
            if not v.startswith("hk_e"):
                continue
            per = [statistics.median(sum(i["parts"]) for i in x["issues"][1:])
                   for x in steps if len(x.get("issues", [])) > 1]
            if per:
                pts[int(v[4:])] = (none / len(steps[0]["issues"]), statistics.median(per))
        if 1 not in pts:
            continue
        for n, (apart, us) in pts.items():
            per_n.setdefault(n, []).append((apart, us - pts[1][1]))
    if len(per_n) < 2:
        die("the probe has no hook-pattern spacing points (part B's hk_eN)")
    return [[round(statistics.mean(a for a, _ in v), 1), round(statistics.mean(e for _, e in v), 2)]
            for _, v in sorted(per_n.items())]


def inject(wl, curve):
    """The workload's host block with the curves a direct capture would carry, the densest point
    at the workload's own dense spacing (backward()'s framework-free CPU over its tensors, where
    its per-bucket costs were measured: the extra is counted from there); False where the
    workload has no framework costs (nothing to price)."""
    h = wl.get("host") or {}
    meta = wl.get("meta") or {}
    bwd = (meta.get("framework_on_model") or {}).get("bwd_cpu_us") or h.get("bwd_cpu_us", 0)
    dense = bwd / max(meta.get("tensors") or len(wl.get("grads", [])) or 1, 1)
    pts = [[round(dense, 1), 0.0]] + [[a, round(e - at(curve, dense), 3)] for a, e in curve if a > dense]
    isp = {}
    if "bucket_us" in h.get("hooks", {}):
        isp["hooks"] = [[a, round(h["hooks"]["bucket_us"] + e, 3)] for a, e in pts]
    d = h.get("ddp", {})
    if "bucket_us" in d and "hook_bucket_us" in d:
        isp["ddp_offload"] = [[a, round(d["hook_bucket_us"] - d["bucket_us"] + e, 3)] for a, e in pts]
    if not isp:
        return False
    h["issue_spacing"] = isp
    fm = wl.setdefault("meta", {}).setdefault("framework_on_model", {})
    fm["issue_spacing_source"] = {k: "direct" for k in isp}
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("probe")
    ap.add_argument("rundirs", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    a = ap.parse_args()
    try:
        with open(a.probe) as f:
            curve = probe_curve(json.load(f))
    except (OSError, ValueError) as e:
        die("%s: %s" % (a.probe, getattr(e, "strerror", None) or e), 66)
    except (AttributeError, KeyError, TypeError) as e:   # JSON, but not issue_probe's layout
        die("%s: not an issue_probe output (%s: %s)" % (a.probe, type(e).__name__, e))
    print("extra over the densest issue, against backward's own host work since the previous "
          "issue (us apart, us): %s" % curve)
    for rd in a.rundirs:
        if not os.path.isfile(torch_runs.find(os.path.join(rd, "runs.json"))):
            die("%s: no runs.json" % rd, 66)
        with tempfile.TemporaryDirectory(prefix="whatif.") as tmp:
            dst = os.path.join(tmp, os.path.basename(os.path.normpath(rd)))
            shutil.copytree(rd, dst)
            n = 0
            for name in sorted(os.listdir(dst)):
                if name.startswith("wl_") and name.endswith(".json"):
                    p = os.path.join(dst, name)
                    with open(p) as f:
                        wl = json.load(f)
                    if inject(wl, curve):
                        n += 1
                        with open(p, "w") as f:
                            json.dump(wl, f)
            print("== %s (%d workloads given the curve)" % (rd, n), flush=True)
            r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "bench",
                                                             "torch_validation_bench.py"),
                                a.fusim, dst], capture_output=True, text=True)
            sys.stdout.write(r.stdout)
            if r.returncode != 0:
                die("%s: bench failed: %s" % (rd, (r.stderr.strip().splitlines() or ["?"])[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
