#!/usr/bin/env python3
"""compare_by_gpu.py: tools/compare_compute.py --by-gpu prices each capture with the repository's
profile of the GPU it ran on. H100 run 38c's EfficientNetV2-M (meta.gpu "NVIDIA H100 80GB HBM3",
AdamW with clip_grad_norm_) needs an "adamw_clip" optimizer fit: the H100 profile has one, and
--profile here is the H200 default less its (derived) _clip fits. Without --by-gpu it is priced
with --profile and left out, naming the missing fit; with it, priced with
data/profiles/h100-sxm.json (a row of its name).
Usage: compare_by_gpu.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
fusim = sys.argv[1]
run = os.path.join(ROOT, "data", "validation", "torch_h100_run38c")
name = "efficientnet_v2_m_b32_bf16_adamw_none_clip_torchval"
fails = []
prof = json.load(open(os.path.join(ROOT, "data", "profiles", "h200-default.json")))
prof["compute"]["optimizer"] = [o for o in prof["compute"]["optimizer"] if not o["name"].endswith("_clip")]
noclip = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
json.dump(prof, noclip)
noclip.close()
for by_gpu in (False, True):
    cmd = [sys.executable, os.path.join(ROOT, "tools", "compare_compute.py"), "--fusim", fusim, "--heldout", "",
           "--profile", noclip.name, "--others", run] + (["--by-gpu"] if by_gpu else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    priced = any(line.startswith(name + " ") for line in r.stdout.splitlines())
    left_out = "%s: left out" % name in r.stderr and "adamw_clip" in r.stderr
    if by_gpu and not priced:
        fails.append("--by-gpu: %s not priced (exit %d): %s" % (name, r.returncode, r.stderr.strip()[-300:]))
    if not by_gpu and (priced or not left_out):
        fails.append("without --by-gpu: %s priced %s, left out naming adamw_clip %s" % (name, priced, left_out))
os.remove(noclip.name)
for f in fails:
    print("FAIL", f)
print("compare --by-gpu: %d failed" % len(fails))
sys.exit(1 if fails else 0)
