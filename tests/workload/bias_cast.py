#!/usr/bin/env python3
"""bias_cast.py: under bf16 autocast a linear's bias is cast to bf16 with its weight (F.linear and
addmm take every operand in bf16), a small copy each way, as its weight's; by hand on the --ops
listing. Two hand-made fp32 cast tables, flat (one point at 1e12 elements: every cast costs the
same): fwd / bwd 1 / 2 us and 3 / 5 us. Between them a BERT linear's forward moves by 2 us and
its backward (the gradients' casts back, the listing includes them) by 3 us per cast:
query/key/value and intermediate.dense (fp32 input, weight, bias) 3 / 3 casts,
attention.output.dense (weight, bias, and the heads' merge priced as a copy) 3 / 2,
output.dense 2 / 2, the MLM transform 3 / 3, the decoder (its fp32 input, its bias and the
word embeddings' weight it is tied to: fu__tied_head) 3 / 3; in TF32 no casts (only the heads' merge copy: 1 / 0).
GPT-2 (Conv1D: addmm, its bias cast as well): attn.c_attn and mlp.c_fc (fp32 input after the
fp32 LayerNorm, weight, bias) 3 / 3, attn.c_proj (weight, bias, the heads' merge) 3 / 2,
mlp.c_proj (gelu_new's output is fp32 under autocast, weight, bias) 3 / 3; in TF32 1 / 0 for
attn.c_proj only.
Usage: bias_cast.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, tf_args, workload  # noqa: E402

fusim, tmp, prof = start()
ops = [t for t in prof["compute"]["ops"] if not (t["op"] == "cast" and t["dtype"] == "fp32")]
paths = []
for i, (f, b) in enumerate(((1.0, 2.0), (3.0, 5.0))):
    prof["compute"]["ops"] = ops + [{"op": "cast", "dtype": "fp32", "numel": [1e12], "fwd_us": [f], "bwd_us": [b],
                                     "host_fwd_us": 1.0, "host_bwd_us": 1.0}]
    paths.append(os.path.join(tmp, "c%d.json" % i))
    with open(paths[-1], "w") as fo:
        json.dump(prof, fo)
L0 = "bert.encoder.layer.0."
COUNTS = {L0 + "attention.self.query.weight": (3, 3), L0 + "attention.self.key.weight": (3, 3),
          L0 + "attention.self.value.weight": (3, 3), L0 + "attention.output.dense.weight": (3, 2),
          L0 + "intermediate.dense.weight": (3, 3), L0 + "output.dense.weight": (2, 2),
          "cls.predictions.transform.dense.weight": (3, 3), "cls.predictions.bias": (3, 3)}


def linears(args, p):
    _, rows = workload(fusim, args, p, tmp)
    return {r["param"]: (float(r["fwd_us"]), float(r["bwd_us"])) for r in rows or [] if r["op"] == "linear"}


G0 = "transformer.h.0."
GPT2 = {G0 + "attn.c_attn.weight": (3, 3), G0 + "attn.c_proj.weight": (3, 2), G0 + "mlp.c_fc.weight": (3, 3),
        G0 + "mlp.c_proj.weight": (3, 3)}
for (arch, counts), prec in [(c, p) for c in (("bert", COUNTS), ("gpt2", GPT2)) for p in ("autocast-bf16", "tf32")]:
    args = [a if a != "autocast-bf16" else prec for a in tf_args(arch)]
    a, b = linears(args, paths[0]), linears(args, paths[1])
    for name, (nf, nb) in counts.items():
        if prec == "tf32":   # no autocast: only the heads' merge, a copy priced by the cast table
            nf, nb = (1, 0) if name.endswith(("attention.output.dense.weight", "attn.c_proj.weight")) else (0, 0)
        check("%s %s listed" % (prec, name), name in a and name in b, True, 0)
        if name in a and name in b:
            check("%s %s fwd" % (prec, name), b[name][0] - a[name][0], 2.0 * nf, 0.002)
            check("%s %s bwd" % (prec, name), b[name][1] - a[name][1], 3.0 * nb, 0.002)
finish()
