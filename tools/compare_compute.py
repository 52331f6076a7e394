#!/usr/bin/env python3
"""compare_compute.py: the compute model against real runs. For every capture in
data/compute/captures (tools/capture_set.py on the H200; meta holds the model's hyper-parameters),
price the same model with `fusim workload --transformer/--cnn --profile P` and print, per model,
forward, backward, fwd+bwd, optimizer and peak memory (estimate / capture - 1) and the worst
gradient ready-time difference as a fraction of the captured backward; then the medians and maxima
against the targets (host_k: the capture's host speed over the calibration's by the main thread's
probe, as forward is priced: probe_speeds; spread: its readings' max / min;
fwd+bwd 10% median and 20% max, optimizer 20%, ready 10% of backward, memory 10%). Exit 1 when
a target is missed, 0 otherwise. A capture with a reference step (meta.host_ref, tools/host_ref.py
timed between its steps) is priced at its host's speed by it (--host-ref-fwd/--host-ref-bwd;
column "by": ref), else by its probes (probe) where it has them (probe_speeds), backward by the
autograd thread's where it has those too (meta.host_bwd_probes_us, their median:
--host-probe-bwd; column "by": pr+bw). Column "hb": the phases the
estimate finds host-bound (F forward, B backward; fusim says so in the notes), whose times follow
the host's speed. Columns cpuF, cpuB: the capture's forward() / backward() CPU time over the
estimate's host issue time for the same phase (the --ops listing's sums). Where the phase is
host-bound (hb) the call's CPU time is the host's work, so a ratio near 1 says the host side is
right and a miss there is the device's; elsewhere the call may also wait on a full launch queue.
Column "rd": how the ready curve is compared. s: the capture's curve scaled to bwd_us
(ready_of); h: a capture that timed its hooked steps beside the plain ones and the hooks' host
cost (meta.ready_hooked_us, meta.ready_hook_us, since 2026-12-04n): its unscaled curve against
the estimate of a hooked step (fusim workload --ready-hook-us), over the hooked backward.
Then, held to the same numbers but outside the exit status, the held-out-like set (--heldout:
shapes never in the comparison set, captured on another lease than the calibration), and outside
any targets the --others folders.

Usage: python3 tools/compare_compute.py [--fusim build/fusim] [--profile data/profiles/h200-default.json] [--by-gpu]
                                        [--captures DIR] [--heldout DIRS] [--others DIRS] [--csv FILE]
                                        [--heldout-csv FILE]
                                        [--no-host-probe] [--no-host-ref] [--no-bwd-probe]
"""
import argparse
import csv
import functools
import glob
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bad_input  # noqa: E402
import torch_runs  # noqa: E402  (tools/: a validation run's runs.json, gzipped or not)


KNOWN = {  # captures by tools/capture_torch.py --model NAME (data/workloads/*_captured.json)
    "bert_large": dict(arch="bert", layers=24, hidden=1024, heads=16, ffn=4096, vocab=30522),
    "resnet50": dict(arch="resnet50"),
    "resnet18": dict(arch="resnet18"),
    "resnet34": dict(arch="resnet34"),
    "resnet101": dict(arch="resnet101"),
    "resnet152": dict(arch="resnet152"),
    "wide_resnet50_2": dict(arch="wide_resnet50_2"),
    "wide_resnet101_2": dict(arch="wide_resnet101_2"),
    **{m: dict(arch=m) for m in ("vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
                                 "densenet121", "densenet161", "densenet169", "densenet201", "squeezenet1_0",
                                 "squeezenet1_1")},
    # the depthwise-convolution CNNs (sim/fu_build_mobile.c)
    **{m: dict(arch=m) for m in ("mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small", "mnasnet0_5",
                                 "mnasnet0_75", "mnasnet1_0", "mnasnet1_3", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
                                 "shufflenet_v2_x1_5", "shufflenet_v2_x2_0")},
    **{"efficientnet_b%d" % i: dict(arch="efficientnet_b%d" % i) for i in range(8)},
    **{m: dict(arch=m) for m in ("efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l", "convnext_tiny",
                                 "convnext_small", "convnext_base", "convnext_large")},
    # the ResNeXts (sim/fu_build_cnn.c) and RegNets (sim/fu_build_regnet.c)
    **{m: dict(arch=m) for m in ["resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d"] +
       ["regnet_y_" + v for v in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf", "128gf")] +
       ["regnet_x_" + v for v in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf")]},
    # tools/validate_torch.py's HF models (its captures' meta.model)
    "bert_base": dict(arch="bert", layers=12, hidden=768, heads=12, ffn=3072, vocab=30522),
    "gpt2": dict(arch="gpt2", layers=12, hidden=768, heads=12, ffn=3072, vocab=50257),
    "gpt2_medium": dict(arch="gpt2", layers=24, hidden=1024, heads=16, ffn=4096, vocab=50257),
    "llama_small": dict(arch="llama", layers=12, hidden=1024, heads=16, ffn=2816, vocab=32000),
    # Mistral's layer is Llama's (no sliding window in validate_torch's config): 4 KV heads of 12
    "mistral_small": dict(arch="llama", layers=12, hidden=768, heads=12, kv_heads=4, ffn=3072, vocab=32000),
    # BERT's layer and MLM head: RoBERTa with its own vocabulary; ELECTRA's generator head at
    # embedding_size 768 has the MLM head's shapes
    "roberta_base": dict(arch="bert", layers=12, hidden=768, heads=12, ffn=3072, vocab=50265,
                         rename=(("roberta.", "bert."), ("lm_head.layer_norm.", "cls.predictions.transform.LayerNorm."),
                                 ("lm_head.dense.", "cls.predictions.transform.dense."),
                                 ("lm_head.bias", "cls.predictions.bias"))),
    "electra_base": dict(arch="bert", layers=12, hidden=768, heads=12, ffn=3072, vocab=30522,
                         rename=(("electra.", "bert."),
                                 ("generator_predictions.LayerNorm.", "cls.predictions.transform.LayerNorm."),
                                 ("generator_predictions.dense.", "cls.predictions.transform.dense."),
                                 ("generator_lm_head.bias", "cls.predictions.bias"))),
    # Gemma's layer is Llama's with GeGLU for SwiGLU (the same GEMMs and as many elementwise
    # passes), heads of 64, 4 KV heads, the head tied to the embedding
    "gemma_small": dict(arch="llama", layers=12, hidden=768, heads=12, kv_heads=4, head_dim=64, ffn=3072,
                        vocab=32000, tied=True),
    # torchvision's ViTs (fusim workload --transformer --arch vit; capture_set's vit captures carry
    # these in their meta)
    "vit_b_16": dict(arch="vit", layers=12, hidden=768, heads=12, ffn=3072, image=224, patch=16, classes=1000),
    "vit_b_32": dict(arch="vit", layers=12, hidden=768, heads=12, ffn=3072, image=224, patch=32, classes=1000),
    "vit_l_16": dict(arch="vit", layers=24, hidden=1024, heads=16, ffn=4096, image=224, patch=16, classes=1000),
    # Qwen3's layer (fusim's --arch qwen3: Llama's with q_norm and k_norm; validate_torch's config:
    # 4 KV heads of 12, heads of 64, tied 152k vocabulary)
    "qwen3_small": dict(arch="qwen3", layers=12, hidden=768, heads=12, kv_heads=4, head_dim=64, ffn=2048,
                        vocab=151936, tied=True),
    # Qwen2's layer is Llama's with biases on q, k and v (Qwen2-0.5B's shapes: 2 KV heads of 14)
    "qwen2_small": dict(arch="llama", layers=24, hidden=896, heads=14, kv_heads=2, ffn=4864, vocab=151936,
                        tied=True, qkv_bias=True),
    # Phi-3's layer (fusim's --arch phi3: fused qkv_proj and gate_up_proj; validate_torch's config:
    # 4 KV heads of 12, untied 32064 vocabulary)
    "phi3_small": dict(arch="phi3", layers=12, hidden=768, heads=12, kv_heads=4, ffn=2048, vocab=32064),
    # DistilBERT's layer and MLM head are BERT's (post-LayerNorm, GELU, biases, the head's transform,
    # LayerNorm and tied decoder) but for the token-type embedding it has not (1536 parameters):
    # validate_torch's DistilBertConfig defaults, 6 layers
    "distilbert": dict(arch="bert", layers=6, hidden=768, heads=12, ffn=3072, vocab=30522,
                       rename=tuple(("distilbert.transformer.layer.%d.%s" % (i, a), "bert.encoder.layer.%d.%s" % (i, b))
                                    for i in range(6) for a, b in (
                                        ("attention.q_lin.", "attention.self.query."),
                                        ("attention.k_lin.", "attention.self.key."),
                                        ("attention.v_lin.", "attention.self.value."),
                                        ("attention.out_lin.", "attention.output.dense."),
                                        ("sa_layer_norm.", "attention.output.LayerNorm."),
                                        ("ffn.lin1.", "intermediate.dense."),
                                        ("ffn.lin2.", "output.dense."),
                                        ("output_layer_norm.", "output.LayerNorm."))) +
                       (("distilbert.embeddings.", "bert.embeddings."),
                        ("vocab_transform.", "cls.predictions.transform.dense."),
                        ("vocab_layer_norm.", "cls.predictions.transform.LayerNorm."),
                        ("vocab_projector.bias", "cls.predictions.bias"))),
    # OLMo 2's layer (fusim's --arch olmo2; validate_torch's config: 12 heads, untied 50304 vocabulary)
    "olmo2_small": dict(arch="olmo2", layers=12, hidden=768, heads=12, ffn=2048, vocab=50304),
}


def is_cnn(arch):
    """Whether fusim builds arch with --cnn (torchvision's ResNets, Wide ResNets, VGGs, DenseNets,
    MobileNets, EfficientNets B0-B7 and V2, MNASNets, ShuffleNetV2, ConvNeXt, ResNeXts, RegNets,
    SqueezeNets)."""
    return "resnet" in arch or arch.startswith(("vgg", "densenet", "mobilenet_v", "efficientnet_", "mnasnet",
                                                 "shufflenet_v2", "convnext", "resnext", "regnet_", "squeezenet"))


def optimizer_for(model):
    """The optimizer a capture of model (its arch, or its name, which starts with it) ran and is
    priced with: SGD with momentum for the ResNets (torchvision's recipe), AdamW otherwise."""
    return "sgd" if is_cnn(model) else "adamw"


def args_for(meta):
    """fusim workload arguments for a capture's meta (tools/capture_set.py writes it; the
    optimizer and the clip the capture ran where its meta records them, as validate_torch's do
    from session 37 on, else optimizer_for's)."""
    if "arch" not in meta and meta.get("model") in KNOWN:
        meta = dict(KNOWN[meta["model"]], **meta)
    opt = meta.get("optimizer") or optimizer_for(meta["arch"])
    clip = ["--clip-grad-norm", "%g" % meta["clip_grad_norm"]] if meta.get("clip_grad_norm") else []
    prec = "autocast-bf16" if meta.get("amp", "bf16") == "bf16" else ("tf32" if meta["amp"] == "tf32" else "fp32")
    if is_cnn(meta["arch"]):   # torchvision's CNNs (--cnn)
        return ["--cnn", meta["arch"], "--micro-batch", str(meta["batch"]), "--precision", prec,
                "--optimizer", opt] + clip + \
            (["--memory-format", "nchw"] if meta.get("memory_format") == "nchw" else [])
    if meta["arch"] == "vit":   # tokens and classes follow the image (no --seq, --vocab)
        return ["--transformer", "--arch", "vit", "--layers", str(meta["layers"]), "--hidden", str(meta["hidden"]),
                "--heads", str(meta["heads"]), "--ffn", str(meta["ffn"]), "--image", str(meta["image"]),
                "--patch", str(meta["patch"]), "--classes", str(meta["classes"]), "--micro-batch",
                str(meta["batch"]), "--precision", prec, "--optimizer", opt] + clip
    return ["--transformer", "--arch", meta["arch"], "--layers", str(meta["layers"]),
            "--hidden", str(meta["hidden"]), "--heads", str(meta["heads"]), "--ffn", str(meta["ffn"]),
            "--vocab", str(meta["vocab"]), "--seq", str(meta["seq"]), "--micro-batch", str(meta["batch"]),
            "--precision", prec, "--optimizer", opt] + clip + \
        (["--kv-heads", str(meta["kv_heads"])] if meta.get("kv_heads") else []) + \
        (["--head-dim", str(meta["head_dim"])] if meta.get("head_dim") else []) + \
        (["--tied-embeddings"] if meta.get("tied") else []) + \
        (["--qkv-bias"] if meta.get("qkv_bias") else [])


def with_memory_format(meta, cap):
    """meta with its CNN's memory format: the one it records, else "nchw" where the capture's notes
    say NCHW (tools/validate_torch.py's torchvision models run in PyTorch's default layout; its
    notes have said so from the first run), else the builder's default, channels-last
    (tools/capture_torch.py's)."""
    if "memory_format" in meta or ", NCHW" not in cap.get("notes", ""):
        return meta
    return dict(meta, memory_format="nchw")


def precision_unknown(meta, cap):
    """Why a capture's matrix-product precision cannot be told, or None: meta.amp "none" where
    its notes say "TF32 matmul" is validate_torch before run 4, whose runs 1-2 ran TF32 and run 3
    strict fp32 under the same labels (data/validation/README.md, run 3's caveat)."""
    if meta.get("amp") == "none" and "TF32 matmul" in cap.get("notes", ""):
        return "precision not recorded (amp none, notes TF32: TF32 in runs 1-2, strict fp32 in run 3)"
    return None


def builder_names(ready, meta):
    """A capture's {parameter name: ready time} under the names fusim's builder gives the same
    parameters (KNOWN's rename: (captured prefix, builder prefix) pairs, e.g. RoBERTa's
    "roberta." for BERT's "bert."), so that the ready curves pair parameter by parameter."""
    rename = KNOWN.get(meta.get("model"), {}).get("rename", ())
    def one(name):
        for old, new in rename:
            if name.startswith(old):
                return new + name[len(old):]
        return name
    return {one(n): t for n, t in ready.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    ap.add_argument("--profile", default=os.path.join(ROOT, "data", "profiles", "h200-default.json"))
    ap.add_argument("--by-gpu", action="store_true",
                    help="price each capture with the repository's profile of the GPU it ran on (its meta.gpu: "
                         "GPU_PROFILES), --profile for the others")
    ap.add_argument("--captures", default=os.path.join(ROOT, "data", "compute", "captures"))
    ap.add_argument("--csv", help="also write the rows as CSV")
    ap.add_argument("--heldout-csv", help="also write the held-out-like rows as CSV (tools/compute_rel.py reads "
                                          "both files)")
    ap.add_argument("--no-host-probe", action="store_true",
                    help="price every capture at the profile's host speed (no --host-probe): a sensitivity")
    ap.add_argument("--heldout", default=os.path.join(ROOT, "data", "compute", "heldout-2026-12-04"),
                    help="a held-out-like set (comma list of folders; '' for none): printed with the "
                         "targets' figures, outside the exit status")
    ap.add_argument("--others", default=os.path.join(ROOT, "data", "workloads") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-02") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04b-fwd", "set") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04b-fwd", "new") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04d-opt", "set") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04d-opt", "new") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04e-optdiag", "new") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04h-thread") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04i-hostref", "a") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04i-hostref", "b") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04j-hostref") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04m-fresh") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04n-ready") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04n-hook") + "," +
                    os.path.join(ROOT, "data", "compute", "captures-2026-12-04o-offgrid") + "," +
                    os.path.join(ROOT, "data", "compute", "heldout-2026-12-04q"),
                    help="also print (outside the targets) the captures in these folders (comma list; "
                         "*_captured.json in data/workloads): other leases, other machine state, no probe")
    ap.add_argument("--no-host-ref", action="store_true",
                    help="ignore the captures' reference steps (meta.host_ref): price by the probe as before")
    ap.add_argument("--no-bwd-probe", action="store_true",
                    help="ignore the autograd thread's probe (meta.host_bwd_probes_us): a probe-priced capture's "
                         "backward by the main thread's probe, as before")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.captures, "*.json")))
    if not files:
        print("compare_compute: no captures in %s" % a.captures, file=sys.stderr)
        return 66
    rows, st = compare(a, files)
    if st:
        return st
    others = []
    for d in (a.others.split(",") if a.others else []):
        others += sorted(glob.glob(os.path.join(d, other_pattern(d))))
    others = distinct(others)
    orows, st = compare(a, others, leave_out=True) if others else ([], 0)
    if st:
        return st
    held = []
    for d in (a.heldout.split(",") if a.heldout else []):
        held += sorted(glob.glob(os.path.join(d, "*.json")))
    hrows, st = compare(a, held, leave_out=True) if held else ([], 0)
    if st:
        return st
    show(rows)
    if orows:
        print("\nnot in the targets (captured on other leases than the calibration, most without its probe):")
        show(orows)
        print(fb_spread(orows))
    if hrows:
        print("\nheld-out-like (shapes never in the comparison set, another lease than the calibration's; "
              "not in the exit status):")
        show(hrows)
        targets(hrows)
        print("\nthe comparison set (the exit status):", end="")
    ok = targets(rows)
    for path, rs in ((a.csv, rows), (a.heldout_csv, hrows)):
        if path and rs:
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rs[0].keys()))
                w.writeheader()
                w.writerows(rs)
    return 0 if ok else 1


@functools.lru_cache(maxsize=None)
def run_recipe(folder):
    """(optimizer, clip) of the validation run in folder, read once from its runs.json; None where
    it has none that reads. A run whose runs.json records no optimizer predates validate_torch's
    --optimizer (41b1126), which came with the record: every such run trained with SGD and momentum."""
    try:
        run = torch_runs.load(folder)
    except (OSError, ValueError):
        return None
    return run.get("optimizer") or "sgd", run.get("clip")


def with_run_recipe(meta, folder):
    """meta with the optimizer and clip of the validation run whose folder holds the capture
    (validate_torch's captures record them themselves only from session 37 on), where the meta has
    none; else meta as it is."""
    recipe = None if "optimizer" in meta else run_recipe(folder)
    return meta if recipe is None else dict(meta, optimizer=recipe[0], clip_grad_norm=recipe[1])


# the repository's profile of each GPU a capture names in meta.gpu (--by-gpu)
GPU_PROFILES = {"H100": os.path.join(ROOT, "data", "profiles", "h100-sxm.json")}


def profile_for(a, meta):
    """The profile a capture is priced with: with --by-gpu its GPU's (GPU_PROFILES), else
    --profile."""
    if a.by_gpu:
        for gpu, path in GPU_PROFILES.items():
            if gpu in (meta.get("gpu") or ""):
                return path
    return a.profile


def compare(a, files, leave_out=False):
    """The rows of the captures in files priced by fusim. A capture fusim cannot price is the end
    (one line, status 70), but for leave_out (--others, --heldout): where the profile has no table
    for it (fusim's exit 65: an NCHW CNN on a profile without NCHW tables) it is left out with
    fusim's line. The comparison set never leaves one out: its targets are the exit status."""
    rows = []
    # a capture that recorded the host-speed probe is priced at its host's speed where the
    # profile's host rows carry theirs (host_args, probe_speeds)
    computes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            cap = bad_input.load_json(f)
            if "meta" not in cap:  # a run's other files (runs.json) beside its captures
                continue
            meta = with_memory_format(with_run_recipe(cap["meta"], os.path.dirname(f)), cap)
            if "arch" not in meta and meta.get("model") not in KNOWN:
                # validate_torch's captures of models fusim's builders do not make (Swin, Mistral, ...)
                print("%s: left out: no builder for %s" % (cap["name"], meta.get("model")), file=sys.stderr)
                continue
            unknown = precision_unknown(meta, cap)
            if unknown:
                print("%s: %s: %s" % (cap["name"], "left out" if leave_out else "cannot be priced", unknown),
                      file=sys.stderr)
                if leave_out:
                    continue
                return rows, 70
            out, ops = os.path.join(tmp, "est.json"), os.path.join(tmp, "ops.csv")
            prof = profile_for(a, meta)
            if prof not in computes:
                computes[prof] = bad_input.load_json(prof).get("compute", {})
            pc = computes[prof]
            cmd = [a.fusim, "workload"] + args_for(meta) + ["--profile", prof, "--out", out, "--ops", ops]
            carry, by = host_args(pc, meta, not a.no_host_ref, not a.no_host_probe, not a.no_bwd_probe)
            cmd += carry
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode == 65 and leave_out:   # no table for it (an NCHW CNN, no NCHW tables)
                print("%s: left out: %s" % (cap["name"], r.stderr.strip().split("\n")[-1]), file=sys.stderr)
                continue
            if r.returncode != 0:
                print("%s: fusim failed: %s" % (cap["name"], r.stderr.strip()), file=sys.stderr)
                return rows, 70
            est = json.load(open(out))
            host_f, host_b = ops_host_sums(ops)
            ready_c = ready_of(cap)
            ready_e = {g["name"]: g["ready_us"] for g in est["grads"]}
            rd, den = "scaled", cap["bwd_us"]
            hk = hooked_curve(cap)
            if hk:   # the estimate of a hooked step (the hooks' host cost after each gradient)
                r = subprocess.run(cmd + ["--ready-hook-us", str(hk[1])], capture_output=True, text=True)
                if r.returncode != 0:
                    print("%s: fusim failed: %s" % (cap["name"], r.stderr.strip()), file=sys.stderr)
                    return rows, 70
                ready_c, den, rd = hk[0], hk[2], "hooked"
                ready_e = {g["name"]: g["ready_us"] for g in json.load(open(out))["grads"]}
            ready_c = builder_names(ready_c, meta)
            common = [n for n in ready_c if n in ready_e]
            worst = max(abs(ready_e[n] - ready_c[n]) for n in common) / den if common else float("nan")
            mem_c = meta.get("max_memory_allocated", 0) or 0
            mem_e = est.get("memory", {}).get("peak_bytes", 0)
            row = {
                "model": cap["name"], "tensors": len(cap["grads"]), "matched": len(common),
                "fwd_cap": cap["fwd_us"], "fwd_est": est["fwd_us"], "bwd_cap": cap["bwd_us"],
                "bwd_est": est["bwd_us"], "opt_cap": cap["opt_us"], "opt_est": est["opt_us"],
                "mem_cap": mem_c, "mem_est": mem_e, "ready_worst": worst, "rd": rd, "by": by,
                "hb": host_bound(est.get("notes", "")),
                "cpu_f": meta["cpu_forward_call_us"] / host_f if meta.get("cpu_forward_call_us") and host_f > 0
                else float("nan"),
                "cpu_b": meta["cpu_backward_call_us"] / host_b if meta.get("cpu_backward_call_us") and host_b > 0
                else float("nan"),
            }
            row["fb_err"] = (row["fwd_est"] + row["bwd_est"]) / (row["fwd_cap"] + row["bwd_cap"]) - 1
            row["fwd_err"] = row["fwd_est"] / row["fwd_cap"] - 1
            row["bwd_err"] = row["bwd_est"] / row["bwd_cap"] - 1
            row["opt_err"] = row["opt_est"] / row["opt_cap"] - 1 if row["opt_cap"] > 0 else float("nan")
            row["mem_err"] = mem_e / mem_c - 1 if mem_c > 0 else float("nan")
            # the host's speed during the capture against the calibration's (as --host-probe
            # scales by it) and how far its readings spread (max / min): a wide
            # spread says the host's speed moved within the capture
            pr = meta.get("host_probes_us") or []
            # the optimizer step's parts, estimated (fusim's notes) and captured (opt.step()'s CPU
            # time, the step's device time alone, how far the GPU was behind the host when
            # backward() returned): which part an optimizer miss comes from
            row.update(optim_parts(est.get("notes", ""), cap))
            ks = probe_speeds(pc, meta)
            row["host_k"] = ks[0] if ks else float("nan")
            row["probe_spread"] = max(pr) / min(pr) if pr and min(pr) > 0 else float("nan")
            rows.append(row)
    return rows, 0


def probe_speeds(pc, meta):
    """The capture's host speed over the profile's (pc: its compute block) by its host-speed probes,
    (forward, backward by the main thread's probe, backward by the autograd thread's or None), or
    None without a probe. Forward: where the capture read the main thread's probe between its steps
    (capture_torch since 2026-12-04b: 3 before, one after each of its meta.iters steps, 3 after),
    the median of its readings over the profile's median (host_probe_us): readings between the
    steps describe the phases the steps ran in (69 such captures: forward() CPU time over the
    estimate's host sum, sd of the log, 0.137 by the median, 0.219 by the fastest; the reference
    step's forward 0.094 / 0.182; data/compute/README.md, compute21); where it read the probe only
    before and after, the fastest reading over the profile's fastest (host_probe_min_us: one
    reading is 1-2 ms of wall time and interference only adds to it; there the two do alike:
    fastest 0.167, median 0.178 over 20 captures; tools/probe_carriers.py prints these). Backward
    by the main thread's probe: its fastest reading (its median carries the reference's backward no
    better, sd 0.27 against 0.20). By the autograd thread's (meta.host_bwd_probes_us,
    torch_host.bwd_probe): their median over the profile's median (sd 0.13; no calibration recorded
    that thread's, and the two threads' medians agree in 41 captures). A profile without a fastest
    reading: the capture's median over the profile's for all."""
    pmin, pmed = pc.get("host_probe_min_us"), pc.get("host_probe_us")
    pr, bp = meta.get("host_probes_us"), meta.get("host_bwd_probes_us")
    if pmin and pr:
        kb = min(pr) / pmin
        kf = statistics.median(pr) / pmed if pmed and probes_between(meta) else kb
    elif pmed and meta.get("host_probe_us"):
        kf = kb = meta["host_probe_us"] / pmed
    else:
        return None
    return kf, kb, statistics.median(bp) / pmed if bp and pmed else None


def probes_between(meta):
    """Whether the capture read the main thread's probe between its steps (capture_torch since
    2026-12-04b: 3 readings before, one after each of its meta.iters steps, 3 after), not only
    before and after them."""
    pr = meta.get("host_probes_us") or []
    return bool(meta.get("iters")) and len(pr) == 6 + meta["iters"]


def ref_rows(pc, arch, mode):
    """Whether the profile's compute block pc has, in mode (bf16 or fp32), the rows a reference step
    of arch is priced by (fusim's fu__host_ref: hf_<arch>_layer_tiny and _rest_tiny, or
    tv_resnet50_held for a CNN)."""
    want = ["tv_resnet50_held"] if is_cnn(arch) else ["hf_%s_layer_tiny" % arch, "hf_%s_rest_tiny" % arch]
    have = {o.get("op") for o in pc.get("ops", []) if o.get("dtype") == mode}
    return all(w in have for w in want)


def host_args(pc, meta, use_ref=True, use_probe=True, use_bwd_probe=True):
    """The fusim workload arguments that carry the profile's host costs (pc: its compute block) to
    the host a capture ran on, and how ("ref", "probe", "pr+bw", "-"): its reference step where it
    has one (and use_ref), else its probes (probe_speeds; and use_probe), backward by the autograd
    thread's where it has those readings (and use_bwd_probe). --host-probe is read over the
    profile's fastest reading, --host-probe-bwd over its median: each speed is given on its scale."""
    ref = meta.get("host_ref") if use_ref else None
    if ref and ref.get("arch") and not ref_rows(pc, ref["arch"], "bf16" if meta.get("amp") == "bf16" else "fp32"):
        ref = None   # a reference of an architecture the profile has no rows for: the probes
    if ref and ref.get("fwd_us") and ref.get("bwd_us"):
        return ["--host-ref-fwd", str(ref["fwd_us"]), "--host-ref-bwd", str(ref["bwd_us"])], "ref"
    ks = probe_speeds(pc, meta) if use_probe else None
    if not ks:
        return [], "-"
    kf, kb, ka = ks
    by = "probe"
    if ka and use_bwd_probe:
        kb, by = ka, "pr+bw"
    args = ["--host-probe", str(kf * (pc.get("host_probe_min_us") or pc["host_probe_us"]))]
    if kb != kf:
        args += ["--host-probe-bwd", str(kb * pc["host_probe_us"])]
    return args, by


def ops_host_sums(ops):
    """(forward, backward) host issue time of an estimate: the sums of its `fusim workload --ops`
    listing's host_fwd_us and host_bwd_us columns (ops: the CSV's path)."""
    with open(ops) as f:
        listing = list(csv.DictReader(f))
    return sum(float(x["host_fwd_us"]) for x in listing), sum(float(x["host_bwd_us"]) for x in listing)


def distinct(files):
    """files less those byte for byte the same as an earlier one: a validation run's later calls on
    one lease carry the earlier calls' captures in their folders (runs 39 and 40), each counted once."""
    seen, out = set(), []
    for f in files:
        with open(f, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            out.append(f)
    return out


def other_pattern(d):
    """The captures of an --others folder: data/workloads' *_captured.json; a validation run's
    (its runs.json) wl_*.json, validate_torch's captures, not the other files kept beside them (run
    27's repro_engine_stuck.json, a capture rescaled to reproduce an engine fault); else every *.json."""
    if d.rstrip("/").endswith("workloads"):
        return "*_captured.json"
    if glob.glob(os.path.join(d, "runs.json*")):
        return "wl_*.json"
    return "*.json"


def captures_in(dirs):
    """The capture files (*.json) of the folders, each folder's in name order; a folder without
    one raises OSError (the analysis tools' bad_input makes it one line and exit 66)."""
    files = []
    for d in dirs:
        got = sorted(glob.glob(os.path.join(d, "*.json")))
        if not got:
            raise OSError(2, "no captures (*.json)", d)
        files += got
    return files


def ready_of(cap):
    """Each gradient's captured ready time at the plain pass's backward length (bwd_us, which the
    reference step's host speed describes). capture_torch scales the hooked pass's ready times by
    bwd_us / bwd_hooked_us either way; captures made before 2026-12-04m scaled them only down
    (ready_scale min(1, ...)), leaving the curve of a hooked pass that the host ran faster than
    the plain one short of bwd_us: those are scaled here as capture_torch now does."""
    m, b = cap.get("meta", {}), cap["bwd_us"]
    h = m.get("bwd_hooked_us") or 0
    k = b / h if 0 < h < b and m.get("ready_scale") == 1.0 else 1.0
    return {g["name"]: min(g["ready_us"] * k, b) for g in cap["grads"]}


def hooked_curve(cap):
    """A capture that timed its hooked steps beside the plain ones (2026-12-04n): (their own curve,
    unscaled; the hooks' host cost a gradient, at least 0; the hooked backward), else None."""
    m = cap.get("meta", {})
    if m.get("ready_hooked_us") and m.get("bwd_hooked_us") and m.get("ready_hook_us") is not None:
        return m["ready_hooked_us"], max(0.0, m["ready_hook_us"]), m["bwd_hooked_us"]
    return None


def host_bound(notes):
    """The phases fusim's notes call host-bound: "F", "B", "FB" or "-"."""
    for what, tag in (("forward and backward", "FB"), ("forward", "F"), ("backward", "B")):
        if "Host-bound: %s (" % what in notes:
            return tag
    return "-"


def optim_parts(notes, cap):
    """The optimizer step's parts: the estimate's device, host and GPU lead from fusim's notes
    ("Optimizer step: device D us, host H us, GPU lead L us"), the capture's device time alone,
    opt.step()'s CPU time and the GPU's lag when backward() returned (fwd + bwd - the forward's and
    backward()'s CPU times); nan where either side lacks them."""
    nan = float("nan")
    m = re.search(r"Optimizer step: device ([0-9.]+) us, host ([0-9.]+) us, GPU lead ([0-9.]+) us", notes)
    meta = cap["meta"]
    cpu = meta.get("cpu_forward_call_us") and meta.get("cpu_backward_call_us")
    return {"opt_dev_est": float(m.group(1)) if m else nan, "opt_host_est": float(m.group(2)) if m else nan,
            "lead_est": float(m.group(3)) if m else nan,
            "opt_dev_cap": meta.get("opt_gpu_only_us") or nan, "opt_host_cap": meta.get("cpu_opt_call_us") or nan,
            "lag_cap": cap["fwd_us"] + cap["bwd_us"] - meta["cpu_forward_call_us"] - meta["cpu_backward_call_us"]
            if cpu else nan}


def show(rows):
    print("%-32s %9s %9s %6s %9s %9s %6s %7s %9s %9s %6s %7s %2s %7s %6s %6s %6s %5s %3s %5s %5s" % (
        "model", "fwd_cap", "fwd_est", "err", "bwd_cap", "bwd_est", "err", "fb_err", "opt_cap", "opt_est",
        "err", "ready", "rd", "mem_GiB", "err", "host_k", "spread", "by", "hb", "cpuF", "cpuB"))
    for r in rows:
        print("%-32s %9.0f %9.0f %+5.0f%% %9.0f %9.0f %+5.0f%% %+6.1f%% %9.0f %9.0f %+5.0f%% %6.1f%% %2s %7.2f %+5.0f%% %6.2f %6.2f %5s %3s %5.2f %5.2f" % (
            r["model"], r["fwd_cap"], r["fwd_est"], 100 * r["fwd_err"], r["bwd_cap"], r["bwd_est"],
            100 * r["bwd_err"], 100 * r["fb_err"], r["opt_cap"], r["opt_est"], 100 * r["opt_err"],
            100 * r["ready_worst"], r["rd"][0], r["mem_cap"] / 2**30, 100 * r["mem_err"], r["host_k"], r["probe_spread"],
            r["by"], r["hb"], r["cpu_f"], r["cpu_b"]))


def fb_spread(rows):
    """One line: how far forward + backward lies over rows (the captures outside the targets, whose
    memory and optimizer are no check: a validation capture's peak holds its run's copies)."""
    fb = [abs(r["fb_err"]) for r in rows]
    return ("%d captures: fwd+bwd median |err| %.1f%%, max %.1f%%, %d within 10%%"
            % (len(fb), 100 * statistics.median(fb), 100 * max(fb), sum(1 for x in fb if x <= 0.10)))


def targets(rows):
    fb = [abs(r["fb_err"]) for r in rows]
    opt = [abs(r["opt_err"]) for r in rows if r["opt_err"] == r["opt_err"]]
    ready = [r["ready_worst"] for r in rows]
    mem = [abs(r["mem_err"]) for r in rows if r["mem_err"] == r["mem_err"]]
    checks = [
        ("fwd+bwd median |err| <= 10%", statistics.median(fb), 0.10),
        ("fwd+bwd max |err| <= 20%", max(fb), 0.20),
        ("optimizer max |err| <= 20%", max(opt), 0.20),
        ("ready time max |diff| / bwd <= 10%", max(ready), 0.10),
        ("memory max |err| <= 10%", max(mem), 0.10),
    ]
    ok = True
    print()
    for what, v, lim in checks:
        good = v <= lim
        ok &= good
        print("%-40s %6.1f%%  %s" % (what, 100 * v, "ok" if good else "MISSED"))
    return ok


if __name__ == "__main__":
    sys.exit(bad_input.run("compare_compute", main))
