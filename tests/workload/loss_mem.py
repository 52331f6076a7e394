#!/usr/bin/env python3
"""loss_mem.py: the loss's bytes per logit in the peak (sim/fu_builder.c fu__loss_bytes), by hand on
the workload's memory block: a two-layer model of width 256 at 8 x 512 = 4096 tokens and a
vocabulary of 30000 (123M logits) peaks at the loss, where the transient is 10 bytes a logit for
BERT under bf16 autocast (its log-softmax on the bf16 logits, the fp32 copy nll_loss keeps and its
fp32 gradient) and 12 for BERT in TF32 and GPT-2 and Llama under autocast (log-softmax in fp32
kept, its gradient and its input's). peak = params + optimizer states + casts + activations +
inputs + workspace + transient there: the inputs the token ids and labels (int64, 2 x 8 bytes a
token), the workspace the profile's workspace_bytes (set to 3 MiB here).
Usage: loss_mem.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
path = os.path.join(tmp, "p.json")
WS = 3 * 2 ** 20
prof["compute"]["workspace_bytes"] = WS
with open(path, "w") as f:
    json.dump(prof, f)
T, V = 8 * 512, 30000
for arch, prec, per in (("bert", "autocast-bf16", 10.0), ("bert", "tf32", 12.0), ("gpt2", "autocast-bf16", 12.0),
                        ("llama", "autocast-bf16", 12.0)):
    w, _ = workload(fusim, ["--transformer", "--arch", arch, "--layers", "2", "--hidden", "256", "--heads", "4",
                            "--ffn", "1024", "--vocab", str(V), "--seq", "512", "--micro-batch", "8",
                            "--precision", prec], path, tmp)
    if not w:
        continue
    m = w["memory"]
    check("%s %s: transient" % (arch, prec), m["transient_bytes"], per * T * V, 1.0)
    check("%s %s: inputs" % (arch, prec), m["inputs_bytes"], 16.0 * T, 0.5)
    check("%s %s: workspace" % (arch, prec), m["workspace_bytes"], WS, 0.5)
    check("%s %s: peak at the loss" % (arch, prec), m["peak_bytes"],
          m["params_bytes"] + m["optimizer_bytes"] + m.get("casts_bytes", 0.0) + m["activations_bytes"]
          + 16.0 * T + WS + per * T * V, 1.0)
finish()
