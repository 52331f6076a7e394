#!/usr/bin/env python3
"""ready_hook.py: fusim workload --ready-hook-us H puts H of host time after every gradient (a
post-accumulate-grad hook on the autograd thread, before the next node), by hand:
- host-bound throughout (every host cost x1000 by --host-probe: each operation's kernels start
  when the host has issued them, and TF32 has no weight-cast tails), H = 0.5 us (below every
  operation's backward device time): a gradient comes H later for each gradient of the
  operations before its own, and backward ends (n - 1) x H later (the last operation, the word
  embedding, has one; the hook after it delays nothing);
- the same with H = 1000 us, beyond an operation's device time: the operation's second gradient
  (a LayerNorm's bias) is ready when the host has run the first one's hook, H - b after its
  weight, b the operation's backward device time in the --ops listing;
- GPU-bound (host costs x1/5000): the host stays ahead by far more than n x H, so nothing moves;
- forward is untouched; the roofline has no host timeline: refused with one line, exit 64;
- the CNN builder the same way (ResNet-50, host-bound at x1000): each gradient H later per
  gradient before its operation's, backward (n - 1) x H longer (the last operation, conv1, has
  one gradient).
Usage: ready_hook.py FUSIM"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, fails, finish, start, tf_args, workload  # noqa: E402
import json  # noqa: E402

fusim, tmp, prof = start()
pf = os.path.join(tmp, "p.json")
with open(pf, "w") as f:
    json.dump(prof, f)   # host_probe_min_us 5
ARGS = [a if a != "autocast-bf16" else "tf32" for a in tf_args("bert")]


def run(probe, hook):
    extra = ["--host-probe", str(probe)] + (["--ready-hook-us", str(hook)] if hook else [])
    w, _ = workload(fusim, ARGS + extra, pf, tmp)
    return w


H = 0.5
for what, probe, moves in (("host-bound", 5000.0, True), ("GPU-bound", 0.001, False)):
    a, b = run(probe, 0), run(probe, H)
    if not (a and b):
        continue
    n = len(a["grads"])
    check("%s: same gradients" % what, [g["name"] for g in a["grads"]] == [g["name"] for g in b["grads"]], True, 0)
    before = 0   # gradients of the operations before this one's (equal ready times: one operation)
    for k, (ga, gb) in enumerate(zip(a["grads"], b["grads"])):
        if k and ga["ready_us"] != a["grads"][k - 1]["ready_us"]:
            before = k
        check("%s: gradient %d (%s) ready" % (what, k, ga["name"]), gb["ready_us"],
              ga["ready_us"] + (before * H if moves else 0.0), 1e-6, 1e-12)
    check("%s: backward" % what, b["bwd_us"], a["bwd_us"] + ((n - 1) * H if moves else 0.0), 1e-6, 1e-12)
    check("%s: forward untouched" % what, b["fwd_us"], a["fwd_us"], 1e-9)
    check("%s: the notes say so" % what, "--ready-hook-us" in b["notes"], True, 0)
LN = "bert.encoder.layer.1.output.LayerNorm."
w, rows = workload(fusim, ARGS + ["--host-probe", "5000", "--ready-hook-us", "1000"], pf, tmp)
if w and rows:
    r = {g["name"]: g["ready_us"] for g in w["grads"]}
    b_ln = [float(x["bwd_us"]) for x in rows if x["param"] == LN + "weight"]
    check("H 1000: one LayerNorm row listed", len(b_ln), 1, 0)
    if b_ln:
        check("H 1000: the LayerNorm's bias after its weight", r[LN + "bias"] - r[LN + "weight"],
              1000.0 - b_ln[0], 0.001)
CNN = ["--cnn", "resnet50", "--micro-batch", "8", "--precision", "tf32", "--host-probe", "5000"]
a, _ = workload(fusim, CNN, pf, tmp)
b, _ = workload(fusim, CNN + ["--ready-hook-us", str(H)], pf, tmp)
if a and b:
    n, before = len(a["grads"]), 0
    check("cnn: same gradients", [g["name"] for g in a["grads"]] == [g["name"] for g in b["grads"]], True, 0)
    for k, (ga, gb) in enumerate(zip(a["grads"], b["grads"])):
        if k and ga["ready_us"] != a["grads"][k - 1]["ready_us"]:
            before = k
        check("cnn: gradient %d (%s) ready" % (k, ga["name"]), gb["ready_us"], ga["ready_us"] + before * H, 1e-6, 1e-12)
    check("cnn: backward", b["bwd_us"], a["bwd_us"] + (n - 1) * H, 1e-6, 1e-12)
    check("cnn: the notes say so", "--ready-hook-us" in b["notes"], True, 0)
r = subprocess.run([fusim, "workload"] + ARGS + ["--tflops", "500", "--ready-hook-us", "10"],
                   capture_output=True, text=True)
check("roofline refused (exit 64)", r.returncode, 64, 0)
check("roofline refused in one line", len(r.stderr.strip().splitlines()), 1, 0)
if r.stdout:
    fails.append("roofline refused but wrote: %s" % r.stdout[:80])
finish()
