#!/usr/bin/env python3
"""reduce_split.py: fusim workload: a column sum in backward (a bias's gradient, an RMSNorm
weight's) past the rows where PyTorch splits it across thread blocks costs the host the
profile's reduce_split row more, by hand on the --ops listing with a hand-made row of 100 us.
The rows by ATen's Reduce.cuh, worked out here by hand: 4 outputs a vector, 128 threads a
block, block_width min(32, cols / 4), the split at 256 values per thread over 128 /
block_width rows of warps: from 1024 rows at 128 outputs or more, from 2048 at 64 (as measured,
tools/bwd_calls.py). Checked: BERT's biased linears at 512 and 1024 tokens; at width 64 the
width-64 biases switch at 2048 tokens, the FFN's (256 outputs) at 1024; Llama's RMSNorm weights
(no biases); nothing without the row; the reference step's backward ratio carries it.
Usage: reduce_split.py FUSIM"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, row_profiles, start, workload  # noqa: E402

fusim, tmp, prof = start()
EXTRA = 100.0
pf, pn, ops = row_profiles(prof, tmp, "reduce_split", EXTRA)
TOL = 0.002  # the listing's 3 decimals, two rows


def host_bwd(arch, batch, seq, hidden=256, ffn=1024, extra=(), p=pf):
    """host_bwd_us by (op, param) of a one-layer model"""
    _, rows = workload(fusim, ["--transformer", "--arch", arch, "--layers", "1", "--hidden", str(hidden), "--heads",
                               "4", "--ffn", str(ffn), "--vocab", "1000", "--seq", str(seq), "--micro-batch",
                               str(batch), "--precision", "autocast-bf16"] + list(extra), p, tmp)
    return {(x["op"], x["param"]): float(x["host_bwd_us"]) for x in rows or []}


L0 = "bert.encoder.layer.0."
BIASED = [L0 + n + ".weight" for n in ("attention.self.query", "attention.self.key", "attention.self.value",
                                        "attention.output.dense", "intermediate.dense", "output.dense")]
BIASED += ["cls.predictions.transform.dense.weight"]
# BERT at width 256: 4 x 128 = 512 tokens single-pass, 8 x 128 = 1024 split: every biased linear
# (and the decoder, whose bias is cls.predictions.bias) gains the row, nothing else moves
a, b = host_bwd("bert", 4, 128), host_bwd("bert", 8, 128)
if a and b:
    for k in BIASED:
        check("bert 1024 tokens: %s + row" % k, b["linear", k], a["linear", k] + EXTRA, TOL)
    # the decoder's row names its own parameter, the bias (its weight is the tied embedding)
    dec = ("linear", "cls.predictions.bias")
    check("bert: the decoder's row listed", dec in a and dec in b, True, 0)
    if dec in a and dec in b:
        check("bert 1024 tokens: decoder + row", b[dec], a[dec] + EXTRA, TOL)
    other = [k for k in a if k[0] != "linear" and k[0] != "embedding"]
    check("bert 1024 tokens: the other operations unchanged",
          sum(b[k] for k in other), sum(a[k] for k in other), TOL * len(other))
# width 64 (ffn 256): at 1024 tokens only the FFN's first linear (256 outputs) splits; at 2048 all
c, d = host_bwd("bert", 8, 128, 64, 256), host_bwd("bert", 16, 128, 64, 256)
e = host_bwd("bert", 4, 128, 64, 256)
if c and d and e:
    check("width 64, 1024 tokens: intermediate + row", c["linear", L0 + "intermediate.dense.weight"],
          e["linear", L0 + "intermediate.dense.weight"] + EXTRA, TOL)
    check("width 64, 1024 tokens: query single-pass", c["linear", L0 + "attention.self.query.weight"],
          e["linear", L0 + "attention.self.query.weight"], TOL)
    check("width 64, 2048 tokens: query + row", d["linear", L0 + "attention.self.query.weight"],
          e["linear", L0 + "attention.self.query.weight"] + EXTRA, TOL)
# Llama: no biases; its RMSNorm weights (two a layer and the final norm) gain the row
f, g = host_bwd("llama", 4, 128), host_bwd("llama", 8, 128)
if f and g:
    for k in [k for k in f if k[0] == "rmsnorm"]:
        check("llama 1024 tokens: %s + row" % k[1], g[k], f[k] + EXTRA, TOL)
    check("llama: three norms", len([k for k in f if k[0] == "rmsnorm"]), 3, 0)
    check("llama 1024 tokens: q_proj unchanged", g["linear", "model.layers.0.self_attn.q_proj.weight"],
          f["linear", "model.layers.0.self_attn.q_proj.weight"], TOL)
# without the row (an older profile): nothing added
h = host_bwd("bert", 8, 128, p=pn)
if h and a:
    check("no row: query as at 512 tokens", h["linear", BIASED[0]], a["linear", BIASED[0]], TOL)
# the reference step at twice the profile's backward time for it: the row doubles too
rows = {t["op"]: t for t in ops if t["dtype"] == "bf16"}
pb = rows["hf_bert_rest_tiny"]["host_bwd_us"] + 3 * rows["hf_bert_layer_tiny"]["host_bwd_us"]
pfw = rows["hf_bert_rest_tiny"]["host_fwd_us"] + 3 * rows["hf_bert_layer_tiny"]["host_fwd_us"]
i = host_bwd("bert", 8, 128, extra=["--host-ref-fwd", "%.4f" % pfw, "--host-ref-bwd", "%.4f" % (2 * pb)])
if i and a:
    check("ref x2: query = 2 x (single-pass + row)", i["linear", BIASED[0]], 2 * (a["linear", BIASED[0]] + EXTRA),
          2 * TOL)
shutil.rmtree(tmp, ignore_errors=True)
finish()
