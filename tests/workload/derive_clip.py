#!/usr/bin/env python3
"""derive_clip.py: tools/derive_clip_rows.py by hand. A target GPU's plain AdamW fit (host-speed probe
5 us) and a source GPU's plain and clipped fits (probes 4 and 8 us): the derived adamw_clip keeps
the target's kernel costs (launch and HBM forms, tail_us), adds the source's clip-less-plain host
cost carried to the target's probe (base: 500 x 5/8 - 200 x 5/4 = 62.5 us; per tensor: 20 x 5/8 -
8 x 5/4 = 2.5 us), takes the source clip's overlap shares, scales the old form's times by the source's
clip / plain ratio, and carries "derived"; fusim prices --clip-grad-norm with it and warns. A source
whose fits lack the target's HBM form is refused (exit 65, nothing written), and so is a profile whose
fit's "derived" mark is longer than 47 bytes (one line).
Usage: derive_clip.py FUSIM"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, fails, finish, start  # noqa: E402

fusim, tmp, prof = start()
tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "derive_clip_rows.py")
KERNELS = dict(launch_us=2.0, per_moved_elem_us=1e-6, per_chunk_elem_us=5e-5, hbm_launch_us=3.0,
               hbm_per_moved_elem_us=1.5e-6, hbm_sat_blocks=100.0, cache_bytes=5e7)
target_plain = dict(name="adamw", base_us=80.0, per_tensor_us=0.2, per_elem_us=2e-5, host_base_us=300.0,
                    host_per_tensor_us=10.0, tail_frac=0.3, host_probe_us=5.0, prologue_frac=0.4, tail_us=90.0,
                    **KERNELS)
source_plain = dict(target_plain, base_us=100.0, host_base_us=200.0, host_per_tensor_us=8.0, host_probe_us=4.0,
                    launch_us=9.0, tail_us=60.0)
source_clip = dict(source_plain, name="adamw_clip", base_us=150.0, host_base_us=500.0, host_per_tensor_us=20.0,
                   host_probe_us=8.0, prologue_frac=0.25, tail_frac=0.2, tail_us=40.0)
paths = {n: os.path.join(tmp, n + ".json") for n in ("target", "source", "bad", "out", "merged", "longmark")}
target = dict(prof, compute=dict(prof["compute"], optimizer=[target_plain]))
for name, fits in (("target", None), ("source", [source_plain, source_clip]),
                   ("bad", [dict((k, v) for k, v in f.items() if not k.startswith("hbm_") and k != "cache_bytes")
                            for f in (source_plain, source_clip)])):
    with open(paths[name], "w") as f:
        json.dump(target if fits is None else {"compute": {"optimizer": fits}}, f)
r = subprocess.run([sys.executable, tool, paths["out"], paths["target"], paths["source"]], capture_output=True, text=True)
if r.returncode:
    fails.append("derive_clip_rows.py: exit %d: %s" % (r.returncode, r.stderr.strip()))
else:
    rows = json.load(open(paths["out"]))["compute"]["optimizer"]
    if [x["name"] for x in rows] != ["adamw_clip"]:
        fails.append("derived rows %s, want adamw_clip alone" % [x["name"] for x in rows])
    d = rows[0]
    for k, v in KERNELS.items():
        check("derived " + k + " (the target's)", d[k], v, 1e-12)
    check("derived tail_us (the target's)", d["tail_us"], 90.0, 1e-9)
    check("derived host_base_us", d["host_base_us"], 300.0 + 62.5, 1e-9)
    check("derived host_per_tensor_us", d["host_per_tensor_us"], 10.0 + 2.5, 1e-9)
    check("derived host_probe_us (the target's)", d["host_probe_us"], 5.0, 1e-12)
    check("derived prologue_frac (the source clip's)", d["prologue_frac"], 0.25, 1e-12)
    check("derived tail_frac (the source clip's)", d["tail_frac"], 0.2, 1e-12)
    check("derived base_us (80 x 150 / 100)", d["base_us"], 120.0, 1e-9)
    if not d.get("derived"):
        fails.append("derived row has no \"derived\" mark")
    # merged into the target, --clip-grad-norm prices with it and says so
    subprocess.run([fusim, "fit", "--compute", paths["out"], "--merge-into", paths["target"]], capture_output=True)
    r = subprocess.run([fusim, "workload", "--cnn", "resnet18", "--micro-batch", "8", "--optimizer", "adamw",
                        "--clip-grad-norm", "1", "--profile", paths["target"], "--out", paths["merged"]],
                       capture_output=True, text=True)
    if r.returncode or "\"adamw_clip\" optimizer fit was not measured on its GPU but derived" not in r.stderr:
        fails.append("fusim workload --clip-grad-norm on the derived fit: exit %d, %r" % (r.returncode, r.stderr[-300:]))
# an optimizer fit's "derived" mark longer than 47 bytes: one line, exit 65
with open(paths["longmark"], "w") as f:
    json.dump(dict(prof, compute=dict(prof["compute"], optimizer=[dict(target_plain, derived="x" * 60)])), f)
r = subprocess.run([fusim, "workload", "--cnn", "resnet18", "--micro-batch", "8", "--optimizer", "adamw",
                    "--profile", paths["longmark"], "--out", paths["merged"] + ".x"], capture_output=True, text=True)
if r.returncode != 65 or "derived must be a string of at most 47 bytes" not in r.stderr or \
        len(r.stderr.strip().splitlines()) != 1 or os.path.exists(paths["merged"] + ".x"):
    fails.append("an optimizer fit's long derived mark: exit %d, %r" % (r.returncode, r.stderr))
os.remove(paths["out"]) if os.path.exists(paths["out"]) else None
with open(paths["target"], "w") as f:  # the target as it was, without the merged clip fit
    json.dump(target, f)
r = subprocess.run([sys.executable, tool, paths["out"], paths["target"], paths["bad"]], capture_output=True, text=True)
if r.returncode != 65 or os.path.exists(paths["out"]) or len(r.stderr.strip().splitlines()) != 1 or \
        "differ in form" not in r.stderr:
    fails.append("fits of another form: exit %d, wrote %s, stderr %r" % (r.returncode, os.path.exists(paths["out"]),
                                                                       r.stderr))
finish()
