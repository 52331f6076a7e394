#!/usr/bin/env python3
"""qwen3.py: fusim workload --arch qwen3 (Llama's layer plus an RMSNorm on each head's queries and
keys) against hand-derived counts, an independent capture's tensor list, and hand-made host rows.

1. Qwen3-0.6B (hidden 1024, 28 layers, 16 heads of 128 (--head-dim: not hidden / heads), 8 KV
   heads, ffn 3072, vocabulary 151936, tied), by hand from the shapes: embedding 151936 x 1024 =
   155,582,464; a layer: q_proj 1024 x 2048 = 2,097,152, k_proj and v_proj 1024 x 1024 =
   1,048,576 each, o_proj 2048 x 1024 = 2,097,152, gate, up, down 1024 x 3072 = 3,145,728 each,
   q_norm and k_norm 128 each, two norms of 1024: 15,730,944; x 28 = 440,466,432; the final norm
   1024: 596,049,920 parameters (the published 0.6B) in 1 + 28 x 11 + 1 = 310 tensors; untied,
   lm_head adds the embedding's size. The same shape as --arch llama: 2 x 28 tensors and 256 x 28
   parameters fewer.
2. Held-out run 35's Qwen3-style capture (Qwen3ForCausalLM as PyTorch allocated it on the H200):
   the builder's gradients are its names and bytes, and in its ready order (q_proj, q_norm,
   k_proj, k_norm, v_proj in forward).
3. No hf_qwen3_layer_tiny / _rest_tiny rows in the step's mode (the bundled profile has none until
   a GPU measures them; a profile with the layer row only; bf16 rows for a TF32 step): refused, one
   line naming the missing rows and the calibration that measures them, exit 65, nothing written.
4. With hand-made rows (Qwen3 bf16 layer 1000 / 2000 us, rest 3000 / 4000 us; Llama's rows left as
   the profile has them), every layer's host costs add up to the Qwen3 layer row and the rest's to
   the rest row (the --ops listing's 3 decimals), on a shape where no real-size path adds to them
   (64 tokens); the two head norms are in every layer, priced by the rmsnorm table at their element
   count (tokens x heads x head size), as the other norms are.
Usage: qwen3.py FUSIM"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, check_layer_host, check_refused, check_same_grads, fails, finish, host_row, profile_with, start, workload  # noqa: E402

fusim, tmp, prof = start()
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ops = [t for t in prof["compute"]["ops"] if not t["op"].startswith("hf_qwen3_")]
rows = {(t["op"], t["dtype"]): t for t in ops}


def write(name, extra):
    return profile_with(prof, tmp, name, ops, extra)


LAYER, REST = (1000.0, 2000.0), (3000.0, 4000.0)
full = write("q.json", [host_row("hf_qwen3_layer_tiny", "bf16", *LAYER), host_row("hf_qwen3_rest_tiny", "bf16", *REST)])
none = write("n.json", [])
layer_only = write("l.json", [host_row("hf_qwen3_layer_tiny", "bf16", *LAYER)])

# 1. Qwen3-0.6B by hand
Q06 = ["--transformer", "--arch", "qwen3", "--layers", "28", "--hidden", "1024", "--heads", "16", "--kv-heads", "8",
       "--head-dim", "128", "--ffn", "3072", "--vocab", "151936", "--seq", "512", "--micro-batch", "1",
       "--precision", "autocast-bf16"]
for tied, n, params in ((True, 310, 596049920), (False, 311, 596049920 + 151936 * 1024)):
    w, _ = workload(fusim, Q06 + (["--tied-embeddings"] if tied else []), full, tmp)
    if w:
        what = "Qwen3-0.6B %s" % ("tied" if tied else "untied")
        check(what + " tensors", len(w["grads"]), n, 0)
        check(what + " parameters (fp32 gradients: bytes / 4)", sum(g["bytes"] for g in w["grads"]) / 4, params, 0)
        names = [g["name"] for g in w["grads"]]
        for k in ("q_norm", "k_norm"):
            got = [g["bytes"] for g in w["grads"] if g["name"].endswith("self_attn.%s.weight" % k)]
            check("%s: %s weights" % (what, k), len(got), 28, 0)
            check("%s: %s bytes each" % (what, k), max(got or [0]), 128 * 4, 0)
w, _ = workload(fusim, [a if a != "qwen3" else "llama" for a in Q06] + ["--tied-embeddings"], full, tmp)
if w:
    check("the same shape as llama: tensors", len(w["grads"]), 310 - 2 * 28, 0)
    check("the same shape as llama: parameters", sum(g["bytes"] for g in w["grads"]) / 4, 596049920 - 256 * 28, 0)

# 2. run 35's capture: Qwen3ForCausalLM(hidden 768, 12 layers, 12 heads, 4 KV heads, head_dim 64, ffn
# 2048, vocabulary 151936, tied), b8 s512 bf16 autocast
cap = json.load(open(os.path.join(ROOT, "data", "validation", "torch_h200_run35",
                                  "wl_qwen3_small_b8_s512_bf16_adamw_none_torchval.json")))
w, _ = workload(fusim, ["--transformer", "--arch", "qwen3", "--tied-embeddings", "--layers", "12", "--hidden", "768",
                        "--heads", "12", "--kv-heads", "4", "--ffn", "2048", "--vocab", "151936", "--seq", "512",
                        "--micro-batch", "8", "--precision", "autocast-bf16", "--optimizer", "adamw"], full, tmp)
if w:
    check_same_grads("run 35's Qwen3 capture", w, cap)
    check("run 35's Qwen3 capture: parameters", sum(g["bytes"] for g in w["grads"]) / 4, 192205056, 0)

# 3. refused without the rows
SMALL = ["--transformer", "--arch", "qwen3", "--layers", "4", "--hidden", "128", "--heads", "4", "--kv-heads", "2",
         "--head-dim", "64", "--ffn", "256", "--vocab", "1000", "--seq", "64", "--micro-batch", "1"]
for path, prec, missing in ((none, "autocast-bf16", "hf_qwen3_layer_tiny / hf_qwen3_rest_tiny"),
                            (layer_only, "autocast-bf16", "hf_qwen3_rest_tiny"),
                            (full, "tf32", "hf_qwen3_layer_tiny / hf_qwen3_rest_tiny")):
    check_refused(fusim, tmp, "refused (%s, %s)" % (os.path.basename(path), prec),
                  SMALL + ["--precision", prec, "--profile", path],
                  ["has no %s row in %s" % (missing, "bf16" if prec == "autocast-bf16" else "fp32"),
                   "--hf-archs llama,qwen3"])
# the embedded profile too (no Qwen3 rows measured yet; once they are, this case prices)
r = subprocess.run([fusim, "workload"] + SMALL + ["--out", os.path.join(tmp, "e.json")], capture_output=True, text=True)
if r.returncode != 0:
    check("embedded profile without the rows: exit", r.returncode, 65, 0)
    check("embedded profile without the rows: one line", len(r.stderr.splitlines()), 1, 0)

# 4. the host costs add up to the Qwen3 rows
w, lst = workload(fusim, SMALL + ["--precision", "autocast-bf16"], full, tmp)
if lst:
    check_layer_host(lst, 4, LAYER, REST)
    if sum(float(x["host_bwd_paths_us"]) for x in lst) != 0:
        fails.append("a real-size path added to the host rows at 64 tokens")
    # the head norms: tokens x heads x head size elements, the rmsnorm table (bf16: q_proj's output
    # under autocast), one weight of the head size each
    rms = rows[("rmsnorm", "bf16")]
    import bisect
    for k, numel in (("q_norm", 64 * 4 * 64), ("k_norm", 64 * 2 * 64)):
        got = [x for x in lst if x["param"].endswith("self_attn.%s.weight" % k)]
        check("%s in every layer" % k, len(got), 4, 0)
        i = bisect.bisect_left(rms["numel"], numel)
        if got and rms["numel"][0] >= numel:  # below the table's first point: its first entry
            check("%s forward device time" % k, float(got[0]["fwd_us"]), rms["fwd_us"][0], 0.001)
        elif got:
            fails.append("the rmsnorm table starts at %g elements, below %s's %d: pick a smaller shape"
                         % (rms["numel"][0], k, numel))
    if w:
        sizes = {g["name"]: g["bytes"] for g in w["grads"]}
        check("q_norm's weight (head size 64, fp32 gradient)", sizes.get("model.layers.0.self_attn.q_norm.weight", 0),
              64 * 4, 0)
        check("q_proj 128 -> 4 x 64", sizes.get("model.layers.0.self_attn.q_proj.weight", 0), 128 * 256 * 4, 0)
        check("o_proj 4 x 64 -> 128", sizes.get("model.layers.0.self_attn.o_proj.weight", 0), 256 * 128 * 4, 0)
        check("k_proj 128 -> 2 x 64", sizes.get("model.layers.0.self_attn.k_proj.weight", 0), 128 * 128 * 4, 0)
# --head-dim at hidden / heads is the default: the same workload
a, _ = workload(fusim, [x if x != "64" or i != SMALL.index("--head-dim") + 1 else "32" for i, x in enumerate(SMALL)]
                + ["--arch", "llama"], full, tmp)
b, _ = workload(fusim, [x for i, x in enumerate(SMALL) if i not in (SMALL.index("--head-dim"), SMALL.index("--head-dim") + 1)]
                + ["--arch", "llama"], full, tmp)
if a and b:
    check("llama --head-dim 32 (= 128 / 4) as without: bwd_us", a["bwd_us"], b["bwd_us"], 0)
    check("llama --head-dim 32 as without: tensors", len(a["grads"]), len(b["grads"]), 0)
# bert and gpt2 split hidden over heads: --head-dim refused there (usage, one line)
r = subprocess.run([fusim, "workload", "--transformer", "--arch", "gpt2", "--layers", "2", "--hidden", "128", "--heads", "4",
                    "--head-dim", "64", "--ffn", "256", "--vocab", "1000", "--seq", "64", "--micro-batch", "1"],
                   capture_output=True, text=True)
check("gpt2 --head-dim: exit", r.returncode, 64, 0)
check("gpt2 --head-dim: one line", len(r.stderr.splitlines()), 1, 0)
finish()
