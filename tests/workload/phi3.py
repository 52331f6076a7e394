#!/usr/bin/env python3
"""phi3.py: fusim workload --arch phi3 (Llama's layer with q, k and v in one projection and gate and
up in one) against hand-derived counts, an independent capture's tensor list, and hand-made host rows.

1. Phi-3-mini (hidden 3072, 32 layers, 32 heads, ffn 8192, vocabulary 32064, untied), by hand from
   the shapes: embedding and head 32064 x 3072 = 98,500,608 each; a layer: qkv_proj 3072 x 9216 =
   28,311,552, o_proj 3072 x 3072 = 9,437,184, gate_up_proj 3072 x 16384 = 50,331,648, down_proj
   8192 x 3072 = 25,165,824, two norms of 3072: 113,252,352; x 32 = 3,624,075,264; the final norm
   3072: 3,821,079,552 parameters (the published 3.8B) in 2 + 32 x 6 + 1 = 195 tensors; the same
   shape as --arch llama has as many parameters in 3 x 32 tensors more.
2. The H100 capture of session 50 (Phi3ForCausalLM, hidden 768, 12 layers, 12 heads, 4 KV heads,
   ffn 2048, vocabulary 32064, as PyTorch allocated it): the builder's gradients are its names and
   bytes, in its ready order.
3. No hf_phi3 rows in the step's mode (the embedded H200 profile has none until a GPU measures
   them): refused, one line naming the rows and the calibration that measures them, exit 65,
   nothing written. --head-dim and --qkv-bias (Phi-3 has neither) are usage errors, exit 64.
4. With hand-made rows (bf16 layer 1000 / 2000 us, rest 3000 / 4000 us), every layer's host costs
   add up to the layer row and the rest's to the rest row (the --ops listing's 3 decimals).
Usage: phi3.py FUSIM"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, check_layer_host, check_refused, check_same_grads, finish, host_row, profile_with, start, workload  # noqa: E402

fusim, tmp, prof = start()
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ops = [t for t in prof["compute"]["ops"] if not t["op"].startswith("hf_phi3_")]


def write(name, extra):
    return profile_with(prof, tmp, name, ops, extra)


LAYER, REST = (1000.0, 2000.0), (3000.0, 4000.0)
full = write("p.json", [host_row("hf_phi3_layer_tiny", "bf16", *LAYER), host_row("hf_phi3_rest_tiny", "bf16", *REST)])
none = write("n.json", [])

# 1. Phi-3-mini by hand
MINI = ["--transformer", "--arch", "phi3", "--layers", "32", "--hidden", "3072", "--heads", "32", "--ffn", "8192",
        "--vocab", "32064", "--seq", "512", "--micro-batch", "1", "--precision", "autocast-bf16"]
w, _ = workload(fusim, MINI, full, tmp)
if w:
    check("Phi-3-mini tensors", len(w["grads"]), 195, 0)
    check("Phi-3-mini parameters (fp32 gradients: bytes / 4)", sum(g["bytes"] for g in w["grads"]) / 4, 3821079552, 0)
    for k, n in (("self_attn.qkv_proj", 3072 * 9216), ("mlp.gate_up_proj", 3072 * 16384)):
        got = [g["bytes"] // 4 for g in w["grads"] if g["name"].endswith(k + ".weight")]
        check("Phi-3-mini: %s weights" % k, len(got), 32, 0)
        check("Phi-3-mini: %s elements each" % k, max(got or [0]), n, 0)
w, _ = workload(fusim, [a if a != "phi3" else "llama" for a in MINI], full, tmp)
if w:
    check("the same shape as llama: tensors", len(w["grads"]), 195 + 3 * 32, 0)
    check("the same shape as llama: parameters", sum(g["bytes"] for g in w["grads"]) / 4, 3821079552, 0)

# 2. session 50's H100 capture, b16 s512 bf16 autocast
cap = json.load(open(os.path.join(ROOT, "data", "compute", "captures-h100-2026-12-07g-hf",
                                  "phi3_h768_l12_b16_s512_bf16.json")))
w, _ = workload(fusim, ["--transformer", "--arch", "phi3", "--layers", "12", "--hidden", "768", "--heads", "12",
                        "--kv-heads", "4", "--ffn", "2048", "--vocab", "32064", "--seq", "512", "--micro-batch", "16",
                        "--precision", "autocast-bf16", "--optimizer", "adamw"], full, tmp)
if w:
    check_same_grads("the H100 Phi-3 capture", w, cap)
    # embedding and head 32064 x 768 each, 12 x (1280 x 768 + 768 x 768 + 4096 x 768 + 2048 x 768 + 2 x 768), 768
    check("the H100 Phi-3 capture: parameters", sum(g["bytes"] for g in w["grads"]) / 4,
          2 * 32064 * 768 + 12 * (1280 * 768 + 768 * 768 + 4096 * 768 + 2048 * 768 + 2 * 768) + 768, 0)

# 3. refused without the rows, and the options Phi-3 has no use for
SMALL = ["--transformer", "--arch", "phi3", "--layers", "4", "--hidden", "128", "--heads", "4", "--kv-heads", "2",
         "--ffn", "256", "--vocab", "1000", "--seq", "64", "--micro-batch", "1"]
for path, prec in ((none, "autocast-bf16"), (full, "tf32")):
    check_refused(fusim, tmp, "refused (%s, %s)" % (os.path.basename(path), prec),
                  SMALL + ["--precision", prec, "--profile", path],
                  ["has no hf_phi3_layer_tiny / hf_phi3_rest_tiny row in %s"
                   % ("bf16" if prec == "autocast-bf16" else "fp32"), "--hf-archs llama,phi3"])
for extra in (["--head-dim", "64"], ["--qkv-bias"]):
    r = subprocess.run([fusim, "workload"] + SMALL + extra + ["--profile", full, "--out", os.path.join(tmp, "u.json")],
                       capture_output=True, text=True)
    check("%s refused: exit" % extra[0], r.returncode, 64, 0)
    check("%s refused: one line" % extra[0], len(r.stderr.splitlines()), 1, 0)

# 4. the host costs add up to the Phi-3 rows
w, lst = workload(fusim, SMALL + ["--precision", "autocast-bf16"], full, tmp)
if lst:
    check_layer_host(lst, 4, LAYER, REST)
finish()
