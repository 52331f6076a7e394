#!/usr/bin/env python3
"""hf_host_tokens.py: does an HF layer's host cost depend on the token count (issue 13)?
The profile's host rows (calib_torch.py --parts hf_host) come from tiny HF models (hidden 64) at
batch 1 x seq 16; BERT captures run 32 x 128 and 16 x 512, and their backward() host time stays
1.11-1.22x the rows as the reference step carries them (compute6). Here the hf_host method (per
layer: the slope between 1 and 3 layers, bf16 autocast, the GPU held behind a sleep kernel so
that no call waits for it) is run at several batch x seq per architecture, every model's step
interleaved in every round (the host's speed drifts in levels lasting seconds), so that a
round's ratio of per-layer costs is the token count's effect at one host speed. Besides the tiny
width, BERT at the captures' widths (512, 768; vocabulary 128, which compute5 found carries
nothing) shows whether the effect is the token count's or the activations' bytes.
Prints one JSON object: per variant the per-round (fwd, bwd) us, per (arch, width, tokens) the
per-layer and rest medians, and per round the ratio to the same width at 1 x 16.
Usage (on the GPU machine): python3 tools/hf_host_tokens.py [--rounds N] > out.json"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# (arch, hidden, heads, ffn): the widths; each at the (batch, seq) listed, at 1 and 3 layers
WIDTHS = {
    "bert64": ("bert", 64, 2, 256, [(1, 16), (32, 128), (16, 512)]),
    "gpt2_64": ("gpt2", 64, 2, 256, [(1, 16), (32, 128), (16, 512)]),
    "llama64": ("llama", 64, 2, 172, [(1, 16), (32, 128), (16, 512)]),
    "bert512": ("bert", 512, 8, 2048, [(1, 16), (32, 128)]),
    "bert768": ("bert", 768, 12, 3072, [(1, 16), (16, 512)]),
}
DEPTHS = (1, 3)
VOCAB = 128


def build(torch, tf, arch, h, nh, f, L, vocab=VOCAB, positions=512):
    """An HF model of L layers on the GPU, in training mode (also tools/bwd_calls.py's)."""
    if arch == "bert":
        c = tf.BertConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=L, num_attention_heads=nh,
                          intermediate_size=f, max_position_embeddings=positions)
        cls = tf.BertForMaskedLM
    elif arch == "gpt2":
        c = tf.GPT2Config(vocab_size=vocab, n_embd=h, n_layer=L, n_head=nh, n_inner=f, n_positions=positions)
        cls = tf.GPT2LMHeadModel
    else:
        c = tf.LlamaConfig(vocab_size=vocab, hidden_size=h, intermediate_size=f, num_hidden_layers=L,
                           num_attention_heads=nh, num_key_value_heads=nh, max_position_embeddings=positions)
        cls = tf.LlamaForCausalLM
    c._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device("cuda"):
        m = cls(c)
    return m.train()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args(argv)
    import torch
    import transformers as tf
    import torch_host
    from calib_torch import held_step_host, plain_step_host
    sleep = int(40000 * 2000)  # ~40 ms, as hf_host: longer than any call here
    models, fwds, keys = {}, {}, []
    for w, (arch, h, nh, f, shapes) in WIDTHS.items():
        for b, s in shapes:
            for L in DEPTHS:
                k = (w, b, s, L)
                models[k] = build(torch, tf, arch, h, nh, f, L)
                ids = torch.randint(0, VOCAB, (b, s), device="cuda")

                def fwd(m=models[k], ids=ids):
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        return m(input_ids=ids, labels=ids).loss
                fwds[k] = fwd
                keys.append(k)
    for _ in range(2):  # warm-up: kernels chosen, allocator cached
        for k in keys:
            held_step_host(torch, models[k], fwds[k], sleep)
    held = {k: [] for k in keys}
    plain = {k: [] for k in keys}
    past, probes, bprobes = {k: 0 for k in keys}, [], []
    for r in range(a.rounds):
        probes.append(round(torch_host.host_probe(), 3))
        bprobes.append(round(torch_host.bwd_probe(), 3))
        for k in (keys if r % 2 == 0 else keys[::-1]):
            f, bw, s_ = held_step_host(torch, models[k], fwds[k], sleep)
            held[k].append((round(f, 1), round(bw, 1)))
            past[k] += s_
            plain[k].append(tuple(round(x, 1) for x in plain_step_host(torch, models[k], fwds[k])))
    res = {"torch": torch.__version__, "transformers": tf.__version__, "rounds": a.rounds,
           "gpu": torch.cuda.get_device_name(), "cpu_model": torch_host.cpu_model(),
           "probes_us": probes, "bwd_probes_us": bprobes, "vocab": VOCAB, "depths": list(DEPTHS),
           "widths": {w: dict(zip(("arch", "hidden", "heads", "ffn", "shapes"), v)) for w, v in WIDTHS.items()},
           "steps": {}, "fits": {}}
    for k in keys:
        res["steps"]["%s_b%d_s%d_l%d" % k] = {"held": held[k], "plain": plain[k], "calls_past_sleep": past[k]}
    for how, v in (("held", held), ("plain", plain)):
        for w, (arch, h, nh, f, shapes) in WIDTHS.items():
            lay = {}
            for b, s in shapes:
                # per round: slope over the depths (1 and 3 layers: the difference / 2), forward and backward
                sl = [[(v[(w, b, s, 3)][r][i] - v[(w, b, s, 1)][r][i]) / 2 for i in (0, 1)] for r in range(a.rounds)]
                rest = [[v[(w, b, s, 1)][r][i] - sl[r][i] for i in (0, 1)] for r in range(a.rounds)]
                lay[b, s] = sl
                e = {"tokens": b * s, "layer_fwd_us": round(statistics.median(x[0] for x in sl), 1),
                     "layer_bwd_us": round(statistics.median(x[1] for x in sl), 1),
                     "rest_fwd_us": round(statistics.median(x[0] for x in rest), 1),
                     "rest_bwd_us": round(statistics.median(x[1] for x in rest), 1)}
                if (b, s) != shapes[0]:  # the same round's ratio to 1 x 16
                    b0 = shapes[0]
                    for i, ph in ((0, "fwd"), (1, "bwd")):
                        rt = [sl[r][i] / lay[b0][r][i] for r in range(a.rounds) if lay[b0][r][i] > 0]
                        e["ratio_%s_median" % ph] = round(statistics.median(rt), 3)
                        e["ratio_%s_q" % ph] = [round(x, 3) for x in statistics.quantiles(rt, n=4)]
                res["fits"]["%s_%s_b%d_s%d" % (how, w, b, s)] = e
                print(how, w, b, s, json.dumps(e), file=sys.stderr, flush=True)
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
