#!/usr/bin/env python3
"""host_ref_range.py: how far the host's speed inside real training steps is seen to move from a
profile's host rows, for `fusim workload` to state with a host-bound estimate priced without a
measurement of the host where it will run (a what-if).

Each capture that timed the reference step between its steps (tools/host_ref.py, meta.host_ref)
gives a forward and a backward ratio: its reference time over the profile's time for the same
step (hf_<arch>_rest_tiny + 3 x hf_<arch>_layer_tiny for a transformer, tv_resnet50_held for a
ResNet, in the capture's mode), exactly the ratios `fusim workload --host-ref-fwd/--host-ref-bwd`
would scale by. The lowest and highest of each are written as the calibration file's
"host_speed_range" [forward lo, hi, backward lo, hi], with every reading under diag, to merge
with `fusim fit --compute OUT --merge-into PROFILE`.

Usage: python3 tools/host_ref_range.py OUT PROFILE DIR [DIR ...]
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_ref import HF_ARCHS, REF_LAYERS  # noqa: E402  (host_ref imports torch only when a step is made)
from compare_compute import is_cnn  # noqa: E402


def profile_ref(ops, arch, mode):
    """The profile's (forward, backward) time for the reference step of arch in mode, or None."""
    if is_cnn(arch):
        t = ops.get(("tv_resnet50_held", mode))
        return (t["host_fwd_us"], t["host_bwd_us"]) if t else None
    lay, rest = ops.get(("hf_%s_layer_tiny" % arch, mode)), ops.get(("hf_%s_rest_tiny" % arch, mode))
    if not lay or not rest:
        return None
    return (rest["host_fwd_us"] + REF_LAYERS * lay["host_fwd_us"],
            rest["host_bwd_us"] + REF_LAYERS * lay["host_bwd_us"])


def capture_ref(ops, meta):
    """(family, the profile's (forward, backward) time for the capture's reference step or None):
    the family is the capture's architecture where host_ref has its tiny HF model, else "resnet"
    (the held ResNet-50); the mode the capture's (bf16, else fp32)."""
    arch = meta.get("arch") or meta["model"]
    fam = arch if arch in HF_ARCHS else "resnet"
    return fam, profile_ref(ops, fam, "bf16" if meta.get("amp", "bf16") == "bf16" else "fp32")


def main(argv):
    if len(argv) < 4:
        print("usage: host_ref_range.py OUT PROFILE DIR [DIR ...]", file=sys.stderr)
        return 64
    out, prof_path, dirs = argv[1], argv[2], argv[3:]
    try:
        comp = json.load(open(prof_path))["compute"]
        ops = {(t["op"], t["dtype"]): t for t in comp["ops"]}
    except (OSError, ValueError, KeyError) as e:
        print("host_ref_range: %s: not a profile with compute tables (%s)" % (prof_path, e), file=sys.stderr)
        return 66
    readings = []
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.json"))):
            try:
                meta = json.load(open(f)).get("meta", {})
                ref = meta.get("host_ref")
                if not ref or "arch" not in meta:
                    continue
                mode = "bf16" if meta.get("amp", "bf16") == "bf16" else "fp32"
                p = profile_ref(ops, meta["arch"], mode)
                if not p:
                    print("host_ref_range: %s: the profile has no reference rows for %s %s" % (f, meta["arch"], mode),
                          file=sys.stderr)
                    return 65
                readings.append({"capture": os.path.relpath(f), "fwd": round(ref["fwd_us"] / p[0], 4),
                                 "bwd": round(ref["bwd_us"] / p[1], 4)})
            except (OSError, ValueError, KeyError, TypeError, AttributeError, ZeroDivisionError) as e:
                print("host_ref_range: %s: not a capture with a usable meta.host_ref (%s: %s)"
                      % (f, type(e).__name__, e), file=sys.stderr)
                return 65
    if not readings:
        print("host_ref_range: no capture with meta.host_ref in %s" % ", ".join(dirs), file=sys.stderr)
        return 66
    fw, bw = [r["fwd"] for r in readings], [r["bwd"] for r in readings]
    doc = {"format": "fusim-compute-1", "command": " ".join(["tools/host_ref_range.py"] + argv[1:]),
           "compute": {"source": "tools/host_ref_range.py: %d captures' reference steps" % len(readings),
                       "host_speed_range": [min(fw), max(fw), min(bw), max(bw)],
                       "diag": {"host_speed_range": readings}}}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("host_speed_range: forward %.2f-%.2f, backward %.2f-%.2f over %d captures" % (
        min(fw), max(fw), min(bw), max(bw), len(readings)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
