#!/usr/bin/env python3
"""mem_by_hand.py: the memory breakdown of a GPT-2 medium what-if (fusim workload --transformer
--arch gpt2, 24 layers, hidden 1024, 16 heads, ffn 4096, vocab 50257, seq 1024, micro-batch 8)
against a count made by hand, in three recipes.

Parameters: N = 354,823,168, Hugging Face's published count for gpt2-medium (wte 50257 x 1024,
wpe 1024 x 1024, per layer 12 h^2 + 13 h, ln_f 2 h). Per parameter:
  autocast-bf16 + AdamW: fp32 params 4, grads 4, moments 8 (the fp32 params are the master);
    casts: bf16 copies of what autocast's matmuls take, every weight and bias but the layer
    norms' (4 h a layer + 2 h) and wpe (an embedding lookup, not cast): 2 (N - 100352 - 1048576)
  bf16 + AdamW: params 2, grads 2, fp32 master + two moments 12, no casts
  tf32 + SGD (momentum): params 4, grads 4, momentum 4
Activations, in bytes per s*b*h (s b h = 1024 x 8 x 1024) as autograd saves them:
  a layer, autocast: ln_1 input fp32 4 + its mean/rstd 8/h; c_attn input bf16 2; flash SDPA q, k,
    v and out bf16 8 + logsumexp 4 a head 64/h; c_proj input 2; dropout mask 1; ln_2 4 + 8/h;
    c_fc input 2; gelu_new on 4h (pow is on autocast's fp32 list): x cast to fp32 16, tanh out
    fp32 16, 0.5 x bf16 8, 1 + tanh fp32 16 = 56; c_proj input bf16 8; dropout mask 1:
    88 + 5/64. Outside the layers: embedding dropout mask 1, ln_f 4 + 8/h, lm_head input 2.
  bf16: the same in bf16 (norms save 2 + 8/h, gelu_new saves 4 bf16 tensors, 32): 60 + 5/64
    a layer, 5 + 1/128 outside.
  tf32: everything fp32 (SDPA 16 + 64/h, gelu 64, c_proj 16): 118 + 5/64, outside 9 + 1/128.
Whole bytes, so the tolerance is a byte.
Usage: mem_by_hand.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
N = 354823168
L, H, S, B = 24, 1024, 1024, 8
SBH = S * B * H
SHAPE = ["--transformer", "--arch", "gpt2", "--layers", str(L), "--hidden", str(H), "--heads", "16",
         "--ffn", "4096", "--vocab", "50257", "--seq", str(S), "--micro-batch", str(B)]
CASES = [  # recipe flags, params, grads, optimizer, casts bytes per parameter; activations per sbh
    (["--precision", "autocast-bf16", "--optimizer", "adamw"], 4, 4, 8, 2 * (N - 100352 - 1048576) / N,
     L * (88 + 5 / 64) + 7 + 1 / 128),
    (["--precision", "bf16", "--optimizer", "adamw"], 2, 2, 12, 0, L * (60 + 5 / 64) + 5 + 1 / 128),
    (["--precision", "tf32", "--optimizer", "sgd"], 4, 4, 4, 0, L * (118 + 5 / 64) + 9 + 1 / 128),
]
fails = []
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "w.json")
    for flags, p, g, o, c, act in CASES:
        r = subprocess.run([fusim, "workload"] + SHAPE + flags + ["--out", out], capture_output=True, text=True)
        if r.returncode != 0:
            fails.append("%s: exit %d: %s" % (flags, r.returncode, r.stderr.strip()))
            continue
        m = json.load(open(out))["memory"]
        want = {"params_bytes": p * N, "grads_bytes": g * N, "optimizer_bytes": o * N,
                "casts_bytes": c * N, "activations_bytes": act * SBH}
        for k, v in want.items():
            got = m.get(k, 0.0)
            if abs(got - v) > 1:
                fails.append("%s: %s %.0f, by hand %.0f" % (" ".join(flags), k, got, v))
for f in fails:
    print("FAIL:", f)
print("mem_by_hand: %d cases, %d failures" % (len(CASES), len(fails)))
sys.exit(1 if fails else 0)
