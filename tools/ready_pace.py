#!/usr/bin/env python3
"""ready_pace.py: how fast a captured backward moves through its repeated blocks against the
estimate, from the ready times: per ResNet stage the time per bottleneck block (consecutive
blocks' conv1 weights, the stage's first block left out: its downsample), per transformer the
time per layer (consecutive layers' first parameter in ready order), then over the later half
of the layers alone (where the backward starts GPU-paced, the GPU catching up on the head's
work, the later layers are the host's pace in both curves) and the time after the last layer's
first gradient (its rest and the embeddings: the step's rest at the end of backward). Where
backward is host-bound the pace is the host's per block, which the totals (compare_compute's
cpuB) mix with the rest of the step. Priced as compare_compute.py prices the capture (its
reference step, else its probe; a capture with its hooked steps' own curve against the estimate
of a hooked step). --trace: instead, a torchvision ResNet-50's backward host pace per stage from a
PyTorch profiler trace (the autograd thread's convolution_backward starts: 10, 19, 13, 10
convolutions in layer4..layer1, 3 a block) and the host time before its first one (loss, fc).
Usage: python3 tools/ready_pace.py CAPTURE.json [...] [--fusim F] [--profile P]
       python3 tools/ready_pace.py --trace TRACE.json.gz"""
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


def layer_parts(ps, rc, est):
    """For a transformer's layers ps (each layer's first parameter, in ready order) and the
    captured and estimated ready times (name -> us): [(what, captured, estimate)] for the pace
    over every layer, over the later half (from ps[len // 2] on; two layers at least) and the
    time from the last layer's first gradient to the last gradient of all."""
    out = []
    for what, qs in (("layers %d" % len(ps), ps), ("last %d" % (len(ps) - len(ps) // 2), ps[len(ps) // 2:])):
        if len(qs) >= 2:
            out.append((what, (rc[qs[-1]] - rc[qs[0]]) / (len(qs) - 1), (est[qs[-1]] - est[qs[0]]) / (len(qs) - 1)))
    if ps:
        out.append(("after the last", max(rc.values()) - rc[ps[-1]], max(est.values()) - est[ps[-1]]))
    return out


def trace_pace(path):
    """Lines of per-stage host us per block, per step of a ResNet-50 profiler trace."""
    import gzip
    d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    tids = {e["tid"] for e in ev if e["name"] == "aten::convolution_backward"}
    out = []
    for tid in sorted(tids):
        te = sorted((e for e in ev if e["tid"] == tid), key=lambda e: e["ts"])
        top = [e for e in te if e["name"].startswith("autograd::engine::evaluate_function")]
        conv = [e for e in te if e["name"] == "aten::convolution_backward"]
        for s in range(len(conv) // 53):
            c = conv[53 * s:53 * (s + 1)]
            start = max(e["ts"] for e in top if e["ts"] <= c[0]["ts"] and
                        (s == 0 or e["ts"] > conv[53 * s - 1]["ts"]) and e["name"].endswith("NllLossBackward0"))
            end = c[-1]["ts"] + c[-1]["dur"]
            cells, lo = [], 0
            for name, n in (("layer4", 10), ("layer3", 19), ("layer2", 13), ("layer1", 10)):
                cells.append("%s %.0f" % (name, 3 * (c[lo + n]["ts"] - c[lo]["ts"]) / n))
                lo += n
            out.append("step %d: us per block %s; before the first convolution %.0f of %.0f us" % (
                s, ", ".join(cells), c[0]["ts"] - start, end - start))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="*")
    ap.add_argument("--trace", help="a ResNet-50 profiler trace (.json or .json.gz) instead of captures")
    ap.add_argument("--fusim", default=os.path.join(compare_compute.ROOT, "build", "fusim"))
    ap.add_argument("--profile", default=os.path.join(compare_compute.ROOT, "data", "profiles", "h200-default.json"))
    a = ap.parse_args(argv)
    if a.trace:
        try:
            print("\n".join(trace_pace(a.trace)))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            print("ready_pace: %s: not a profiler trace with a ResNet-50 backward (%s)" % (a.trace, e),
                  file=sys.stderr)
            return 65
        return 0
    if not a.captures:
        print("ready_pace: give captures or --trace", file=sys.stderr)
        return 64
    try:
        pc = json.load(open(a.profile)).get("compute", {})
    except (OSError, ValueError, AttributeError) as e:
        print("ready_pace: %s: not a profile (%s)" % (a.profile, e), file=sys.stderr)
        return 65
    with tempfile.TemporaryDirectory() as tmp:
        for f in a.captures:
            try:
                cap = json.load(open(f))
                meta = cap["meta"]
                wl_args = compare_compute.args_for(meta)
                rc = compare_compute.ready_of(cap)
                names = [g["name"] for g in sorted(cap["grads"], key=lambda g: g["ready_us"])]
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
                print("ready_pace: %s: not a capture (%s: %s)" % (f, type(e).__name__, e), file=sys.stderr)
                return 65
            out = os.path.join(tmp, "est.json")
            cmd = [a.fusim, "workload"] + wl_args + ["--profile", a.profile, "--out", out]
            cmd += compare_compute.host_args(pc, meta)[0]
            hk = compare_compute.hooked_curve(cap)
            if hk:   # its hooked steps' own curve against a hooked step's estimate, as compare_compute
                rc = hk[0]
                cmd += ["--ready-hook-us", str(hk[1])]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True)
            except OSError as e:
                print("ready_pace: %s: cannot run fusim (%s)" % (a.fusim, e), file=sys.stderr)
                return 66
            if r.returncode != 0:
                print("ready_pace: %s: fusim failed: %s" % (f, r.stderr.strip()), file=sys.stderr)
                return 70
            est = {g["name"]: g["ready_us"] for g in json.load(open(out))["grads"]}
            cells = []
            for grp, ps in sorted(blocks(names).items(), reverse=True):
                ps = [p for p in ps if p in est]
                if grp.startswith("layer") and grp != "layers":
                    ps = [p for p in ps if not p.startswith(grp + ".0.")]
                if len(ps) < 2:
                    continue
                if grp == "layers":
                    cells += ["%s: captured %.0f, estimate %.0f us (%.2f)" % (w, c, e, c / e)
                              for w, c, e in layer_parts(ps, rc, est)]
                    continue
                c = (rc[ps[-1]] - rc[ps[0]]) / (len(ps) - 1)
                e = (est[ps[-1]] - est[ps[0]]) / (len(ps) - 1)
                cells.append("%s %d: captured %.0f, estimate %.0f us (%.2f)" % (grp, len(ps), c, e, c / e))
            # the folder too: several sets hold a capture of the same name
            print("%s: %s" % (os.path.join(os.path.basename(os.path.dirname(os.path.abspath(f))),
                                           os.path.basename(f)), "; ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
