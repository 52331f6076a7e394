#!/usr/bin/env python3
"""qkv_bias.py: fusim workload --transformer --arch llama --qkv-bias builds Qwen2's decoder
(Qwen2ForCausalLM: Llama's layer with biases on q_proj, k_proj and v_proj alone), checked at
Qwen2-0.5B's configuration (hidden 896, 24 layers, 14 heads, 2 KV heads, ffn 4864, vocabulary
151936, tied head) against its published parameter count, 494,032,768, worked by hand:
embedding 151936 x 896 = 136,134,656; a layer: q 896 x 896 + 896, k and v 896 x 128 + 128 each,
o 896 x 896, gate, up and down 896 x 4864 each, two norms of 896 = 14,912,384; 24 layers, the
final norm (896) and the embedding: 494,032,768, in 1 + 24 x 12 + 1 = 290 tensors (the capture of
validate_torch's qwen2_small, the same configuration, has 290). Without --qkv-bias: 72 tensors and
24 x (896 + 128 + 128) = 27,648 parameters fewer. The device time of a bias: its gradient's
reduction in backward (bias_grad), so backward is longer with the biases, forward no shorter.
The host: Llama's layer rows were measured without biases, so each of q, k and v gains, on top
of the scaled row, the bias's autocast cast (forward: the profile's cast fp32 row's host_fwd_us;
backward: its host_bwd_us) and its gradient's column sum (bias_grad's host_fwd_us), read from
the bundled profile, data/profiles/h200-default.json (the embedded default is built from it);
o_proj, which has no bias, is unchanged (--ops, 2 layers, batch 1 x 128).
--qkv-bias with --arch bert or gpt2 (which have every bias): one line, exit 64, nothing written.
Usage: qkv_bias.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

fusim = sys.argv[1]


def qwen2(layers=24, batch=4, seq=512):
    """Qwen2-0.5B's configuration, at its 24 layers unless told."""
    return ["--transformer", "--arch", "llama", "--layers", str(layers), "--hidden", "896", "--heads", "14",
            "--kv-heads", "2", "--ffn", "4864", "--vocab", "151936", "--tied-embeddings", "--seq", str(seq),
            "--micro-batch", str(batch), "--precision", "autocast-bf16"]


fails = []
got = {}
with tempfile.TemporaryDirectory() as tmp:
    for label, extra in (("qkv", ["--qkv-bias"]), ("none", [])):
        out = os.path.join(tmp, label + ".json")
        r = subprocess.run([fusim, "workload"] + qwen2() + extra + ["--out", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fails.append("%s: exit %d: %s" % (label, r.returncode, r.stderr.strip()))
            continue
        w = json.load(open(out))
        got[label] = ({g["name"]: g["bytes"] // 4 for g in w["grads"]}, w["bwd_us"], w["fwd_us"])
    if "qkv" in got and "none" in got:
        q, n = got["qkv"][0], got["none"][0]
        if (sum(q.values()), len(q)) != (494032768, 290):
            fails.append("qkv-bias: %d parameters in %d tensors, Qwen2-0.5B has 494032768 in 290"
                         % (sum(q.values()), len(q)))
        for name, numel in (("model.layers.0.self_attn.q_proj.bias", 896),
                            ("model.layers.0.self_attn.k_proj.bias", 128),
                            ("model.layers.23.self_attn.v_proj.bias", 128)):
            if q.get(name) != numel:
                fails.append("%s: %r, expected %d" % (name, q.get(name), numel))
        if "model.layers.0.self_attn.o_proj.bias" in q or "model.layers.0.mlp.up_proj.bias" in q:
            fails.append("a bias beyond q, k and v")
        if (sum(q.values()) - sum(n.values()), len(q) - len(n)) != (27648, 72):
            fails.append("without --qkv-bias: %d parameters and %d tensors fewer, expected 27648 and 72"
                         % (sum(q.values()) - sum(n.values()), len(q) - len(n)))
        if not (got["qkv"][1] > got["none"][1] and got["qkv"][2] >= got["none"][2]):
            fails.append("bwd %g vs %g, fwd %g vs %g: the biases' gradients cost nothing"
                         % (got["qkv"][1], got["none"][1], got["qkv"][2], got["none"][2]))
    prof = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                                       "profiles", "h200-default.json")))["compute"]["ops"]
    row = {(o["op"], o["dtype"]): o for o in prof}
    cast, bias_sum = row[("cast", "fp32")], row[("bias_grad", "bf16")]
    ops = {}
    for label, extra in (("qkv", ["--qkv-bias"]), ("none", [])):
        csv = os.path.join(tmp, label + ".csv")
        r = subprocess.run([fusim, "workload"] + qwen2(layers=2, batch=1, seq=128) + extra +
                           ["--out", os.path.join(tmp, "h.json"), "--ops", csv], capture_output=True, text=True)
        lines = open(csv).read().splitlines() if r.returncode == 0 else []
        head = lines[0].split(",") if lines else []
        ops[label] = {f[head.index("param")]: (float(f[head.index("host_fwd_us")]), float(f[head.index("host_bwd_us")]))
                      for f in (x.split(",") for x in lines[1:])}
    for name, want in (("model.layers.0.self_attn.q_proj.weight",
                        (cast["host_fwd_us"], cast["host_bwd_us"] + bias_sum["host_fwd_us"])),
                       ("model.layers.1.self_attn.v_proj.weight",
                        (cast["host_fwd_us"], cast["host_bwd_us"] + bias_sum["host_fwd_us"])),
                       ("model.layers.0.self_attn.o_proj.weight", (0.0, 0.0))):
        a, b = ops.get("qkv", {}).get(name), ops.get("none", {}).get(name)
        if not a or not b or abs(a[0] - b[0] - want[0]) > 2e-3 or abs(a[1] - b[1] - want[1]) > 2e-3:
            fails.append("%s host with / without the biases %r / %r, expected +%.3f / +%.3f"
                         % (name, a, b, want[0], want[1]))
    for arch in ("bert", "gpt2"):
        out = os.path.join(tmp, arch + ".json")
        r = subprocess.run([fusim, "workload", "--transformer", "--arch", arch, "--layers", "2", "--hidden", "64",
                            "--heads", "4", "--ffn", "256", "--vocab", "1000", "--seq", "32", "--micro-batch", "2",
                            "--qkv-bias", "--out", out], capture_output=True, text=True)
        if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1 or "--qkv-bias" not in r.stderr \
                or os.path.exists(out):
            fails.append("%s --qkv-bias: exit %d, stderr %r, written %s"
                         % (arch, r.returncode, r.stderr, os.path.exists(out)))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
