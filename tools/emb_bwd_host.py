#!/usr/bin/env python3
"""emb_bwd_host.py: is the token count's backward host cost (tools/hf_host_tokens.py) the
embedding's backward path? PyTorch's embedding_dense_backward_cuda takes a one-kernel path up to
3072 indices and a sort-based one (radix sort, segment kernels) above. Times, with the GPU held
behind a sleep kernel (the host's issue time alone), interleaved round by round:
  - an nn.Embedding's backward (vocabulary 30522, hidden 768, fp32 weight as under autocast) at
    16, 3072, 3073 and 8192 indices: backward() of its output with a given gradient;
  - the tiny BERT of hf_host (hidden 64, 2 heads, vocabulary 128) at 1 and 3 layers, at
    24 x 128 = 3072 and 25 x 128 = 3200 tokens (nearly the same sizes, either side of 3072);
and with the profiler, the CUDA launches of each embedding backward.
Prints one JSON object.  Usage (on the GPU machine): python3 tools/emb_bwd_host.py [--rounds N]"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
NIDX = (16, 3072, 3073, 8192)
BERT_SHAPES = ((24, 128), (25, 128))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args(argv)
    import torch
    import transformers as tf
    import torch_host
    from calib_torch import held_step_host
    sleep = int(40000 * 2000)
    torch.manual_seed(0)
    emb = torch.nn.Embedding(30522, 768).cuda()
    ids = {n: torch.randint(0, 30522, (n,), device="cuda") for n in NIDX}
    grads = {n: torch.randn(n, 768, device="cuda") for n in NIDX}

    def emb_bwd(n):
        emb.zero_grad(set_to_none=True)
        out = emb(ids[n])
        torch.cuda.synchronize()
        torch.cuda._sleep(sleep)
        t0 = time.perf_counter()
        out.backward(grads[n])
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        return (t1 - t0) * 1e6

    bert, bfwd = {}, {}
    for b, s in BERT_SHAPES:
        for L in (1, 3):
            c = tf.BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=L, num_attention_heads=2,
                              intermediate_size=256, max_position_embeddings=512)
            c._attn_implementation = "sdpa"
            torch.manual_seed(0)
            with torch.device("cuda"):
                m = tf.BertForMaskedLM(c).train()
            x = torch.randint(0, 128, (b, s), device="cuda")

            def fwd(m=m, x=x):
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    return m(input_ids=x, labels=x).loss
            bert[b, s, L], bfwd[b, s, L] = m, fwd
    for _ in range(3):
        for n in NIDX:
            emb_bwd(n)
        for k in bert:
            held_step_host(torch, bert[k], bfwd[k], sleep)
    e_t = {n: [] for n in NIDX}
    b_t = {k: [] for k in bert}
    probes = []
    for r in range(a.rounds):
        probes.append(round(torch_host.host_probe(), 3))
        for n in (NIDX if r % 2 == 0 else NIDX[::-1]):
            e_t[n].append(round(emb_bwd(n), 1))
        for k in (list(bert) if r % 2 == 0 else list(bert)[::-1]):
            f, bw, _ = held_step_host(torch, bert[k], bfwd[k], sleep)
            b_t[k].append((round(f, 1), round(bw, 1)))
    from torch.profiler import profile, ProfilerActivity
    launches = {}
    for n in NIDX:
        emb.zero_grad(set_to_none=True)
        out = emb(ids[n])
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            out.backward(grads[n])
            torch.cuda.synchronize()
        ev = prof.key_averages()
        launches[n] = {e.key[:80]: e.count for e in ev if "Launch" in e.key or "cudaMemcpy" in e.key
                       or "cudaStreamSynchronize" in e.key or "cudaMemset" in e.key}
        print("launches", n, json.dumps(launches[n]), file=sys.stderr, flush=True)
    res = {"torch": torch.__version__, "transformers": tf.__version__, "gpu": torch.cuda.get_device_name(),
           "cpu_model": torch_host.cpu_model(), "rounds": a.rounds, "probes_us": probes,
           "embedding_bwd_us": {str(n): v for n, v in e_t.items()},
           "embedding_bwd_median_us": {str(n): round(statistics.median(v), 1) for n, v in e_t.items()},
           "embedding_launches": {str(n): v for n, v in launches.items()},
           "bert_tiny": {"%dx%d_l%d" % k: v for k, v in b_t.items()}}
    d = {}
    for L in (1, 3):
        lo, hi = b_t[BERT_SHAPES[0] + (L,)], b_t[BERT_SHAPES[1] + (L,)]
        d["l%d_bwd_diff_us" % L] = round(statistics.median(hi[r][1] - lo[r][1] for r in range(a.rounds)), 1)
        d["l%d_fwd_diff_us" % L] = round(statistics.median(hi[r][0] - lo[r][0] for r in range(a.rounds)), 1)
    ed = [e_t[3073][r] - e_t[3072][r] for r in range(a.rounds)]
    d["embedding_3073_minus_3072_us"] = round(statistics.median(ed), 1)
    res["diffs"] = d
    print("embedding medians", json.dumps(res["embedding_bwd_median_us"]), "diffs", json.dumps(d),
          file=sys.stderr, flush=True)
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
