#!/usr/bin/env python3
"""The GPU diagnosis tools' bad input and missing PyTorch (no GPU needed): tools/gemm_offgrid.py
refuses an unknown --dtypes (it timed it as fp32) and a size that is not a number (a traceback)
with one line and exit 64; gemm_offgrid, tools/attn_bh.py, tools/calib_torch.py and
tools/bn_probe.py without PyTorch are one line and exit 69 (gemm_offgrid, attn_bh and bn_probe
ended in a traceback); bn_probe with an --out whose folder is missing exits 73 before it imports
torch; calib_torch.py's --hf-archs naming a model hf_host has not (or none) is one line and exit
64 before it imports torch; tools/bwd_start.py's bad arguments (rounds or reps below 1: 64; a
profile that is not JSON: 66, or not a profile: 65; an --out folder missing: 73; --steps of a file
that is no bwd_start output: 65) are one line before it imports torch, and without it 69. PyTorch's absence is a
stand-in package whose import fails, so the test means the same where torch is installed."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
fails = []
with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, "torch"))
    with open(os.path.join(d, "torch", "__init__.py"), "w") as f:
        f.write("raise ImportError('stand-in: no torch')\n")
    env = dict(os.environ, PYTHONPATH=d)
    out = os.path.join(d, "out.json")
    prof = os.path.join(ROOT, "data", "profiles", "h200-default.json")
    junk, lst = os.path.join(d, "junk.json"), os.path.join(d, "list.json")
    with open(junk, "w") as f:
        f.write("{")
    with open(lst, "w") as f:
        f.write("[1]")
    for args, want in ((["gemm_offgrid.py", "--dtypes", "fp16"], 64),
                       (["gemm_offgrid.py", "--tokens", "2k"], 64),
                       (["gemm_offgrid.py", "--widths", "0,768"], 64),
                       (["gemm_offgrid.py"], 69), (["attn_bh.py"], 69), (["calib_torch.py"], 69),
                       (["calib_torch.py", "--parts", "hf_host", "--hf-archs", "llama,qwen2"], 64),
                       (["calib_torch.py", "--parts", "hf_host", "--hf-archs", ","], 64),
                       (["bn_probe.py"], 69), (["bn_probe.py", "--out", os.path.join(d, "no", "x.json")], 73),
                       (["bwd_start.py", "--profile", prof, "--rounds", "0"], 64),
                       (["bwd_start.py", "--profile", prof, "--reps", "0"], 64),
                       (["bwd_start.py", "--profile", junk], 66), (["bwd_start.py", "--profile", lst], 65),
                       (["bwd_start.py", "--profile", prof, "--out", os.path.join(d, "no", "x.json")], 73),
                       (["bwd_start.py", "--profile", prof, "--steps", prof], 65),
                       (["bwd_start.py", "--profile", prof], 69)):
        p = subprocess.run([sys.executable, os.path.join(TOOLS, args[0])] + ["--out", out] + args[1:],
                           capture_output=True, text=True, env=env)
        if p.returncode != want or len(p.stderr.splitlines()) != 1 or os.path.exists(out):
            fails.append("%s: exit %d (want %d), stderr %r" % (" ".join(args), p.returncode, want,
                                                               p.stderr[-300:]))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
