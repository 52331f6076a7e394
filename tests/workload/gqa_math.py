#!/usr/bin/env python3
"""gqa_math.py: grouped keys outside bf16 priced as PyTorch runs them, SDPA's math path, from the
profile's "attention_gqa" points (tools/calib_torch.py --parts attention_gqa), against hand-made
points and hand-derived bytes.

A Llama layer of hidden 512, 8 heads of 64, 4 KV heads, at batch 8 x seq 512 (T = 4096 tokens,
bh = 64 query heads' problems), TF32:
1. With one hand-made point (tf32, head 64, causal, seq 512, bh 64: 700 / 900 us) the attention
   operation costs exactly 700 / 900 us, and keeps the math path's tensors: the scaled queries,
   the keys and values repeated to every head and the output, 4 B x T x 4 x 512 = 33,554,432, and
   every score's softmax, 4 B x 64 x 512 x 512 = 67,108,864: 100,663,296 bytes (the fused kernels
   keep q, k, v and the output, 4 x T x (2 x 512 + 2 x 256) = 25,165,824, and the log-sum-exp, 4 x
   64 x 512 = 131,072: 25,296,896); no warning.
2. Without the points (the bundled profile less its "attention_gqa"): the fused kernels' price and
   bytes, and one warning line naming attention_gqa. The bundled profile's own points are derived
   from the H100's (tools/derive_gpu_ops.py --attention-gqa): priced by them, the math path's
   bytes, and the derived rows' warning names them.
3. The point is not taken where the math path does not run: keys not grouped (8 KV heads), bf16
   autocast, strict fp32 (its points are "fp32"; the hand-made one is "tf32").
Usage: gqa_math.py FUSIM"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, fails, finish, start  # noqa: E402

fusim, tmp, prof = start()
bundled_points = prof["compute"].pop("attention_gqa", [])
without = os.path.join(tmp, "none.json")
with open(without, "w") as f:
    json.dump(prof, f)
prof["compute"]["attention_gqa"] = [{"dtype": "tf32", "head_dim": 64, "causal": 1, "dropout": 0.0, "seq": 512,
                                     "bh": 64, "fwd_us": 700.0, "bwd_us": 900.0}]
with_points = os.path.join(tmp, "gqa.json")
with open(with_points, "w") as f:
    json.dump(prof, f)

LAYER = ["--transformer", "--arch", "llama", "--layers", "1", "--hidden", "512", "--heads", "8", "--ffn", "1024",
         "--vocab", "1000", "--seq", "512", "--micro-batch", "8"]


def attention(args, profile):
    """(fwd_us, bwd_us, saved_bytes) of the attention operation, and stderr's warning lines about it."""
    out, ops = os.path.join(tmp, "w.json"), os.path.join(tmp, "ops.csv")
    cmd = [fusim, "workload"] + LAYER + args + ["--out", out, "--ops", ops] + (["--profile", profile] if profile else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return None, []
    row = [x for x in csv.DictReader(open(ops)) if x["op"] == "attention"][0]
    warn = [line for line in r.stderr.splitlines() if "attention_gqa" in line]
    return (float(row["fwd_us"]), float(row["bwd_us"]), float(row["saved_bytes"])), warn


GQA = ["--kv-heads", "4", "--precision", "tf32"]
got, warn = attention(GQA, with_points)
if got:
    check("math path: forward us", got[0], 700, 0.001)
    check("math path: backward us", got[1], 900, 0.001)
    check("math path: kept bytes", got[2], 100663296, 0)
    check("math path: warnings", len(warn), 0, 0)
fused, warn = attention(GQA, without)
if fused:
    check("no points: the fused kernels' kept bytes", fused[2], 25296896, 0)
    if abs(fused[0] - 700) < 1:
        fails.append("no points: priced 700 us, the hand-made point of another profile")
    check("no points: one warning line", len(warn), 1, 0)
got, warn = attention(GQA, None)
if got:
    check("bundled profile: its points are derived", bool(bundled_points) and
          all(p.get("derived") for p in bundled_points), True, 0)
    check("bundled profile: the math path's kept bytes", got[2], 100663296, 0)
    check("bundled profile: the derived warning names the points",
          len([line for line in warn if "attention_gqa tf32 (" in line]), 1, 0)
for what, args in (("keys not grouped", ["--kv-heads", "8", "--precision", "tf32"]),
                   ("bf16 autocast", ["--kv-heads", "4", "--precision", "autocast-bf16"]),
                   ("strict fp32", ["--kv-heads", "4", "--precision", "fp32"])):
    got, warn = attention(args, with_points)
    if got and abs(got[0] - 700) < 1:
        fails.append("%s: priced by the math path's tf32 point" % what)
finish()
