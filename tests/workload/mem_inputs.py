#!/usr/bin/env python3
"""mem_inputs.py: the memory block's inputs and workspace (sim/fu_build_cnn.c, sim/fu_builder.c),
by hand. The micro-batch's tensors besides those autograd saves: the int64 labels (8 bytes an
image), and the fp32 images (3 x 224 x 224 x 4 bytes) under autocast, where the stem (ResNet-18's
conv1, ViT's conv_proj) keeps their bf16 cast instead of them; in TF32 it keeps the images
themselves, so they are activations (their 4-byte copy there, not the 2-byte cast). The profile's
workspace_bytes (3 MiB here; absent, 0) is held through the step: the peak moves by it exactly.
fusim workload --info --format json carries the block. tools/workspace_residual.py on hand-made captures: a CNN's between-step memory less 4 bytes a
parameter for each of parameters, gradients and SGD's momentum, less its images and labels; a
language model's less AdamW's two states and its token ids and labels.
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
# gradient accumulation: from the second micro-batch on, forward and the loss run with the
# earlier micro-batches' gradients alive, so where the loss phase is the peak (GPT-2-like, AdamW)
# K > 1 adds the gradients' bytes to it exactly; a CNN's peak alike where its loss phase is
GPT = ["--transformer", "--arch", "gpt2", "--layers", "2", "--hidden", "256", "--heads", "4", "--ffn", "1024",
       "--vocab", "5000", "--seq", "256", "--micro-batch", "8"]
for what, args in (("gpt2", GPT), ("resnet18", ["--cnn", "resnet18", "--micro-batch", str(B)])):
    w1, _ = workload(fusim, args + ["--accum-steps", "1"], paths["ws"], tmp)
    w4, _ = workload(fusim, args + ["--accum-steps", "4"], paths["ws"], tmp)
    if w1 and w4:
        m1, m4 = w1["memory"], w4["memory"]
        at_step = sum(m1[k] for k in ("params_bytes", "grads_bytes", "optimizer_bytes", "inputs_bytes",
                                      "workspace_bytes"))
        check(what + ": K = 1's peak is its loss phase (above the step's parts)", m1["peak_bytes"] > at_step, True)
        check(what + ": accum 4 adds the gradients to the loss phase's peak",
              m4["peak_bytes"] - m1["peak_bytes"], m1["grads_bytes"], 1.0)
# fusim workload --info FILE --format json carries the memory block as the file holds it
import subprocess  # noqa: E402
wf = os.path.join(tmp, "w.json")
w, _ = workload(fusim, ["--cnn", "resnet18", "--micro-batch", str(B), "--precision", "autocast-bf16"], paths["ws"], tmp)
r = subprocess.run([fusim, "workload", "--info", wf, "--format", "json"], capture_output=True, text=True)
info = json.loads(r.stdout).get("memory", {}) if r.returncode == 0 else {}
for key in ("inputs_bytes", "workspace_bytes", "peak_bytes"):
    check("--info json memory." + key, info.get(key, -1.0), w["memory"][key] if w else 0.0, 0.5)
# tools/workspace_residual.py: a million parameters (3.8 MiB a state: a state missed or extra moves
# the median by that much); a CNN at batch 2 (images 224 x 224), SGD momentum (12 MB); a language
# model at batch 2 x seq 8, AdamW (16 MB); 5 MiB left in each
caps = os.path.join(tmp, "caps")
os.makedirs(caps)
left = 5 * 2 ** 20
for name, meta, notes, model in (
        ("cnn", {"batch": 2, "seq": 0}, "SGD momentum", 12e6 + 2 * (4 * IMG + 8)),
        ("lm", {"batch": 2, "seq": 8}, "AdamW", 16e6 + 16 * 2 * 8)):
    with open(os.path.join(caps, name + ".json"), "w") as f:
        json.dump({"notes": notes, "meta": dict(meta, gpu="G", params=1000000,
                                                memory_allocated_between_steps=model + left)}, f)
tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "workspace_residual.py")
r = subprocess.run([sys.executable, tool, caps], capture_output=True, text=True)
check("workspace_residual.py exit", r.returncode, 0, 0)
check("workspace_residual.py: G's median 5 MiB", "G: 2 captures, residual median 5.0 MiB (range 5.0 .. 5.0)" in r.stdout,
      True, 0)
finish()
