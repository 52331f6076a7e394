#!/usr/bin/env python3
"""olmo2.py: fusim workload --arch olmo2 (Llama's layer with its RMSNorms after attention and after
the MLP, and one on all of q and all of k) against hand-derived counts, an independent capture's
tensor list, and hand-made host rows.

1. The shape of session 50's H100 capture (Olmo2ForCausalLM: hidden 768, 12 layers, 12 heads, ffn
   2048, vocabulary 50304, untied), by hand: embedding and head 50304 x 768 = 38,633,472 each; a
   layer: q, k, v, o 768 x 768 = 589,824 each, q_norm and k_norm 768 each, gate, up, down 768 x 2048
   = 1,572,864 each, post_attention_layernorm and post_feedforward_layernorm 768 each: 7,080,960;
   x 12 = 84,971,520; the final norm 768: 162,239,232 parameters in 2 + 12 x 11 + 1 = 135 tensors
   (Llama's shape: 2 x 12 tensors and 2 x 768 x 12 parameters fewer). The builder's gradients are
   the capture's, names and bytes, in its ready order.
2. No hf_olmo2 rows in the step's mode (the embedded profile has none): refused, one line naming
   the rows and the calibration, exit 65, nothing written. --qkv-bias (OLMo 2's attention_bias puts a
   bias on o_proj too): exit 64.
3. With hand-made rows (bf16 layer 1000 / 2000 us, rest 3000 / 4000 us), every layer's host costs
   add up to the layer row and the rest's to the rest row.
Usage: olmo2.py FUSIM"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, check_layer_host, check_refused, check_same_grads, finish, host_row, profile_with, start, workload  # noqa: E402

fusim, tmp, prof = start()
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ops = [t for t in prof["compute"]["ops"] if not t["op"].startswith("hf_olmo2_")]
LAYER, REST = (1000.0, 2000.0), (3000.0, 4000.0)
full = profile_with(prof, tmp, "o.json", ops, [host_row("hf_olmo2_layer_tiny", "bf16", *LAYER),
                                               host_row("hf_olmo2_rest_tiny", "bf16", *REST)])
none = profile_with(prof, tmp, "n.json", ops, [])

SHAPE = ["--transformer", "--arch", "olmo2", "--layers", "12", "--hidden", "768", "--heads", "12", "--ffn", "2048",
         "--vocab", "50304", "--seq", "512", "--micro-batch", "16", "--precision", "autocast-bf16",
         "--optimizer", "adamw"]
w, _ = workload(fusim, SHAPE, full, tmp)
if w:
    check("OLMo 2 h768 tensors", len(w["grads"]), 135, 0)
    check("OLMo 2 h768 parameters", sum(g["bytes"] for g in w["grads"]) / 4, 162239232, 0)
    cap = json.load(open(os.path.join(ROOT, "data", "compute", "captures-h100-2026-12-07k-olmo2",
                                      "olmo2_h768_l12_b16_s512_bf16.json")))
    check_same_grads("the H100 OLMo 2 capture", w, cap)
w, _ = workload(fusim, [a if a != "olmo2" else "llama" for a in SHAPE], full, tmp)
if w:
    check("the same shape as llama: tensors", len(w["grads"]), 135 - 2 * 12, 0)
    check("the same shape as llama: parameters", sum(g["bytes"] for g in w["grads"]) / 4, 162239232 - 2 * 768 * 12, 0)

SMALL = ["--transformer", "--arch", "olmo2", "--layers", "4", "--hidden", "128", "--heads", "4", "--ffn", "256",
         "--vocab", "1000", "--seq", "64", "--micro-batch", "1"]
for path, prec in ((none, "autocast-bf16"), (full, "tf32")):
    check_refused(fusim, tmp, "refused (%s, %s)" % (os.path.basename(path), prec),
                  SMALL + ["--precision", prec, "--profile", path],
                  ["has no hf_olmo2_layer_tiny / hf_olmo2_rest_tiny row in %s"
                   % ("bf16" if prec == "autocast-bf16" else "fp32"), "--hf-archs llama,olmo2"])
r = subprocess.run([fusim, "workload"] + SMALL + ["--qkv-bias", "--profile", full, "--out", os.path.join(tmp, "u.json")],
                   capture_output=True, text=True)
check("--qkv-bias refused: exit", r.returncode, 64, 0)

w, lst = workload(fusim, SMALL + ["--precision", "autocast-bf16"], full, tmp)
if lst:
    check_layer_host(lst, 4, LAYER, REST)
finish()
