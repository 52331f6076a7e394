#!/usr/bin/env python3
"""bwd_calls.py: which CUDA runtime calls does a real HF model's backward make that the tiny
model of the profile's host rows (hf_host: hidden 64, 2 heads, vocabulary 128, batch 1 x 16)
does not? BERT's backward() CPU time stays 1.05-1.17x the rows carried by the reference step
(compute7) after the embedding's sort path; a call count does not drift with the host's speed,
so it says what is different where timings cannot (hf_host_tokens.py's per-layer slope was too
noisy to resolve).

For each variant (architecture, width, vocabulary, batch x seq, mode) at 1 and 3 layers: one
forward and one backward() under the profiler, every CUDA runtime/driver call counted by the
nearest aten:: operation that made it (else the autograd node); per layer = (3 - 1) / 2, the
rest = 1 layer - per layer. Then the operations whose call counts the sweep below says depend on
the size, alone: x.sum(0) over (T, H) (a linear layer's bias gradient), and the host time of
each, with the GPU held behind a sleep kernel, interleaved over rounds.
Prints one JSON object.  Usage (on the GPU machine): python3 tools/bwd_calls.py [--rounds N]"""
import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# name: (arch, hidden, heads, ffn, vocab, batch, seq, mode)
VARIANTS = {
    "bert_tiny_1x16": ("bert", 64, 2, 256, 128, 1, 16, "bf16"),
    "bert_tiny_16x512": ("bert", 64, 2, 256, 128, 16, 512, "bf16"),
    "bert_h768_1x16": ("bert", 768, 12, 3072, 30522, 1, 16, "bf16"),
    "bert_h768_16x512": ("bert", 768, 12, 3072, 30522, 16, 512, "bf16"),
    "bert_h512_32x128": ("bert", 512, 8, 2048, 30522, 32, 128, "bf16"),
    "bert_tiny_1x16_fp32": ("bert", 64, 2, 256, 128, 1, 16, "fp32"),
    "bert_h384_64x128_fp32": ("bert", 384, 6, 1536, 30522, 64, 128, "fp32"),
    "gpt2_tiny_1x16": ("gpt2", 64, 2, 256, 128, 1, 16, "bf16"),
    "gpt2_h768_16x1024": ("gpt2", 768, 12, 3072, 50257, 16, 1024, "bf16"),
    "llama_tiny_1x16": ("llama", 64, 2, 172, 128, 1, 16, "bf16"),
    "llama_h2048_4x1024": ("llama", 2048, 16, 5632, 32000, 4, 1024, "bf16"),
}
DEPTHS = (1, 3)
SUM_T = (16, 128, 512, 1024, 2048, 3072, 3200, 4096, 8192, 16384)
SUM_H = (64, 384, 768, 3072)


def is_call(name):
    """A CUDA runtime or driver API call (the profiler's cuda_runtime / cuda_driver events)."""
    return name.startswith("cuda") or name.startswith("cu") and name[2:3].isupper()


def owner(e):
    """The nearest aten:: operation above a runtime call, else the autograd node, else '?'."""
    p, node = e.cpu_parent, None
    while p is not None:
        if p.name.startswith("aten::"):
            return p.name
        if node is None and ("Backward" in p.name or "evaluate_function" in p.name):
            node = p.name
        p = p.cpu_parent
    return node or "?"


def calls_of(torch, fn):
    """Runtime calls made while fn() runs: {api: n}, {api|owner: n}."""
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    api, by = Counter(), Counter()
    for e in prof.events():
        if is_call(e.name) and e.name not in ("cudaDeviceSynchronize", "cudaStreamSynchronize"):
            api[e.name] += 1
            by["%s|%s" % (e.name, owner(e))] += 1
    return dict(api), dict(by)


def sub(a, b, k=1.0):
    return {x: round((a.get(x, 0) - b.get(x, 0)) * k, 2) for x in set(a) | set(b)
            if a.get(x, 0) != b.get(x, 0)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10,
                    help="interleaved rounds of held host times (default 10)")
    ap.add_argument("--only", default="", help="variants (comma list; default all: %s)" % ", ".join(VARIANTS))
    a = ap.parse_args(argv)
    names = [n for n in a.only.split(",") if n] or list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        print("bwd_calls: no variant %s (known: %s)" % (", ".join(unknown), ", ".join(VARIANTS)), file=sys.stderr)
        return 64
    import torch
    import transformers as tf
    import torch_host
    from calib_torch import held_step_host
    from hf_host_tokens import build
    sleep = int(30000 * 2000)  # ~30 ms: longer than any call here
    res = {"torch": torch.__version__, "transformers": tf.__version__, "gpu": torch.cuda.get_device_name(),
           "cpu_model": torch_host.cpu_model(), "rounds": a.rounds, "variants": {}, "sum": {}}
    models = {}
    for n in names:
        arch, h, nh, f, V, B, S, mode = VARIANTS[n]
        ids = torch.randint(0, V, (B, S), device="cuda")
        torch.backends.cuda.matmul.allow_tf32 = True
        for L in DEPTHS:
            # positions: BERT and GPT-2 at 1024 (seq up to 1024); Llama's rotary table runs to
            # any length (2026-12-04m's run had 2048 for it)
            m = build(torch, tf, arch, h, nh, f, L, vocab=V, positions=1024)

            def fwd(m=m, ids=ids, mode=mode):
                if mode == "bf16":
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        return m(input_ids=ids, labels=ids).loss
                return m(input_ids=ids, labels=ids).loss
            for _ in range(2):
                held_step_host(torch, m, fwd, sleep)
            m.zero_grad(set_to_none=True)
            fa, fb = calls_of(torch, lambda: models.__setitem__("loss", fwd()))
            ba, bb = calls_of(torch, lambda: models.pop("loss").backward())
            m.zero_grad(set_to_none=True)
            res["variants"].setdefault(n, {})["l%d" % L] = {"fwd_api": fa, "bwd_api": ba, "fwd_by": fb, "bwd_by": bb}
            models[n, L] = (m, fwd)
        v = res["variants"][n]
        for ph in ("fwd", "bwd"):
            for kind in ("api", "by"):
                one, three = v["l1"]["%s_%s" % (ph, kind)], v["l3"]["%s_%s" % (ph, kind)]
                lay = sub(three, one, 0.5)
                v["layer_%s_%s" % (ph, kind)] = lay
        print(n, "bwd per layer", json.dumps(v["layer_bwd_api"]), "1 layer", json.dumps(v["l1"]["bwd_api"]),
              file=sys.stderr, flush=True)
    # the bias gradient's reduction alone: its calls by size, then its held host time
    xs = {}
    for H in SUM_H:
        for T in SUM_T:
            for dt in (torch.bfloat16, torch.float32):
                x = torch.randn(T, H, device="cuda", dtype=dt)
                x.sum(0)
                k = "%s_T%d_H%d" % ("bf16" if dt == torch.bfloat16 else "fp32", T, H)
                res["sum"][k] = {"api": calls_of(torch, lambda: x.sum(0))[0]}
                xs[k] = x
    print("sum calls", json.dumps({k: v["api"] for k, v in res["sum"].items()}), file=sys.stderr, flush=True)

    def held_sum(x, reps=50):
        torch.cuda.synchronize()
        torch.cuda._sleep(sleep)
        t0 = time.perf_counter()
        for _ in range(reps):
            x.sum(0)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        return (t1 - t0) * 1e6 / reps
    st = {k: [] for k in xs}
    vt = {k: [] for k in models}
    probes = []
    for r in range(a.rounds):
        probes.append(round(torch_host.host_probe(), 3))
        for k in (list(xs) if r % 2 == 0 else list(xs)[::-1]):
            st[k].append(round(held_sum(xs[k]), 2))
        for k in (list(models) if r % 2 == 0 else list(models)[::-1]):
            m, fwd = models[k]
            f, b, over = held_step_host(torch, m, fwd, sleep)
            vt[k].append((round(f, 1), round(b, 1), over))
    res["probes_us"] = probes
    for k in xs:
        res["sum"][k]["held_us"] = st[k]
        res["sum"][k]["held_median_us"] = round(statistics.median(st[k]), 2)
    for (n, L), ts in vt.items():
        res["variants"][n]["l%d" % L]["held"] = ts
        res["variants"][n]["l%d" % L]["held_median"] = [round(statistics.median(t[0] for t in ts), 1),
                                                        round(statistics.median(t[1] for t in ts), 1)]
    print("sum held", json.dumps({k: v["held_median_us"] for k, v in res["sum"].items()}), file=sys.stderr)
    print("variants held", json.dumps({n: {L: v[L]["held_median"] for L in ("l1", "l3")}
                                       for n, v in res["variants"].items()}), file=sys.stderr, flush=True)
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
