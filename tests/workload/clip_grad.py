#!/usr/bin/env python3
"""fusim workload --clip-grad-norm: the step priced by the profile's "<optimizer>_clip" fit, by hand
on hand-made rows. A small Llama of 15 layers (138 gradients, each under 65536 elements: one chunk) whose
device-bound step (no host part) is the launch form's: PyTorch's multi-tensor launches hold at
most 110 / 64 / 48 tensors for 1 / 2 / 3 lists (96 for one list with a scalar per tensor), so
AdamW's 8 operations launch ceil(n/110) x 3 + ceil(n/64) x 2 + ceil(n/48) x 2 + ceil(n/96) times,
touching 14 lists of the elements; the clip adds _foreach_norm and _foreach_mul_ (one list each,
ceil(n/110) launches each, the norm half the bytes: 1.5 lists) and 6 + ceil(n/400) + ceil(n/128)
small kernels. Then the HBM form (every operation streams from a 1000-byte cache), the notes, --cnn's
SGD, the refusal where the profile has no _clip fit (exit 65, one line, nothing written), and fit
--compute merging a file of _clip rows alone into a profile (the plain rows kept).
usage: clip_grad.py FUSIM"""
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, fails, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
pf = os.path.join(tmp, "p.json")
SMALL = ["--transformer", "--arch", "llama", "--layers", "15", "--hidden", "64", "--heads", "4", "--ffn", "128",
         "--vocab", "512", "--seq", "32", "--micro-batch", "2", "--precision", "autocast-bf16"]
# device alone: a host part of 0 leaves the step device-bound
ROW = dict(base_us=1.0, per_tensor_us=0.0, per_elem_us=0.0, host_base_us=0.0, host_per_tensor_us=0.0,
           tail_frac=0.0, host_probe_us=5.0, launch_us=3.0, per_moved_elem_us=2e-6, per_chunk_elem_us=0.0)


def use(rows):
    prof["compute"]["optimizer"] = [o for o in prof["compute"]["optimizer"] if "_clip" not in o["name"]] + rows
    json.dump(prof, open(pf, "w"))


def launches(n, clip):
    c = lambda k: math.ceil(n / k)  # noqa: E731
    adamw = 3 * c(110) + 2 * c(64) + 2 * c(48) + c(96)
    return adamw + (2 * c(110) + 6 + c(400) + c(128) if clip else 0)


# 1. the launch form
use([dict(ROW, name="adamw_clip")])
w, _ = workload(fusim, SMALL + ["--clip-grad-norm", "0.5"], pf, tmp)
if w:
    el = [g["bytes"] / 4.0 for g in w["grads"]]
    n = len(el)
    if n != 138:   # past every launch's tensor limit (110, 64, 48, 96) and the stack's 128
        fails.append("the small Llama has %d gradients (expected 138)" % n)
    if max(el) > 65536:
        fails.append("the small Llama has a gradient of %d elements (expected one chunk each)" % max(el))
    check("adamw_clip, launch form", w["opt_us"], 3.0 * launches(n, True) + 2e-6 * 15.5 * sum(el), 1e-6)
    if "clip_grad_norm_(max_norm 0.5)" not in w["notes"] or "fit adamw_clip" not in w["notes"]:
        fails.append("notes do not say the step clips: %r" % w["notes"][-400:])
    # the same coefficients in the plain row: the difference is the clip's operations alone
    use([dict(ROW, name="adamw_clip")])
    prof["compute"]["optimizer"] = [dict(ROW, name="adamw") if o["name"] == "adamw" else o
                                    for o in prof["compute"]["optimizer"]]
    json.dump(prof, open(pf, "w"))
    p, _ = workload(fusim, SMALL, pf, tmp)
    if p:
        check("plain adamw, launch form", p["opt_us"], 3.0 * launches(n, False) + 2e-6 * 14 * sum(el), 1e-6)
        if "clip_grad_norm_" in p["notes"]:
            fails.append("plain step's notes mention clipping")
    # 1b. 45 layers, 408 gradients: past the norm's 400 tensors a second cleanup kernel
    use([dict(ROW, name="adamw_clip")])
    deep = list(SMALL)
    deep[deep.index("--layers") + 1] = "45"
    w45, _ = workload(fusim, deep + ["--clip-grad-norm", "1"], pf, tmp)
    if w45:
        el45 = [g["bytes"] / 4.0 for g in w45["grads"]]
        if len(el45) != 408:
            fails.append("the 45-layer Llama has %d gradients (expected 408)" % len(el45))
        check("adamw_clip, 408 gradients", w45["opt_us"], 3.0 * launches(len(el45), True) + 2e-6 * 15.5 * sum(el45),
              1e-6)
# 2. the HBM form: a 1000-byte cache, every operation streams; at 0 saturating blocks each
    #    launch costs 5 us + 3e-6 us per element per list
    use([dict(ROW, name="adamw_clip", hbm_launch_us=5.0, hbm_per_moved_elem_us=3e-6, hbm_sat_blocks=0,
              cache_bytes=1000)])
    w, _ = workload(fusim, SMALL + ["--clip-grad-norm", "1"], pf, tmp)
    if w:
        check("adamw_clip, HBM form", w["opt_us"], 5.0 * launches(n, True) + 3e-6 * 15.5 * sum(el), 1e-6)

# 2b. fusim's count against calib_torch's (the features the fit used) where gradients span many
#     chunks and per_chunk_elem_us is not 0: a two-layer Llama of hidden 1024 (16-chunk tensors)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import calib_torch  # noqa: E402
BIG = ["--transformer", "--arch", "llama", "--layers", "2", "--hidden", "1024", "--heads", "16", "--ffn", "4096",
       "--vocab", "32000", "--seq", "64", "--micro-batch", "2", "--precision", "autocast-bf16"]
for extra, form in (({}, "launch"), ({"hbm_launch_us": 5.0, "hbm_per_moved_elem_us": 3e-6, "hbm_sat_blocks": 100,
                                      "cache_bytes": 1000}, "HBM")):
    use([dict(ROW, name="adamw_clip", per_chunk_elem_us=7e-5, **extra)])
    w, _ = workload(fusim, BIG + ["--clip-grad-norm", "1"], pf, tmp)
    if w:
        sizes = [g["bytes"] / 4.0 for g in reversed(w["grads"])]   # the optimizer's order: the model's
        if form == "launch":
            f = calib_torch.optim_launch_features("adamw_clip", sizes)
            want = 3.0 * f[0] + 2e-6 * f[1] + 7e-5 * f[2]
        else:
            n, t = calib_torch.optim_hbm_features("adamw_clip", sizes, 100)
            want = 5.0 * n + 3e-6 * t
        check("adamw_clip, %s form, as calib_torch counts" % form, w["opt_us"], want, 1e-6, 1e-9)

# 3. --cnn: sgd_clip by base + per tensor + per element (no launch form), device-bound
use([{k: v for k, v in dict(ROW, name="sgd_clip", base_us=5000.0, per_tensor_us=1.0, per_elem_us=1e-4).items()
      if k not in ("launch_us", "per_moved_elem_us", "per_chunk_elem_us")}])
w, _ = workload(fusim, ["--cnn", "resnet50", "--micro-batch", "8", "--clip-grad-norm", "1"], pf, tmp)
if w:
    el = [g["bytes"] / 4.0 for g in w["grads"]]
    check("--cnn sgd_clip", w["opt_us"], 5000.0 + len(el) + 1e-4 * sum(el), 1e-6)

# 4. no _clip fit: one line naming it and the calibration, exit 65, nothing written
use([])
for args, fit in ((SMALL, "adamw_clip"), (["--cnn", "resnet50", "--micro-batch", "8"], "sgd_clip")):
    out = os.path.join(tmp, "none.json")
    r = subprocess.run([fusim, "workload"] + args + ["--clip-grad-norm", "1", "--profile", pf, "--out", out],
                       capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 65 or len(lines) != 1 or '"%s"' % fit not in lines[0] or "calib_torch.py" not in lines[0] \
            or os.path.exists(out):
        fails.append("no %s fit: exit %d, stderr %r, %s" % (fit, r.returncode, r.stderr,
                                                            "written" if os.path.exists(out) else "not written"))
# the roofline has no fit to take: usage error
r = subprocess.run([fusim, "workload"] + SMALL + ["--tflops", "100", "--clip-grad-norm", "1"], capture_output=True, text=True)
if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1:
    fails.append("--clip-grad-norm with the roofline: exit %d, stderr %r" % (r.returncode, r.stderr))

# 5. fit --compute: a file of _clip rows alone adds them and keeps adamw, adam, sgd as they were
use([])
merged, cal = os.path.join(tmp, "merged.json"), os.path.join(tmp, "cal.json")
json.dump(prof, open(merged, "w"))
before = {o["name"]: o for o in prof["compute"]["optimizer"]}
json.dump({"format": "fusim-compute-1", "compute": {"optimizer": [dict(ROW, name="adamw_clip")]}}, open(cal, "w"))
r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
got = {o["name"]: o for o in json.load(open(merged))["compute"]["optimizer"]} if r.returncode == 0 else {}
if sorted(got) != sorted(list(before) + ["adamw_clip"]):
    fails.append("fit --compute of adamw_clip alone: exit %d, rows %s" % (r.returncode, sorted(got) or r.stderr))
else:
    for name, o in before.items():
        for k, v in o.items():
            if isinstance(v, float) and abs(got[name].get(k, -1) - v) > 1e-9 * max(1, abs(v)):
                fails.append("fit --compute of adamw_clip alone changed %s.%s: %s -> %s" % (name, k, v, got[name].get(k)))
    check("merged adamw_clip launch_us", got["adamw_clip"]["launch_us"], 3.0, 1e-12)
# 6. the bundled H100 profile's measured rows (data/profiles/h100-sxm.json: adamw, adam, sgd and their
#    _clip rows, merged from data/compute/h100-calib-torch-2026-12-06-*.json): fusim's device time (the
#    notes' "Optimizer step: device D us") is calib_torch.optim_dev_us of the same row over the same
#    gradients, which tools/clip_check.py prices captures with; a model of 8.4 M elements, where the
#    one-list operations fit the 52 MB cache and the others stream (the form is chosen per operation),
#    and BIG, where all stream. A _clip row marked derived (tools/derive_clip_rows.py marks the
#    H200's it derives from the H100's) is priced with a warning that names the derivation; the
#    embedded H200 default's, measured since session 49, with none.
h100 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "profiles", "h100-sxm.json")
h100_rows = {o["name"]: o for o in json.load(open(h100))["compute"]["optimizer"]}
if sorted(h100_rows) != sorted(["adamw", "adam", "sgd", "adamw_clip", "adam_clip", "sgd_clip"]):
    fails.append("h100-sxm.json's optimizer rows: %s" % sorted(h100_rows))
MID = ["--transformer", "--arch", "llama", "--layers", "2", "--hidden", "512", "--heads", "8", "--ffn", "1024",
       "--vocab", "4000", "--seq", "64", "--micro-batch", "2", "--precision", "autocast-bf16"]
for model, what in ((MID, "8.4 M elements"), (BIG, "BIG")):
    for opt, clip in (("adamw", False), ("adamw", True), ("sgd", True)):
        args = model + ["--optimizer", opt] + (["--clip-grad-norm", "1"] if clip else [])
        w, _ = workload(fusim, args, h100, tmp)
        if not w:
            continue
        m = re.search(r"Optimizer step: device ([0-9.]+) us", w["notes"])
        sizes = [g["bytes"] / 4.0 for g in reversed(w["grads"])]
        want = calib_torch.optim_dev_us(h100_rows[opt + ("_clip" if clip else "")], sizes)
        check("h100-sxm %s%s device, %s" % (opt, "_clip" if clip else "", what), float(m.group(1)) if m else -1,
              want, 0.051)
DERIVED = "\"adamw_clip\" optimizer fit was not measured on its GPU but derived (h100-sxm clip less plain)"
use([dict(ROW, name="adamw_clip", derived="h100-sxm clip less plain")])
# the embedded default's clip rows were measured on its H200; their cold form is carried from the
# H100's (tools/optim_cold_rows.py --carry-from), and the warning says that, not the clip's mark
CARRIED = "\"adamw_clip\" optimizer fit was not measured on its GPU but derived (cold form carried from h100-sxm"
for what, prof_args, mark in (("a derived _clip row", ["--profile", pf], DERIVED), ("the embedded default", [], CARRIED)):
    r = subprocess.run([fusim, "workload"] + SMALL + ["--clip-grad-norm", "1"] + prof_args, capture_output=True, text=True)
    if r.returncode != 0 or mark not in r.stderr or r.stderr.count("optimizer fit was not measured") != 1:
        fails.append("--clip-grad-norm on %s: exit %d, stderr %r" % (what, r.returncode, r.stderr))
finish()
