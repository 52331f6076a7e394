#!/usr/bin/env python3
"""mem_inputs.py: the memory block's inputs and workspace (sim/fu_build_cnn.c, sim/fu_builder.c),
by hand. The micro-batch's tensors besides those autograd saves: the int64 labels (8 bytes an
image), and the fp32 images (3 x 224 x 224 x 4 bytes) under autocast, where the stem (ResNet-18's
conv1, ViT's conv_proj) keeps their bf16 cast instead of them; in TF32 it keeps the images
themselves, so they are activations (their 4-byte copy there, not the 2-byte cast). The profile's
workspace_bytes (3 MiB here; absent, 0) is held through the step: the peak moves by it exactly.
Usage: mem_inputs.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
WS = 3 * 2 ** 20
paths = {}
for name, ws in (("none", None), ("ws", WS)):
    p = dict(prof, compute=dict(prof["compute"]))
    p["compute"].pop("workspace_bytes", None)
    if ws:
        p["compute"]["workspace_bytes"] = ws
    paths[name] = os.path.join(tmp, name + ".json")
    with open(paths[name], "w") as f:
        json.dump(p, f)
B, IMG = 16, 224.0 * 224 * 3
VIT = ["--transformer", "--arch", "vit", "--layers", "2", "--hidden", "192", "--heads", "3", "--ffn", "768"]
for what, args in (("resnet18", ["--cnn", "resnet18"]), ("vit", VIT)):
    mem = {}
    for prec in ("autocast-bf16", "tf32"):
        for name, path in paths.items():
            w, _ = workload(fusim, args + ["--micro-batch", str(B), "--precision", prec], path, tmp)
            mem[prec, name] = w["memory"] if w else None
    if None in mem.values():
        continue
    ac, tf = mem["autocast-bf16", "ws"], mem["tf32", "ws"]
    check(what + " autocast: inputs", ac["inputs_bytes"], B * (4 * IMG + 8), 0.5)
    check(what + " tf32: inputs", tf["inputs_bytes"], B * 8.0, 0.5)
    # the stem's saved input: the 2-byte cast under autocast, the 4-byte images in TF32
    check(what + ": tf32 less autocast activations, the stem's part",
          tf["activations_bytes"] - ac["activations_bytes"] > B * 2 * IMG - 1, True)
    for prec in ("autocast-bf16", "tf32"):
        check("%s %s: workspace" % (what, prec), mem[prec, "ws"]["workspace_bytes"], WS, 0.5)
        check("%s %s: no workspace without the profile's" % (what, prec),
              mem[prec, "none"].get("workspace_bytes", 0.0), 0.0, 0.5)
        check("%s %s: the peak moves by the workspace" % (what, prec),
              mem[prec, "ws"]["peak_bytes"] - mem[prec, "none"]["peak_bytes"], WS, 1.0)
finish()
