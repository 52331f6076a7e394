#!/usr/bin/env python3
"""bwd_host_parts.py: which property of an HF BERT carries backward()'s host cost (diagnosis for
data/compute/README.md, issue 13). BERT h512's backward() costs the host 1.4-1.55x what the
calibration's rows give (tools/bwd_host_diag.py); the rows come from a tiny BERT (hidden 64, 2
heads, vocabulary 128) at 1 and 3 layers. Here BERTs that differ from the tiny one in one
property at a time (depth, vocabulary, head size, width), and the capture's own shape, are timed
the calibration's way (batch 1, seq 16, bf16 autocast, the GPU held behind a sleep kernel so that
no call waits for it), their steps interleaved round by round with the host-speed probe. Per
variant: forward and backward() CPU time (median over rounds), the autograd graph's nodes by
type, the parameter tensors; then one profiled backward of the capture's shape and of the tiny
one at the same depth (CPU self time per operator, and the attention kernels that ran), and the
capture's shape with each SDPA backend forced. Prints one JSON object.
Usage (on the GPU machine): python3 tools/bwd_host_parts.py [--rounds N] > out.json"""
import argparse
import collections
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# name: (hidden, heads, ffn, vocabulary, layers)
VARIANTS = {
    "tiny_l1": (64, 2, 256, 128, 1), "tiny_l3": (64, 2, 256, 128, 3), "tiny_l8": (64, 2, 256, 128, 8),
    "vocab_l1": (64, 2, 256, 30522, 1), "vocab_l3": (64, 2, 256, 30522, 3),
    "vocab_l8": (64, 2, 256, 30522, 8),
    "head64_l1": (128, 2, 512, 128, 1), "head64_l3": (128, 2, 512, 128, 3),
    "h512v128_l1": (512, 8, 2048, 128, 1), "h512v128_l3": (512, 8, 2048, 128, 3),
    "h512v128_l8": (512, 8, 2048, 128, 8),
    "cap_l1": (512, 8, 2048, 30522, 1), "cap_l3": (512, 8, 2048, 30522, 3),
    "cap_l8": (512, 8, 2048, 30522, 8),
}


def build(torch, tf, h, nh, f, V, L):
    c = tf.BertConfig(vocab_size=V, hidden_size=h, num_hidden_layers=L, num_attention_heads=nh,
                      intermediate_size=f, max_position_embeddings=512, type_vocab_size=2)
    c._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device("cuda"):
        m = tf.BertForMaskedLM(c)
    return m.train()


def held_step(torch, m, fwd, sleep):
    """forward() and backward() CPU time of one step of m, us, each call issued behind a sleep
    kernel of `sleep` cycles (nothing waits for the GPU: the host's issue time alone)."""
    m.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    torch.cuda._sleep(sleep)
    t0 = time.perf_counter()
    loss = fwd()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    torch.cuda._sleep(sleep)
    t2 = time.perf_counter()
    loss.backward()
    t3 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) * 1e6, (t3 - t2) * 1e6


def graph_nodes(loss):
    """The autograd graph's nodes by type, from loss.grad_fn (each node once)."""
    seen, todo, kinds = set(), [loss.grad_fn], collections.Counter()
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        kinds[type(n).__name__] += 1
        todo.extend(x for x, _ in n.next_functions)
    return kinds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args(argv)
    import torch
    import transformers as tf
    import torch_host
    sleep = int(60000 * 2000)  # ~60 ms: longer than any call here
    models, ids = {}, {}
    for k, (h, nh, f, V, L) in VARIANTS.items():
        models[k] = build(torch, tf, h, nh, f, V, L)
        ids[k] = torch.randint(0, V, (1, 16), device="cuda")

    def fwd(k):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return models[k](input_ids=ids[k], labels=ids[k]).loss

    def held(k):
        return held_step(torch, models[k], lambda: fwd(k), sleep)

    res = {"torch": torch.__version__, "transformers": tf.__version__, "rounds": a.rounds,
           "variants": {k: dict(zip(("hidden", "heads", "ffn", "vocab", "layers"), v)) for k, v in VARIANTS.items()}}
    for k in models:
        loss = fwd(k)
        res["variants"][k]["nodes"] = dict(graph_nodes(loss))
        res["variants"][k]["param_tensors"] = sum(1 for p in models[k].parameters() if p.requires_grad)
        loss.backward()
    for _ in range(2):
        for k in models:
            held(k)
    got, probes = {k: [] for k in models}, []
    for r in range(a.rounds):
        probes.append(round(torch_host.host_probe(), 3))
        for k in (list(models) if r % 2 == 0 else list(models)[::-1]):
            got[k].append(held(k))
    res["probes_us"] = probes
    for k, v in got.items():
        res["variants"][k]["fwd_us"] = round(statistics.median(x[0] for x in v), 1)
        res["variants"][k]["bwd_us"] = round(statistics.median(x[1] for x in v), 1)
        print(k, res["variants"][k]["fwd_us"], res["variants"][k]["bwd_us"],
              sum(res["variants"][k]["nodes"].values()), file=sys.stderr, flush=True)

    # SDPA backends forced on the capture's shape (the forward picks the backward's kernel)
    from torch.nn.attention import sdpa_kernel, SDPBackend
    res["sdpa"] = {}
    for name in ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"):
        be = getattr(SDPBackend, name, None)
        if be is None:
            continue
        try:
            xs = []
            for i in range(2 + a.rounds // 2):
                with sdpa_kernel(be):
                    t = held("cap_l8")
                if i >= 2:
                    xs.append(t)
            res["sdpa"][name] = {"fwd_us": round(statistics.median(x[0] for x in xs), 1),
                                 "bwd_us": round(statistics.median(x[1] for x in xs), 1)}
        except Exception as e:  # a backend that cannot run this shape
            res["sdpa"][name] = {"error": str(e).splitlines()[0][:200]}
        print("sdpa", name, res["sdpa"][name], file=sys.stderr, flush=True)

    # one profiled backward each: CPU self time per operator, and the kernels that ran
    from torch.profiler import profile, ProfilerActivity
    res["profile"] = {}
    for k in ("tiny_l8", "vocab_l8", "h512v128_l8", "cap_l8"):
        m = models[k]
        m.zero_grad(set_to_none=True)
        loss = fwd(k)
        torch.cuda.synchronize()
        torch.cuda._sleep(sleep)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            loss.backward()
            torch.cuda.synchronize()
        ops = {}
        for e in prof.key_averages():
            cpu = getattr(e, "self_cpu_time_total", 0.0)
            dev = getattr(e, "self_device_time_total", getattr(e, "self_cuda_time_total", 0.0))
            if cpu > 0 or dev > 0:
                ops[e.key[:120]] = [e.count, round(cpu, 1), round(dev, 1)]
        res["profile"][k] = ops
        top = sorted(ops.items(), key=lambda kv: -kv[1][1])[:25]
        print("profile", k, json.dumps(top), file=sys.stderr, flush=True)
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
