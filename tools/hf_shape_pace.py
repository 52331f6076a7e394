#!/usr/bin/env python3
"""hf_shape_pace.py: an HF layer's host cost at a real model's shape against the tiny rows that
price it (issue 13, compute17; a diagnosis for a later device call, not a row the builder reads).

The captures' backward runs through BERT's layers slower than the estimate where the host bounds
it (tools/ready_pace.py: per-layer pace 0.99-1.37x, median about 1.2, over 16 captures with a
reference step on 7 leases) while the part after layer 0 (its rest and the embeddings) runs
faster (0.82-0.92x in the host-bound ones): the rows that split the reference step into rest
and layers are the tiny model's (hidden 64, 1 x 16 tokens), and the reference carries only
their sum. This times, in every round (order rotating), the reference (the tiny model at
REF_LAYERS layers) and the same architecture at a real shape at REF_LAYERS and at --depth
layers, as the reference step is timed (calib_torch.plain_step_host: forward() and backward()
wall time, the GPU not held; pick a shape whose step the host bounds, as BERT h512 32 x 128 is,
so the calls are the host's work). Per round, over that round's reference (the host's speed
cancelled), times the profile's own reference step (hf_<arch>_rest_tiny + REF_LAYERS x
hf_<arch>_layer_tiny): a layer at the shape, (deep - shallow) / (depth - REF_LAYERS), and the
shape's REF_LAYERS-layer step; medians over rounds, against the rows the builder uses (the
deep row hf_<arch>_deep_tiny where the profile has it, else the layer row; the builder adds
real-size calls on top of it, e.g. reduce_split). If the layer reads ~1.2x the row here too,
a row by shape is the mechanism; if ~1.0, the captures' pace is the lease's host.

Usage (on the GPU machine): python3 tools/hf_shape_pace.py --profile data/profiles/h200-default.json
    [--arch bert] [--mode bf16] [--hidden 512] [--heads 8] [--ffn 2048] [--vocab 30522]
    [--batch 32] [--seq 128] [--depth 8] [--rounds 30] --out F.json
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calib_torch  # noqa: E402  (imports no torch itself)
from host_ref import REF_LAYERS, profile_host_row, load_profile, out_writable  # noqa: E402


def shape_pace(rounds, profile, arch, mode, depth):
    """From the timed steps, rounds = [(reference, shallow, deep) per round], each (fwd, bwd) us:
    the shape's layer and REF_LAYERS-layer step at the profile's host speed and against its
    rows, forward and backward apart; None without the profile's _tiny rows."""
    rest = profile_host_row(profile, "hf_%s_rest_tiny" % arch, mode)
    layer = profile_host_row(profile, "hf_%s_layer_tiny" % arch, mode)
    if not rest or not layer or not rounds:
        return None
    deep = profile_host_row(profile, "hf_%s_deep_tiny" % arch, mode) or layer
    pref = [rest[k] + REF_LAYERS * layer[k] for k in (0, 1)]
    lay = [statistics.median((d[k] - s[k]) / (depth - REF_LAYERS) / r[k] for r, s, d in rounds) * pref[k]
           for k in (0, 1)]
    step = [statistics.median(s[k] / r[k] for r, s, d in rounds) * pref[k] for k in (0, 1)]
    return {"layer_us": [round(x, 1) for x in lay],
            "layer_over_row": [round(lay[k] / deep[k], 3) for k in (0, 1)],
            "row_us": list(deep),
            "step_ref_layers_us": [round(x, 1) for x in step],
            "step_over_ref": [round(step[k] / pref[k], 3) for k in (0, 1)],
            "rest_us": [round(step[k] - REF_LAYERS * lay[k], 1) for k in (0, 1)],
            "rest_row_us": list(rest), "rounds": len(rounds)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="bert")
    ap.add_argument("--mode", default="bf16")
    for k, v in (("hidden", 512), ("heads", 8), ("ffn", 2048), ("vocab", 30522), ("batch", 32),
                 ("seq", 128), ("depth", 8), ("rounds", 30)):
        ap.add_argument("--" + k, type=int, default=v)
    a = ap.parse_args(argv)
    if (a.arch not in ("bert", "gpt2", "llama") or a.mode not in ("bf16", "fp32") or a.depth <= REF_LAYERS
            or a.rounds < 1 or min(a.hidden, a.heads, a.ffn, a.vocab, a.batch, a.seq) < 1
            or a.hidden % a.heads or (a.arch != "llama" and a.seq > calib_torch.HF_REAL_POSITIONS)):
        print("hf_shape_pace: --arch bert|gpt2|llama, --mode bf16|fp32, --depth above %d, --rounds and "
              "the shape at least 1, --heads dividing --hidden, --seq at most %d (BERT's and GPT-2's "
              "positions)" % (REF_LAYERS, calib_torch.HF_REAL_POSITIONS), file=sys.stderr)
        return 64
    def has_rows(p):
        if shape_pace([((1, 1), (1, 1), (2, 2))], p, a.arch, a.mode, a.depth) is None:
            raise KeyError("no hf_%s_rest_tiny / _layer_tiny rows in %s" % (a.arch, a.mode))
    profile, status = load_profile("hf_shape_pace", a.profile, has_rows)
    if profile is None:
        return status
    if not out_writable("hf_shape_pace", a.out):
        return 73
    torch = calib_torch.import_torch("hf_shape_pace")
    import transformers as tf
    t0 = time.time()
    bf16 = a.mode == "bf16"
    # fp32 as the captures run it (capture_torch --amp tf32): TF32 matrix products, so that the
    # shape's step stays host-bound; the host's calls are the same either way
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = not bf16

    def make(L, shape):
        torch.manual_seed(0)
        if shape:
            m, V = calib_torch.hf_model(tf, a.arch, L, "real",
                                        dict(hidden=a.hidden, heads=a.heads, ffn=a.ffn, vocab=a.vocab))
            ids = torch.randint(0, V, (a.batch, a.seq), device="cuda")
        else:
            m, V = calib_torch.hf_model(tf, a.arch, L, "tiny")
            ids = torch.randint(0, V, (1, 16), device="cuda")
        m = m.cuda().train()
        fwd = calib_torch.hf_loss(torch, m, ids, bf16)
        for _ in range(3):
            calib_torch.plain_step_host(torch, m, fwd)
        return m, fwd

    models = [make(REF_LAYERS, False), make(REF_LAYERS, True), make(a.depth, True)]
    rounds = []
    for i in range(a.rounds):
        got = [None] * 3
        for k in (i % 3, (i + 1) % 3, (i + 2) % 3):
            got[k] = calib_torch.plain_step_host(torch, *models[k])
        rounds.append(tuple(got))
    res = shape_pace(rounds, profile, a.arch, a.mode, a.depth)
    # whether the host bounded each model's step (reference, shallow, deep): the GPU's time after
    # backward() returned, median of 3 steps, against backward()'s own
    tails = [statistics.median(calib_torch.plain_step_host(torch, *mf, tail=True)[2] for _ in range(3))
             for mf in models]
    res["gpu_tail_us"] = [round(x, 1) for x in tails]
    d = {"format": "fusim-compute-diag-1", "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
         "transformers": tf.__version__,
         "command": "tools/hf_shape_pace.py " + " ".join(argv if argv is not None else sys.argv[1:]),
         "shape": vars(a), "result": res, "steps": rounds, "wall_s": round(time.time() - t0, 1)}
    with open(a.out, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    print("%s %s h%d %dx%d: a layer %.0f / %.0f us at the profile's host speed, %.3f / %.3f x the row; "
          "the %d-layer step %.3f / %.3f x the reference" % (
              a.arch, a.mode, a.hidden, a.batch, a.seq, res["layer_us"][0], res["layer_us"][1],
              res["layer_over_row"][0], res["layer_over_row"][1], REF_LAYERS, res["step_over_ref"][0],
              res["step_over_ref"][1]) + "; the GPU after backward() %s us" % res["gpu_tail_us"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
