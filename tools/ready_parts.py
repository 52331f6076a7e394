#!/usr/bin/env python3
"""ready_parts.py: what a capture's ready-time miss is made of. compare_compute's ready figure is
the worst |estimate - capture| over the gradients, over the captured backward; it is at least
the backward's own error (the last gradients), so per capture this prints:
  bwd      the estimate's backward against the capture's (%)
  ready    compare_compute's figure (% of the captured backward) and the gradient where it is
  shape    the same with each curve over its own backward (the curve's form alone, %)
  scale    meta.ready_scale: the captured curve's scale from its hooked steps to bwd_us (far from 1:
           another step's curve, data/compute/README.md 2026-12-04n)
  rd       h: a capture with its hooked steps' own curve and the hooks' host cost, compared (bwd,
           ready, shape, oracle) as a hooked step (fusim --ready-hook-us) over the hooked
           backward, as compare_compute does; s: the curve scaled to bwd_us
  oracle   bwd and ready again with the estimate's host costs carried so that its host sums equal
           the captured forward() and backward() CPU times (a diagnosis, not a method: the
           timeline's composition with the host costs right; captures with a reference step only)

Usage: python3 tools/ready_parts.py DIR [DIR...] [--fusim build/fusim] [--profile P]"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_compute  # noqa: E402


def parts(cap_ready, est_ready, bwd_cap, bwd_est):
    """(ready, worst gradient, shape): the worst |est - cap| over bwd_cap, and the worst
    |est / bwd_est - cap / bwd_cap|, over the gradients both curves have (None: none in common)."""
    common = [n for n in cap_ready if n in est_ready]
    if not common or bwd_cap <= 0 or bwd_est <= 0:
        return None
    worst = max(common, key=lambda n: abs(est_ready[n] - cap_ready[n]))
    shape = max(abs(est_ready[n] / bwd_est - cap_ready[n] / bwd_cap) for n in common)
    return abs(est_ready[worst] - cap_ready[worst]) / bwd_cap, worst, shape


def estimate(a, meta, tmp, ref, hook_us=0.0):
    """fusim's estimate (and its --ops host sums) for a capture, its host carried by ref (fwd, bwd)
    or by the capture's probe as compare_compute does (a.pc: the profile's compute block); hook_us
    > 0: a hooked step's."""
    out, ops = os.path.join(tmp, "e.json"), os.path.join(tmp, "o.csv")
    cmd = [a.fusim, "workload"] + compare_compute.args_for(meta) + ["--profile", a.profile, "--out", out, "--ops", ops]
    if hook_us > 0:
        cmd += ["--ready-hook-us", str(hook_us)]
    if ref:
        cmd += ["--host-ref-fwd", str(ref[0]), "--host-ref-bwd", str(ref[1])]
    else:
        cmd += compare_compute.host_args(a.pc, meta, use_ref=False)[0]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    with open(ops) as f:
        rows = list(csv.DictReader(f))
    return (json.load(open(out)), sum(float(x["host_fwd_us"]) for x in rows),
            sum(float(x["host_bwd_us"]) for x in rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(os.path.dirname(HERE), "build", "fusim"))
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(HERE), "data", "profiles", "h200-default.json"))
    a = ap.parse_args()
    files = [f for d in a.dirs for f in sorted(glob.glob(os.path.join(d, "*.json")))]
    if not files:
        print("ready_parts: no captures in %s" % " ".join(a.dirs), file=sys.stderr)
        return 66
    caps = {}
    for f in [a.profile] + files:   # every file readable before any output
        try:
            with open(f) as fo:
                caps[f] = json.load(fo)
            if not isinstance(caps[f], dict):
                raise ValueError("not a JSON object")
            if f != a.profile and not all(k in caps[f] for k in ("name", "meta", "grads", "bwd_us")):
                raise ValueError("not a capture (tools/capture_torch.py: name, meta, grads, bwd_us)")
        except (OSError, ValueError) as e:
            print("ready_parts: %s: %s" % (f, getattr(e, "strerror", None) or e), file=sys.stderr)
            return 65
    a.pc = caps.pop(a.profile).get("compute", {})
    print("%-34s %7s %6s %-30s %6s %6s %2s %12s" % ("model", "bwd%", "ready", "worst gradient", "shape", "scale",
                                                    "rd", "oracle bwd/rd"))
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            cap = caps[f]
            meta = cap["meta"]
            ref = meta.get("host_ref") or {}
            ref = (ref["fwd_us"], ref["bwd_us"]) if ref.get("fwd_us") and ref.get("bwd_us") else None
            # a capture with its hooked steps' own curve: against a hooked step's estimate, as
            # compare_compute does (column rd: h), else the curve scaled to bwd_us (s)
            hk = compare_compute.hooked_curve(cap)
            rc, hook, bc = (hk[0], hk[1], hk[2]) if hk else (compare_compute.ready_of(cap), 0.0, cap["bwd_us"])
            try:
                e, hf, hb = estimate(a, meta, tmp, ref, hook)
            except RuntimeError as err:
                print("ready_parts: %s: fusim failed: %s" % (f, err), file=sys.stderr)
                return 70
            re = {g["name"]: g["ready_us"] for g in e["grads"]}
            p = parts(rc, re, bc, e["bwd_us"])
            if p is None:
                continue
            oracle = ""
            if ref and hf > 0 and hb > 0 and meta.get("cpu_forward_call_us") and meta.get("cpu_backward_call_us"):
                kf, kb = meta["cpu_forward_call_us"] / hf, meta["cpu_backward_call_us"] / hb
                e2, _, _ = estimate(a, meta, tmp, (ref[0] * kf, ref[1] * kb), hook)
                p2 = parts(rc, {g["name"]: g["ready_us"] for g in e2["grads"]}, bc, e2["bwd_us"])
                oracle = "%+5.1f/%4.1f" % (100 * (e2["bwd_us"] / bc - 1), 100 * p2[0])
            print("%-34s %+6.1f%% %5.1f%% %-30s %5.1f%% %6.3f %2s %12s" % (
                cap["name"][:34], 100 * (e["bwd_us"] / bc - 1), 100 * p[0], p[1][-30:], 100 * p[2],
                meta.get("ready_scale", float("nan")), "h" if hk else "s", oracle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
