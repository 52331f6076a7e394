#!/usr/bin/env python3
"""hf_depth.py: an HF layer's host cost past the reference step's depth (issue 13, compute12).

The profile's per-layer host rows (hf_<arch>_layer_tiny) are the slope between the tiny model at
1 and 3 layers, and the reference step that carries them to a capture's host is the tiny model at
3 layers (tools/host_ref.py). The captured BERT backward()s of 6 to 12 layers took 1.03-1.23x
what those rows give (data/compute/README.md, cpuB; by depth about 1.04 at 6 layers, 1.1 at 8,
1.15 at 12, where depth and token count are confounded): if a layer's host cost grows with the
autograd graph's depth, rows from 1-3 layers cannot show it. Here the same tiny models (hidden 64,
batch 1 x 16 or one tiny ViT image, calib_torch.hf_model) run at REF_LAYERS and at --depth layers, timed as the
reference step is (calib_torch.plain_step_host: wall time of forward() and backward(), the GPU
not held), both depths in every round (order alternating), for bert, gpt2 and llama (qwen3, phi3 and
torchvision's ViT on request) in bf16
autocast and fp32. Per round the per-layer cost between the two depths over that round's
reference-depth step is the host's speed cancelled; its median over rounds times the profile's
own reference step (hf_<arch>_rest_tiny + REF_LAYERS x hf_<arch>_layer_tiny) gives the row
hf_<arch>_deep_tiny at the profile's host speed (sim/fu_builder.c fu__deep_row prices every layer
past REF_LAYERS by it). Also written, as a diagnosis: per (arch, mode) the median ratio of the
two depths' steps and the ratio the profile's rows imply.

Usage (on the GPU machine): python3 tools/hf_depth.py --profile data/profiles/h200-default.json
                                [--depth 12] [--rounds 30] [--archs bert,gpt2,llama] --out F.json
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_ref import HF_ARCHS, REF_LAYERS, profile_host_row, load_profile, out_writable  # noqa: E402

MODES = ("bf16", "fp32")


def ref_rows(profile, arch, mode):
    """The profile's (rest, layer) _tiny rows for arch in mode, as (fwd, bwd) pairs; None without."""
    r = profile_host_row(profile, "hf_%s_rest_tiny" % arch, mode)
    l = profile_host_row(profile, "hf_%s_layer_tiny" % arch, mode)
    return (r, l) if r and l else None


def deep_rows(steps, profile, depth):
    """Rows and diagnosis from the timed steps: steps[(arch, mode)] = [(ref (fwd, bwd), deep (fwd,
    bwd)) per round], us. Row hf_<arch>_deep_tiny per (arch, mode) whose profile has the _tiny rows:
    median over rounds of ((deep - ref) / (depth - REF_LAYERS)) / ref, times the profile's
    reference step (rest + REF_LAYERS x layer), forward and backward apart."""
    rows, diag = [], {}
    for (arch, mode), rounds in sorted(steps.items()):
        rr = ref_rows(profile, arch, mode)
        if rr is None or not rounds:
            continue
        (rf, rb), (lf, lb) = rr
        pref = (rf + REF_LAYERS * lf, rb + REF_LAYERS * lb)
        per = [statistics.median((d[k] - r[k]) / (depth - REF_LAYERS) / r[k] for r, d in rounds) for k in (0, 1)]
        row = {"op": "hf_%s_deep_tiny" % arch, "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
               "host_fwd_us": round(per[0] * pref[0], 2), "host_bwd_us": round(per[1] * pref[1], 2)}
        rows.append(row)
        diag["%s_%s" % (arch, mode)] = {
            "ratio_measured": [round(statistics.median(d[k] / r[k] for r, d in rounds), 3) for k in (0, 1)],
            "ratio_rows": [round((pref[k] + (depth - REF_LAYERS) * (lf, lb)[k]) / pref[k], 3) for k in (0, 1)],
            "deep_over_layer": [round(row["host_fwd_us"] / lf, 3) if lf > 0 else None,
                                round(row["host_bwd_us"] / lb, 3) if lb > 0 else None],
            "rounds": len(rounds)}
    return rows, diag


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--archs", default="bert,gpt2,llama")
    a = ap.parse_args(argv)
    archs = [x for x in a.archs.split(",") if x]
    if a.depth <= REF_LAYERS or a.rounds < 1 or any(x not in HF_ARCHS for x in archs):
        print("hf_depth: --depth above %d, --rounds at least 1, --archs from %s" % (REF_LAYERS, ",".join(HF_ARCHS)),
              file=sys.stderr)
        return 64
    # what deep_rows reads of the profile, checked before the GPU time
    profile, status = load_profile("hf_depth", a.profile,
                                   lambda p: [ref_rows(p, arch, mode) for arch in archs for mode in MODES])
    if profile is None:
        return status
    if not out_writable("hf_depth", a.out):
        return 73
    import calib_torch
    torch = calib_torch.import_torch("hf_depth")
    import transformers as tf
    t0 = time.time()
    models = {}
    for arch in archs:
        for mode in MODES:
            for L in (REF_LAYERS, a.depth):
                torch.manual_seed(0)
                m, V = calib_torch.hf_model(tf, arch, L, "tiny")
                m = m.cuda().train()
                ids = calib_torch.hf_input(torch, arch, V, 1, 16)  # a ViT: one tiny image
                fwd = calib_torch.hf_loss(torch, m, ids, mode == "bf16")
                models[(arch, mode, L)] = (m, fwd)
                for _ in range(3):
                    calib_torch.plain_step_host(torch, m, fwd)
    steps = {(arch, mode): [] for arch in archs for mode in MODES}
    for i in range(a.rounds):
        for (arch, mode), out in steps.items():
            order = (REF_LAYERS, a.depth) if i % 2 == 0 else (a.depth, REF_LAYERS)
            got = {L: calib_torch.plain_step_host(torch, *models[(arch, mode, L)]) for L in order}
            out.append((got[REF_LAYERS], got[a.depth]))
    rows, diag = deep_rows(steps, profile, a.depth)
    d = {"format": "fusim-compute-1", "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
         "command": "tools/hf_depth.py " + " ".join(argv if argv is not None else sys.argv[1:]),
         "compute": {"source": "tools/hf_depth.py (the tiny HF models at %d and %d layers, %d rounds)"
                     % (REF_LAYERS, a.depth, a.rounds), "ops": rows},
         "diag": diag, "steps": {"%s_%s" % k: v for k, v in steps.items()}, "wall_s": round(time.time() - t0, 1)}
    with open(a.out, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    for k, v in diag.items():
        print("%-12s step %d/%d layers measured fwd %.3f bwd %.3f, rows give %.3f / %.3f; deep layer / "
              "layer row %s" % (k, a.depth, REF_LAYERS, v["ratio_measured"][0], v["ratio_measured"][1],
                                v["ratio_rows"][0], v["ratio_rows"][1], v["deep_over_layer"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
